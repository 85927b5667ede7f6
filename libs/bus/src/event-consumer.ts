import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { JsMsg } from '@nats-io/jetstream';
import { asApiError } from '@tidemark/errors';
import { runWithIncomingContext, type Logger } from '@tidemark/telemetry';
import type { z } from 'zod';
import type { Bus, RunningConsumer } from './bus.js';
import { headerCarrier, newHeaders } from './headers.js';
import { handInTurn } from './in-turn.js';
import { EVENT_KINDS, STREAMS, type EventKind } from './subjects.js';

export interface EventConsumerOptions {
  /** Durable name: every process with the same name shares one position in the stream. */
  durable: string;
  ackWaitMs?: number;
  maxDeliver?: number;
  concurrency?: number;
}

/** One event as a consumer sees it: its kind and workspace (from the subject) and its body. */
export interface ReceivedEvent {
  kind: EventKind;
  workspaceId: string;
  data: unknown;
  /** Unique per stored message (stream sequence and time): a redelivery carries the same key. */
  key: string;
  /** When the event was stored. */
  at: Date;
  deliveryCount: number;
}

const dec = new TextDecoder();
const ns = (n: number) => n * 1_000_000;
const backoffMs = (deliveryCount: number) => Math.min(60_000, 1000 * 2 ** Math.max(0, deliveryCount - 1));

/**
 * A durable pull consumer of the EVENTS stream (`events.<workspace>.<kind>`), with the same rules
 * as work consumers: explicit ack, a retryable failure naks with backoff until `maxDeliver`, a
 * malformed or unknown event is dropped. Events already in the stream when the durable is first
 * made are read too (the stream keeps a week), so an outage loses nothing. Stop it before
 * closing the bus.
 */
export const consumeEvents = async (
  bus: Bus,
  opts: EventConsumerOptions,
  handler: (event: ReceivedEvent) => Promise<void>,
  logger: Logger,
): Promise<RunningConsumer> => {
  const ackWaitMs = opts.ackWaitMs ?? 30_000;
  const maxDeliver = opts.maxDeliver ?? 10;
  const concurrency = opts.concurrency ?? 8;
  const stream = bus.streamName(STREAMS.events.name);
  const prefix = bus.subject('events.');
  const jsm = await jetstreamManager(bus.nc);
  const config = {
    durable_name: opts.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: bus.subject(STREAMS.events.subjects),
    ack_wait: ns(ackWaitMs),
    max_deliver: maxDeliver,
    max_ack_pending: Math.max(concurrency * 4, 64),
  };
  try {
    await jsm.consumers.info(stream, opts.durable);
    await jsm.consumers.update(stream, opts.durable, {
      ack_wait: config.ack_wait,
      max_deliver: config.max_deliver,
      max_ack_pending: config.max_ack_pending,
    });
  } catch {
    await jsm.consumers.add(stream, config);
  }
  const consumer = await jetstream(bus.nc).consumers.get(stream, opts.durable);
  const log = logger.child({ consumer: opts.durable });

  const handle = async (m: JsMsg) => {
    // events.<workspace>.<kind>: the kind may itself hold dots (crawl.page).
    const rest = m.subject.startsWith(prefix) ? m.subject.slice(prefix.length) : '';
    const dot = rest.indexOf('.');
    const workspaceId = rest.slice(0, dot);
    const kind = rest.slice(dot + 1) as EventKind;
    const schema = EVENT_KINDS[kind] as z.ZodType | undefined;
    let data: unknown;
    try {
      if (dot <= 0 || !schema) throw new Error(`unknown event ${m.subject}`);
      data = schema.parse(JSON.parse(dec.decode(m.data)));
    } catch (err) {
      log.error({ err, seq: m.seq, subject: m.subject }, 'malformed event dropped');
      m.term(); // no reason: nats-server 2.9 reads `+TERM <reason>` as no ack (see bus.ts)
      return;
    }
    const deliveryCount = m.info.deliveryCount;
    try {
      await runWithIncomingContext(headerCarrier(m.headers ?? newHeaders()), () =>
        handler({
          kind,
          workspaceId,
          data,
          key: `${m.seq}@${m.timestampNanos}`,
          at: m.time,
          deliveryCount,
        }),
      );
      m.ack();
    } catch (err) {
      const apiError = asApiError(err);
      if (!apiError.retryable || deliveryCount >= maxDeliver) {
        log.error({ err, deliveryCount, subject: m.subject }, 'event handling failed for good');
        m.term(); // no reason (see bus.ts)
      } else {
        log.warn({ err, deliveryCount, subject: m.subject }, 'event handling failed; will retry');
        m.nak(backoffMs(deliveryCount));
      }
    }
  };

  // Pulled only as turns come free and kept alive while handled: a live consumer's event is not handed out twice.
  const turns = await handInTurn(consumer, concurrency, ackWaitMs, handle, log);
  return { stop: () => turns.stop() };
};
