import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { billingV1 } from '@tidemark/contracts';
import { ApiError } from '@tidemark/errors';
import { createLogger } from '@tidemark/telemetry';
import { connectClient, listen, shutdown, unaryService, type RpcClient } from '../src/index.js';

/** A BillingService answering its own name as the workspace id. */
const replica = async (name: string) => {
  const server = new grpc.Server();
  const unused = async () => Promise.reject(new ApiError('internal', 'not used here'));
  server.addService(
    billingV1.BillingServiceService,
    unaryService<billingV1.BillingServiceServer>(
      {
        balance: async () => ({ workspaceId: name, granted: 0, used: 0, remaining: 0, plan: 'free' }),
        authorize: unused,
        charge: unused,
        authorizeMany: unused,
        chargeMany: unused,
        usage: unused,
      },
      createLogger('test', 'silent'),
    ),
  );
  return { server, port: await listen(server, '127.0.0.1:0') };
};

describe('a client of several replicas (ipv4:a,b)', () => {
  let a: Awaited<ReturnType<typeof replica>>;
  let b: Awaited<ReturnType<typeof replica>>;
  let client: RpcClient<billingV1.BillingServiceClient>;

  beforeAll(async () => {
    a = await replica('a');
    b = await replica('b');
    client = connectClient(billingV1.BillingServiceClient, `ipv4:127.0.0.1:${a.port},127.0.0.1:${b.port}`, 'billing');
  });
  afterAll(async () => {
    client.close();
    await shutdown(b.server);
  });

  const answers = async (n: number) => {
    const names = new Set<string>();
    for (let i = 0; i < n; i++) names.add((await client.call('balance', { workspaceId: 'x' }, 2000)).workspaceId);
    return names;
  };

  it('takes turns between them, and keeps calling the one left when the other stops', async () => {
    // Both connect (lazily, on the first calls): within a few seconds, calls reach both.
    const seen = new Set<string>();
    for (const until = Date.now() + 5000; seen.size < 2 && Date.now() < until;)
      for (const name of await answers(4)) seen.add(name);
    expect(seen).toEqual(new Set(['a', 'b']));
    await shutdown(a.server);
    await new Promise((r) => setTimeout(r, 500));
    expect(await answers(10)).toEqual(new Set(['b']));
  });
});
