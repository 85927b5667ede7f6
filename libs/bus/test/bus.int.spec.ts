import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { ApiError } from '@tidemark/errors';
import { createLogger, currentRequestId, withRequestId } from '@tidemark/telemetry';
import { TEST_INFRA, uniquePrefix } from '@tidemark/testkit';
import { z } from 'zod';
import { Bus } from '../src/index.js';

describe('Bus', () => {
  let bus: Bus;
  const logger = createLogger('test', 'silent');

  beforeAll(async () => {
    bus = await Bus.connect({ url: TEST_INFRA.natsUrl, prefix: uniquePrefix(), name: 'bus-test', logger });
  });
  afterAll(async () => {
    await bus.destroyStreams();
    await bus.close();
  });

  it('delivers work with the request id and trace context of the publisher, then acks it', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const got: { body: unknown; requestId?: string; traceId?: string }[] = [];
    const consumer = await bus.consumeWork(
      'work.billing.welcome',
      { durable: 'ctx-test', ackWaitMs: 2000 },
      async (msg) => {
        got.push({
          body: msg,
          requestId: currentRequestId(),
          traceId: trace.getSpanContext(context.active())?.traceId,
        });
      },
    );
    const span = trace.wrapSpanContext({ traceId, spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED });
    await context.with(trace.setSpan(context.active(), span), () =>
      withRequestId('req-bus-1', () => bus.publishWork('work.billing.welcome', { workspaceId: 'ws_ctx' })),
    );
    const until = Date.now() + 5000;
    while (got.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await consumer.stop();
    expect(got).toEqual([{ body: { workspaceId: 'ws_ctx' }, requestId: 'req-bus-1', traceId }]);
    const info = await bus.consumerInfo('ctx-test');
    expect(info).toMatchObject({ ackPending: 0, pending: 0 });
  });

  it('refuses to publish a message of the wrong shape', async () => {
    await expect(bus.publishWork('work.billing.welcome', { workspaceId: '' })).rejects.toThrow();
  });

  it('answers request/reply, rebuilding errors as ApiError', async () => {
    bus.serve('test.echo', 'echo', z.object({ n: z.number() }), async (req) => {
      if (req.n < 0) throw new ApiError('conflict', 'negative');
      return { doubled: req.n * 2 };
    });
    await expect(bus.request('test.echo', { n: 21 })).resolves.toEqual({ doubled: 42 });
    await expect(bus.request('test.echo', { n: -1 })).rejects.toMatchObject({ code: 'conflict', message: 'negative' });
    await expect(bus.request('test.echo', { n: 'x' })).rejects.toMatchObject({ code: 'validation' });
    await expect(bus.request('test.nobody', {}, 300)).rejects.toMatchObject({ code: 'unavailable' });
  });
});
