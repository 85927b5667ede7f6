import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { exportV1 } from '@tidemark/contracts';
import { ApiError, NotFoundError } from '@tidemark/errors';
import { createLogger, currentRequestId, withRequestId } from '@tidemark/telemetry';
import { callStream, listen, serverStream, shutdown, unaryService, type ServerStream } from '../src/index.js';

const CHUNK = 64 * 1024;
const chunk = (i: number) => Buffer.alloc(CHUNK, i % 251);

/** Waits until `value()` has stayed the same for `quietMs` (the producer stalled). */
const settle = async (value: () => number, quietMs = 300) => {
  let last = -1;
  while (value() !== last) {
    last = value();
    await new Promise((r) => setTimeout(r, quietMs));
  }
  return last;
};

describe('gRPC server streams', () => {
  const server = new grpc.Server();
  let client: exportV1.ExportServiceClient;
  const produced = new Map<string, number>();
  const closed = new Set<string>();
  const seenRequestIds: (string | undefined)[] = [];

  beforeAll(async () => {
    server.addService(exportV1.ExportServiceService, {
      ...unaryService<Pick<exportV1.ExportServiceServer, 'catalog'>>(
        { catalog: async () => ({ datasets: [] }) },
        createLogger('test', 'silent'),
      ),
      // project_id names the behaviour; run_id carries how many chunks to send.
      stream: serverStream<exportV1.StreamRequest, exportV1.StreamResponse>(
        async function* (req, signal) {
          seenRequestIds.push(currentRequestId());
          if (req.projectId === 'missing') throw new NotFoundError('run');
          try {
            for (let i = 0; i < Number(req.runId); i++) {
              if (signal.aborted) return;
              if (req.projectId === 'fail-midway' && i === 3) throw new Error('disk on fire');
              produced.set(req.projectId, i + 1);
              yield { head: i === 0 ? { contentType: 'x', filename: 'f', runId: 'r' } : undefined, data: chunk(i) };
            }
          } finally {
            closed.add(req.projectId);
          }
        },
        createLogger('test', 'silent'),
        'stream',
      ),
    });
    const port = await listen(server, '127.0.0.1:0');
    client = new exportV1.ExportServiceClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client.close();
    await shutdown(server);
  });

  const open = (behaviour: string, chunks: number): ServerStream<exportV1.StreamResponse> =>
    callStream(
      client,
      client.stream,
      { ...exportV1.StreamRequest.fromPartial({ projectId: behaviour, runId: String(chunks) }) },
      'x',
    );

  it('delivers every message in order, the request id carried', async () => {
    const got: number[] = [];
    await withRequestId('req-stream-1', async () => {
      for await (const m of open('all', 20)) got.push(m.data[0]!);
    });
    expect(got).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(seenRequestIds.at(-1)).toBe('req-stream-1');
  });

  it('rebuilds an ApiError thrown before the first message', async () => {
    const err = await (async () => {
      for await (const _ of open('missing', 5)) return 'a message came';
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'not_found', message: 'run not found' });
  });

  it('gives the messages sent before a failure, then the failure (internal, not leaked)', async () => {
    const got: number[] = [];
    const err = await (async () => {
      for await (const m of open('fail-midway', 10)) got.push(m.data[0]!);
    })().catch((e: unknown) => e as ApiError);
    expect(got).toEqual([0, 1, 2]);
    expect(err).toMatchObject({ code: 'internal' });
    expect((err as ApiError).message).not.toContain('fire');
  });

  it('produces only as fast as the reader reads', async () => {
    // 2,000 chunks of 64 KiB would be 125 MiB; the reader takes one and stops.
    const stream = open('slow-reader', 2000);
    const it = stream[Symbol.asyncIterator]();
    await it.next();
    const ahead = await settle(() => produced.get('slow-reader') ?? 0);
    // What HTTP/2's windows and grpc-js's buffers hold, nowhere near the whole stream.
    expect(ahead * CHUNK).toBeLessThan(16 * 1024 * 1024);
    await it.next();
    await it.return?.(undefined);
  });

  it('aborts the handler when the reader leaves early, and closes it', async () => {
    for await (const m of open('leaver', 2000)) if (m.data[0] === 2) break;
    await settle(() => produced.get('leaver') ?? 0);
    expect(closed.has('leaver')).toBe(true);
    expect(produced.get('leaver')!).toBeLessThan(2000);
  });

  it('answers unavailable when nobody listens', async () => {
    const dead = new exportV1.ExportServiceClient('127.0.0.1:1', grpc.credentials.createInsecure());
    const err = await (async () => {
      for await (const _ of callStream(dead, dead.stream, exportV1.StreamRequest.fromPartial({}), 'export'))
        return 'a message came';
    })().catch((e: unknown) => e as ApiError);
    dead.close();
    expect(err).toMatchObject({ code: 'unavailable', message: 'export is unavailable' });
  });
});
