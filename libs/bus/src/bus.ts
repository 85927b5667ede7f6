import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import type { JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { connect, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { ApiError, asApiError, fromWire, UnavailableError, ValidationError } from '@tidemark/errors';
import { injectContext, runWithIncomingContext, type Logger } from '@tidemark/telemetry';
import type { z } from 'zod';
import { ERROR_HEADER, headerCarrier, newHeaders } from './headers.js';
import { handInTurn } from './in-turn.js';
import {
  EVENT_KINDS,
  eventSubject,
  STREAMS,
  WORK_SUBJECTS,
  type EventData,
  type EventKind,
  type WorkMessage,
  type WorkSubject,
} from './subjects.js';

export interface BusOptions {
  url: string;
  /** Namespaces subjects and streams (tests give each file its own); '' in production. */
  prefix?: string;
  /** Connection name shown by the server's monitoring. */
  name: string;
  logger: Logger;
}

export interface WorkConsumerOptions {
  /** Durable name: every worker with the same name shares one queue of work. */
  durable: string;
  /** How long a worker may hold a message without acking before it goes to another. */
  ackWaitMs?: number;
  /** Deliveries before a message is given up on (then logged and terminated). */
  maxDeliver?: number;
  /** Messages handled at once by this process. */
  concurrency?: number;
}

export interface WorkContext {
  /** 1 on the first delivery, more on redeliveries. */
  deliveryCount: number;
  subject: string;
}

export type WorkHandler<S extends WorkSubject> = (msg: WorkMessage<S>, ctx: WorkContext) => Promise<void>;

/**
 * Called once when the bus gives a message up (a failure that will not pass, or its last
 * delivery failed), before it is terminated: the place to settle what the work was for (its row,
 * its job) with the reason, so nothing waits for it for ever. If this throws too, the message is
 * terminated all the same (the services' watchdogs end what is left).
 */
export type GiveUpHandler<S extends WorkSubject> = (
  msg: WorkMessage<S>,
  ctx: WorkContext & { error: ApiError; cause: unknown },
) => Promise<void>;

export interface RunningConsumer {
  stop(): Promise<void>;
}

/** One work lane (a durable consumer of the WORK stream) as JetStream counts it. */
export interface WorkLane {
  durable: string;
  /** The work subject it takes, without the prefix (e.g. work.scrape.page). */
  subject: string;
  /** Messages waiting in the stream for this consumer. */
  pending: number;
  /** Handed to a worker and not acked yet. */
  inFlight: number;
  redelivered: number;
  /** Pull requests of idle workers waiting for a message. */
  waitingWorkers: number;
}

/** A process on the bus, as it answers `fleet.status`: what it is and the work it is doing. */
export interface BusMember {
  /** The service (the connection name given to Bus.connect). */
  service: string;
  /** Unique per connection: host, process id and a random tag. */
  instance: string;
  host: string;
  pid: number;
  startedAt: string;
  consumers: { durable: string; subject: string; inFlight: number; concurrency: number }[];
}

const FLEET_STATUS_SUBJECT = 'fleet.status';

const enc = new TextEncoder();
const dec = new TextDecoder();
const ms = (n: number) => n * 1_000_000; // JetStream durations are nanoseconds

/** Redelivery backoff: 1 s, 2 s, 4 s ... capped at a minute. */
const backoffMs = (deliveryCount: number) => Math.min(60_000, 1000 * 2 ** Math.max(0, deliveryCount - 1));

/**
 * Typed NATS for the fleet: durable work on JetStream with explicit ack and bounded redelivery,
 * events on JetStream, and request/reply on core NATS. Trace context and the request id travel
 * in headers both ways.
 */
export class Bus {
  private readonly consumers = new Set<RunningConsumer>();
  private readonly working = new Map<
    RunningConsumer,
    { durable: string; subject: string; concurrency: number; inFlight: () => number }
  >();
  private readonly subscriptions = new Set<Subscription>();
  private readonly instance = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly startedAt = new Date().toISOString();
  private serviceName = '';

  private constructor(
    readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {}

  static async connect(opts: BusOptions): Promise<Bus> {
    let nc: NatsConnection;
    try {
      // noAsyncTraces: the client otherwise builds an Error (a stack capture) for every request,
      // and every durable publish is one (its ack); a crawl paid that twice a page.
      nc = await connect({ servers: opts.url, name: opts.name, maxReconnectAttempts: -1, noAsyncTraces: true });
    } catch (err) {
      throw new UnavailableError(`NATS at ${opts.url} is unreachable`, err);
    }
    const jsm = await jetstreamManager(nc);
    const bus = new Bus(nc, jetstream(nc), jsm, opts.prefix ?? '', opts.logger.child({ module: 'bus' }));
    bus.serviceName = opts.name;
    await bus.ensureStreams();
    bus.answerFleetStatus();
    return bus;
  }

  subject(s: string): string {
    return this.prefix ? `${this.prefix}.${s}` : s;
  }

  streamName(name: string): string {
    return this.prefix ? `${this.prefix}_${name}` : name;
  }

  /** Creates the WORK and EVENTS streams when missing; safe to call from every service. */
  async ensureStreams(): Promise<void> {
    const wanted = [
      { ...STREAMS.work, retention: RetentionPolicy.Workqueue, max_age: 0 },
      // Events are kept a week: enough for delivery to catch up after an outage.
      { ...STREAMS.events, retention: RetentionPolicy.Limits, max_age: ms(7 * 24 * 3600 * 1000) },
    ];
    for (const s of wanted) {
      const name = this.streamName(s.name);
      try {
        await this.jsm.streams.info(name);
      } catch {
        try {
          await this.jsm.streams.add({
            name,
            subjects: [this.subject(s.subjects)],
            retention: s.retention,
            storage: StorageType.File,
            max_age: s.max_age,
            duplicate_window: ms(120_000),
          });
        } catch (err) {
          // Another service created it between our look and our add.
          await this.jsm.streams.info(name).catch(() => Promise.reject(err));
        }
      }
    }
  }

  /**
   * Publishes one unit of work durably. `msgId` de-duplicates within two minutes, so a
   * publisher that retries after a lost ack does not enqueue the work twice.
   */
  async publishWork<S extends WorkSubject>(subject: S, message: WorkMessage<S>, opts: { msgId?: string } = {}) {
    const body = WORK_SUBJECTS[subject].parse(message);
    const headers = newHeaders();
    injectContext(headerCarrier(headers));
    await this.js.publish(this.subject(subject), enc.encode(JSON.stringify(body)), {
      headers,
      ...(opts.msgId ? { msgID: opts.msgId } : {}),
    });
  }

  /** Publishes an event of the spec on `events.<workspace>.<kind>`. */
  async publishEvent<K extends EventKind>(
    workspaceId: string,
    kind: K,
    data: EventData<K>,
    opts: { msgId?: string } = {},
  ) {
    const body = (EVENT_KINDS[kind] as z.ZodType).parse(data);
    const headers = newHeaders();
    injectContext(headerCarrier(headers));
    await this.js.publish(this.subject(eventSubject(workspaceId, kind)), enc.encode(JSON.stringify(body)), {
      headers,
      ...(opts.msgId ? { msgID: opts.msgId } : {}),
    });
  }

  /**
   * Runs `handler` for every message on a work subject. Success acks; a retryable failure naks
   * with backoff until `maxDeliver`; a non-retryable one (or a malformed message) terminates it.
   * A worker that dies before acking loses nothing: the message returns after `ackWaitMs`.
   */
  async consumeWork<S extends WorkSubject>(
    subject: S,
    opts: WorkConsumerOptions,
    handler: WorkHandler<S>,
    giveUp?: GiveUpHandler<S>,
  ): Promise<RunningConsumer> {
    const ackWaitMs = opts.ackWaitMs ?? 30_000;
    const maxDeliver = opts.maxDeliver ?? 5;
    const concurrency = opts.concurrency ?? 4;
    const stream = this.streamName(STREAMS.work.name);
    const config = {
      durable_name: opts.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: this.subject(subject),
      ack_wait: ms(ackWaitMs),
      max_deliver: maxDeliver,
      max_ack_pending: Math.max(concurrency * 4, 64),
    };
    try {
      await this.jsm.consumers.info(stream, opts.durable);
      await this.jsm.consumers.update(stream, opts.durable, {
        ack_wait: config.ack_wait,
        max_deliver: config.max_deliver,
        max_ack_pending: config.max_ack_pending,
      });
    } catch {
      await this.jsm.consumers.add(stream, config);
    }
    const consumer = await this.js.consumers.get(stream, opts.durable);
    const log = this.logger.child({ consumer: opts.durable, subject });
    const schema = WORK_SUBJECTS[subject];

    const handle = async (m: JsMsg) => {
      const deliveryCount = m.info.deliveryCount;
      let body: WorkMessage<S>;
      try {
        body = schema.parse(JSON.parse(dec.decode(m.data))) as WorkMessage<S>;
      } catch (err) {
        log.error({ err, seq: m.seq }, 'malformed work message dropped');
        m.term();
        return;
      }
      try {
        await runWithIncomingContext(headerCarrier(m.headers ?? newHeaders()), () =>
          handler(body, { deliveryCount, subject }),
        );
        m.ack();
      } catch (err) {
        const apiError = asApiError(err);
        if (!apiError.retryable || deliveryCount >= maxDeliver) {
          log.error({ err, deliveryCount }, 'work failed for good');
          if (giveUp) {
            try {
              await runWithIncomingContext(headerCarrier(m.headers ?? newHeaders()), () =>
                giveUp(body, { deliveryCount, subject, error: apiError, cause: err }),
              );
            } catch (settleErr) {
              log.error({ err: settleErr, deliveryCount }, 'work given up, and settling it failed too');
            }
          }
          // No reason on the terminate: nats-server 2.9 reads `+TERM <reason>` as no ack at all,
          // and the message stayed pending (the reason is in the log line above).
          m.term();
        } else {
          log.warn({ err, deliveryCount }, 'work failed; will retry');
          m.nak(backoffMs(deliveryCount));
        }
      }
    };

    // Pulled only as turns come free and kept alive while handled: a live worker's message is not handed out twice.
    const turns = await handInTurn(consumer, concurrency, ackWaitMs, handle, log);
    const running: RunningConsumer = {
      stop: async () => {
        this.consumers.delete(running);
        this.working.delete(running);
        await turns.stop();
      },
    };
    this.consumers.add(running);
    this.working.set(running, { durable: opts.durable, subject, concurrency, inFlight: turns.inFlight });
    return running;
  }

  /**
   * Every lane of the WORK stream (one durable consumer per kind of work) with JetStream's
   * counters: what waits, what is in flight, what came back.
   */
  async workLanes(): Promise<WorkLane[]> {
    const lanes: WorkLane[] = [];
    const strip = this.prefix ? `${this.prefix}.` : '';
    for await (const info of await this.jsm.consumers.list(this.streamName(STREAMS.work.name))) {
      const filter = info.config.filter_subject ?? '';
      lanes.push({
        durable: info.name,
        subject: filter.startsWith(strip) ? filter.slice(strip.length) : filter,
        pending: info.num_pending,
        inFlight: info.num_ack_pending,
        redelivered: info.num_redelivered,
        waitingWorkers: info.num_waiting,
      });
    }
    return lanes.sort((a, b) => a.durable.localeCompare(b.durable));
  }

  /** Answers `fleet.status` for this process: every Bus does, so a scatter-gather finds them all. */
  private answerFleetStatus(): void {
    const sub = this.nc.subscribe(this.subject(FLEET_STATUS_SUBJECT), {
      callback: (err, msg) => {
        if (err) return;
        msg.respond(enc.encode(JSON.stringify(this.member())));
      },
    });
    this.subscriptions.add(sub);
  }

  private member(): BusMember {
    return {
      service: this.serviceName,
      instance: this.instance,
      host: hostname(),
      pid: process.pid,
      startedAt: this.startedAt,
      consumers: [...this.working.values()].map((c) => ({
        durable: c.durable,
        subject: c.subject,
        inFlight: c.inFlight(),
        concurrency: c.concurrency,
      })),
    };
  }

  /** Every process on the bus (under this prefix) that answers within `waitMs`. */
  async fleetStatus(waitMs = 300): Promise<BusMember[]> {
    const members: BusMember[] = [];
    try {
      const replies = await this.nc.requestMany(this.subject(FLEET_STATUS_SUBJECT), enc.encode(''), {
        maxWait: waitMs,
        strategy: 'timer',
      });
      for await (const reply of replies) {
        try {
          members.push(JSON.parse(dec.decode(reply.data)) as BusMember);
        } catch {
          // a garbled answer is one member fewer, not a failed view
        }
      }
    } catch (err) {
      this.logger.warn({ err }, 'fleet status asked, no answer');
    }
    return members.sort((a, b) => a.service.localeCompare(b.service) || a.instance.localeCompare(b.instance));
  }

  /**
   * Drops every message waiting on a work subject: an operator's step after an incident (work
   * that must not run any more), and how tests lose work on purpose. The jobs that work was for
   * are ended by the services' watchdogs.
   */
  async purgeWork(subject: WorkSubject): Promise<number> {
    const res = await this.jsm.streams.purge(this.streamName(STREAMS.work.name), { filter: this.subject(subject) });
    return res.purged;
  }

  /** Counters of a work consumer: messages delivered (redeliveries included), unacked, waiting. */
  async consumerInfo(
    durable: string,
  ): Promise<{ delivered: number; ackPending: number; pending: number; redelivered: number }> {
    const info = await this.jsm.consumers.info(this.streamName(STREAMS.work.name), durable);
    return {
      delivered: info.delivered.consumer_seq,
      ackPending: info.num_ack_pending,
      pending: info.num_pending,
      redelivered: info.num_redelivered,
    };
  }

  /** Asks a question on core NATS and waits for the answer (or a rebuilt ApiError). */
  async request<Res>(subject: string, data: unknown, timeoutMs = 5_000): Promise<Res> {
    const headers = newHeaders();
    injectContext(headerCarrier(headers));
    let reply: Msg;
    try {
      reply = await this.nc.request(this.subject(subject), enc.encode(JSON.stringify(data)), {
        timeout: timeoutMs,
        headers,
      });
    } catch (err) {
      throw new UnavailableError(`no answer on ${subject}`, err);
    }
    if (reply.headers?.has(ERROR_HEADER)) throw fromWire(JSON.parse(reply.headers.get(ERROR_HEADER)));
    return JSON.parse(dec.decode(reply.data)) as Res;
  }

  /** Answers questions on a subject; instances sharing `queue` split the load. */
  serve<Req, Res>(subject: string, queue: string, schema: z.ZodType<Req>, handler: (req: Req) => Promise<Res>): void {
    const sub = this.nc.subscribe(this.subject(subject), {
      queue,
      callback: (err, msg) => {
        if (err) return;
        void runWithIncomingContext(headerCarrier(msg.headers ?? newHeaders()), async () => {
          try {
            const parsed = schema.safeParse(JSON.parse(dec.decode(msg.data)));
            if (!parsed.success)
              throw new ValidationError(`bad request on ${subject}`, { issues: parsed.error.issues });
            msg.respond(enc.encode(JSON.stringify(await handler(parsed.data))));
          } catch (e) {
            const apiError = e instanceof SyntaxError ? new ValidationError('malformed JSON') : asApiError(e);
            const h = newHeaders();
            h.set(ERROR_HEADER, JSON.stringify(apiError.toWire()));
            msg.respond(enc.encode(''), { headers: h });
          }
        });
      },
    });
    this.subscriptions.add(sub);
  }

  /**
   * Fire-and-forget news for every instance listening (core NATS, not durable): cache
   * invalidations and the like, where a lost message only means waiting for a TTL.
   */
  broadcast(subject: string, data: unknown): void {
    const headers = newHeaders();
    injectContext(headerCarrier(headers));
    this.nc.publish(this.subject(subject), enc.encode(JSON.stringify(data)), { headers });
  }

  /** Listens to broadcasts; every instance gets every message (no queue group). */
  onBroadcast<T>(subject: string, schema: z.ZodType<T>, handler: (data: T) => void): void {
    const sub = this.nc.subscribe(this.subject(subject), {
      callback: (err, msg) => {
        if (err) return;
        try {
          handler(schema.parse(JSON.parse(dec.decode(msg.data))));
        } catch (e) {
          this.logger.warn({ err: e, subject }, 'malformed broadcast ignored');
        }
      },
    });
    this.subscriptions.add(sub);
  }

  /** The first broadcast on a subject within `timeoutMs`, or null. */
  async waitForBroadcast<T>(subject: string, schema: z.ZodType<T>, timeoutMs: number): Promise<T | null> {
    const sub = this.nc.subscribe(this.subject(subject), { max: 1, timeout: timeoutMs });
    try {
      for await (const msg of sub) return schema.parse(JSON.parse(dec.decode(msg.data)));
    } catch {
      // timed out (or a malformed message): the caller falls back to reading state
    }
    return null;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.consumers].map((c) => c.stop()));
    for (const s of this.subscriptions) s.unsubscribe();
    await this.nc.drain().catch(() => this.nc.close());
  }

  /** Deletes this prefix's streams; for tests that own a prefix. */
  async destroyStreams(): Promise<void> {
    if (!this.prefix) throw new ApiError('forbidden', 'refusing to delete unprefixed streams');
    for (const s of Object.values(STREAMS)) await this.jsm.streams.delete(this.streamName(s.name)).catch(() => false);
  }
}
