import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from '@jest/globals';
import { listen, shutdown } from '../src/index.js';

/**
 * A server whose first binds fail as grpc-js reports the kernel's race (a picked port that a
 * connection already holds): the race itself cannot be made to happen on demand.
 */
class RacingServer extends grpc.Server {
  binds: string[] = [];
  constructor(private failures: number) {
    super();
  }
  override bindAsync(
    port: string,
    creds: grpc.ServerCredentials,
    callback: (error: Error | null, port: number) => void,
  ): void {
    this.binds.push(port);
    if (this.failures-- > 0) {
      const error = new Error(
        'No address added out of total 1 resolved errors: [listen EADDRINUSE: address already in use 127.0.0.1:46071]',
      );
      process.nextTick(() => callback(error, 0));
      return;
    }
    super.bindAsync(port, creds, callback);
  }
}

describe('listen', () => {
  it('picks a port again when the one the system picked is found in use', async () => {
    const server = new RacingServer(2);
    const port = await listen(server, '127.0.0.1:0');
    expect(port).toBeGreaterThan(0);
    expect(server.binds).toEqual(['127.0.0.1:0', '127.0.0.1:0', '127.0.0.1:0']);
    await shutdown(server);
  });

  it('does not try another port than the one asked for, and gives up on a picked port after five tries', async () => {
    const fixed = new RacingServer(1);
    await expect(listen(fixed, '127.0.0.1:46071')).rejects.toThrow(/EADDRINUSE/);
    expect(fixed.binds).toHaveLength(1);
    const unlucky = new RacingServer(5);
    await expect(listen(unlucky, '127.0.0.1:0')).rejects.toThrow(/EADDRINUSE/);
    expect(unlucky.binds).toHaveLength(5);
  });
});
