import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { ApiError } from '@tidemark/errors';
import { createLogger, currentRequestId, withRequestId } from '@tidemark/telemetry';
import { TEST_INFRA, uniquePrefix } from '@tidemark/testkit';
import { z } from 'zod';
import { Bus, consumeEvents, StalledWorkWatchdog } from '../src/index.js';

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
    // The ack goes out as the handler returns; the server may count it after answering a read.
    expect(await settledInfo(bus, 'ctx-test')).toMatchObject({ ackPending: 0, pending: 0 });
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

  /** A bus of its own: a work-queue stream takes one consumer per subject. */
  const ownBus = () => Bus.connect({ url: TEST_INFRA.natsUrl, prefix: uniquePrefix(), name: 'bus-test', logger });
  /** The consumer's counters once an ack or terminate sent just before has reached the server. */
  const settledInfo = async (b: Bus, durable: string) => {
    const until = Date.now() + 5000;
    let info = await b.consumerInfo(durable);
    while (info.ackPending > 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      info = await b.consumerInfo(durable);
    }
    return info;
  };
  const closeOwn = async (b: Bus) => {
    await b.destroyStreams();
    await b.close();
  };

  it('hands a message it gives up on to the give-up hook once, after its last delivery, with the error', async () => {
    const bus = await ownBus();
    const deliveries: number[] = [];
    const givenUp: { body: unknown; deliveryCount: number; code: string }[] = [];
    const consumer = await bus.consumeWork(
      'work.billing.welcome',
      { durable: 'give-up-test', ackWaitMs: 2000, maxDeliver: 3 },
      async (_msg, ctx) => {
        deliveries.push(ctx.deliveryCount);
        throw new ApiError('internal', 'the write fails every time');
      },
      async (msg, ctx) => {
        givenUp.push({ body: msg, deliveryCount: ctx.deliveryCount, code: ctx.error.code });
      },
    );
    await bus.publishWork('work.billing.welcome', { workspaceId: 'ws_doomed' });
    const until = Date.now() + 20_000;
    while (givenUp.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500)); // nothing more comes
    await consumer.stop();
    expect(deliveries).toEqual([1, 2, 3]);
    expect(givenUp).toEqual([{ body: { workspaceId: 'ws_doomed' }, deliveryCount: 3, code: 'internal' }]);
    expect(await settledInfo(bus, 'give-up-test')).toMatchObject({ ackPending: 0, pending: 0 });
    await closeOwn(bus);
  });

  it('gives up at once on a failure that will not pass, and terminates the message even when settling fails', async () => {
    const bus = await ownBus();
    const deliveries: number[] = [];
    let hooked = 0;
    const consumer = await bus.consumeWork(
      'work.billing.welcome',
      { durable: 'give-up-now-test', ackWaitMs: 2000, maxDeliver: 5 },
      async (_msg, ctx) => {
        deliveries.push(ctx.deliveryCount);
        throw new ApiError('validation', 'never valid');
      },
      async () => {
        hooked += 1;
        throw new Error('the settling write fails too');
      },
    );
    await bus.publishWork('work.billing.welcome', { workspaceId: 'ws_invalid' });
    const until = Date.now() + 10_000;
    while (hooked === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1500));
    await consumer.stop();
    expect({ deliveries, hooked }).toEqual({ deliveries: [1], hooked: 1 });
    expect(await settledInfo(bus, 'give-up-now-test')).toMatchObject({ ackPending: 0, pending: 0 });
    await closeOwn(bus);
  });

  /** Waits for every id to be handled, and a while more for a copy handed out again; then stops. */
  const expectHandledOnceEach = async (
    ids: string[],
    handled: { id: string; deliveryCount: number }[],
    consumer: { stop(): Promise<void> },
  ) => {
    const until = Date.now() + 20_000;
    while (handled.length < ids.length && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 2500));
    await consumer.stop();
    expect(handled.map((h) => h.id).sort()).toEqual([...ids].sort());
    expect(handled.every((h) => h.deliveryCount === 1)).toBe(true);
  };

  it('keeps messages waiting their turn behind slow ones alive: each is handled once, on its first delivery', async () => {
    const bus = await ownBus();
    const handled: { id: string; deliveryCount: number }[] = [];
    // Four at a time, each slower than the ack wait: the last four wait two ack waits for a turn.
    // The ack wait is 2 s, so that a keep-alive tick (every half second) that a loaded CI
    // machine holds back by up to a second and a half still arrives in time; at 1 s a clean-clone
    // run saw two messages handed out again.
    const consumer = await bus.consumeWork(
      'work.billing.welcome',
      { durable: 'in-turn-test', ackWaitMs: 2000, concurrency: 4 },
      async (msg, ctx) => {
        await new Promise((r) => setTimeout(r, 2400));
        handled.push({ id: msg.workspaceId, deliveryCount: ctx.deliveryCount });
      },
    );
    const ids = Array.from({ length: 12 }, (_, i) => `ws_${i}`);
    for (const id of ids) await bus.publishWork('work.billing.welcome', { workspaceId: id });
    await expectHandledOnceEach(ids, handled, consumer);
    expect(await settledInfo(bus, 'in-turn-test')).toMatchObject({ ackPending: 0, pending: 0, delivered: ids.length });
    await closeOwn(bus);
  }, 30_000);

  it('keeps events waiting their turn alive too: a slow handler does not get each event twice', async () => {
    const bus = await ownBus();
    const handled: { id: string; deliveryCount: number }[] = [];
    const consumer = await consumeEvents(
      bus,
      { durable: 'in-turn-events-test', ackWaitMs: 2000, concurrency: 4 },
      async (event) => {
        await new Promise((r) => setTimeout(r, 2400));
        handled.push({ id: event.workspaceId, deliveryCount: event.deliveryCount });
      },
      logger,
    );
    const ids = Array.from({ length: 12 }, (_, i) => `ws_e${i}`);
    for (const id of ids)
      await bus.publishEvent(id, 'workspace.created', {
        workspaceId: id,
        name: id,
        createdAt: new Date().toISOString(),
      });
    await expectHandledOnceEach(ids, handled, consumer);
    await closeOwn(bus);
  }, 30_000);

  it('leaves what it has no turn for with the server: once it stops, another worker takes it at once, not after the ack wait', async () => {
    const bus = await ownBus();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const first: string[] = [];
    const a = await bus.consumeWork(
      'work.billing.welcome',
      { durable: 'in-turn-stop-test', ackWaitMs: 60_000, concurrency: 1 },
      async (msg) => {
        first.push(msg.workspaceId);
        await held;
      },
    );
    for (const id of ['ws_1', 'ws_2', 'ws_3']) await bus.publishWork('work.billing.welcome', { workspaceId: id });
    let until = Date.now() + 5000;
    while (first.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300)); // time for the other two to reach a worker that pulls ahead
    const stopped = a.stop();
    release();
    await stopped;
    const second: string[] = [];
    const b = await bus.consumeWork(
      'work.billing.welcome',
      { durable: 'in-turn-stop-test', ackWaitMs: 60_000, concurrency: 1 },
      async (msg) => {
        second.push(msg.workspaceId);
      },
    );
    until = Date.now() + 10_000;
    while (second.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await b.stop();
    expect({ first, second }).toEqual({ first: ['ws_1'], second: ['ws_2', 'ws_3'] });
    await closeOwn(bus);
  }, 30_000);

  it('fails stalled work only at a look whose previous look found no message waiting either', async () => {
    const bus = await ownBus();
    const lane = 'watchdog-lane-test';
    const taken: string[] = [];
    const consume = () =>
      bus.consumeWork('work.billing.welcome', { durable: lane, ackWaitMs: 2000 }, async (msg) => {
        taken.push(msg.workspaceId);
      });
    await (await consume()).stop(); // the lane exists and nobody takes from it
    let looked = 0;
    const watchdog = new StalledWorkWatchdog(
      bus,
      [lane],
      async () => {
        looked += 1;
        return 0;
      },
      60_000,
      logger,
    );
    const failerCallsAfter = async () => {
      await watchdog.sweep();
      return looked;
    };
    // A worker that has just started has not seen the lanes before: it only looks.
    expect(await failerCallsAfter()).toBe(0);
    expect(await failerCallsAfter()).toBe(1);
    // A message waits: no job is failed while it does, nor at the first look after it was taken
    // (the job it moves may not have moved yet), only at the next.
    await bus.publishWork('work.billing.welcome', { workspaceId: 'ws_queued' });
    expect(await failerCallsAfter()).toBe(1);
    const consumer = await consume();
    const until = Date.now() + 5000;
    while (taken.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await consumer.stop();
    expect(taken).toEqual(['ws_queued']);
    expect(await failerCallsAfter()).toBe(1);
    expect(await failerCallsAfter()).toBe(2);
    await closeOwn(bus);
  });
});
