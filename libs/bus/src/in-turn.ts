import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import type { Logger } from '@tidemark/telemetry';

export interface InTurn {
  /** Messages being handled now. */
  inFlight(): number;
  /** Asks for no more messages and waits for those in hand. */
  stop(): Promise<void>;
}

/** How long one pull waits for messages before the next is sent. */
const PULL_EXPIRES_MS = 30_000;
/** After a pull fails (the consumer or the connection away), the next waits this long. */
const PULL_RETRY_MS = 1_000;

/**
 * Hands a consumer's messages to `handle` (which acks, naks or terminates each), at most
 * `concurrency` at once, asking the server for only as many as there are free turns, and keeps
 * each alive (JetStream's `working`) until it is handled. Nothing is pulled that must wait here
 * for a turn: with `consume()` the client pulled ahead of the handlers, and messages waited in it
 * unseen behind slow ones (pages of one host queued for its politeness slots, a service being
 * waited out) past the ack wait; JetStream handed them out again while the first copy still
 * waited, and both were handled (a batch page fetched twice, a webhook sent twice). A worker that
 * dies stops the keep-alive with it, so its messages still come back after the ack wait.
 */
export const handInTurn = async (
  consumer: Consumer,
  concurrency: number,
  ackWaitMs: number,
  handle: (m: JsMsg) => Promise<void>,
  log: Logger,
): Promise<InTurn> => {
  /** The messages being handled, each with its handling. */
  const inHand = new Map<JsMsg, Promise<void>>();
  let stopping = false;
  let pulling: ConsumerMessages | undefined;
  /** Wakes the loop when a turn comes free (or the consumer stops). */
  let turnFree: (() => void) | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  /** Said once a streak of failed pulls, not once a second. */
  let failing = false;
  // One timer for all messages in hand, rather than one a message. Every quarter of the ack wait:
  // a tick a busy event loop holds back by up to three quarters of it still arrives in time (at
  // half, a CI machine's load let three messages of a 1 s ack wait be handed out again).
  const keepAlive = setInterval(
    () => {
      for (const m of inHand.keys())
        try {
          m.working();
        } catch {
          // The connection is closing: the message comes back after the ack wait.
        }
    },
    Math.max(250, ackWaitMs / 4),
  );

  const start = (m: JsMsg) => {
    const handling = handle(m)
      .catch(() => undefined)
      .finally(() => {
        inHand.delete(m);
        turnFree?.();
      });
    inHand.set(m, handling);
  };
  const wait = (ms?: number) =>
    new Promise<void>((resolve) => {
      turnFree = resolve;
      if (ms !== undefined) retryTimer = setTimeout(resolve, ms);
    });

  const loop = (async () => {
    while (!stopping) {
      const free = concurrency - inHand.size;
      if (free <= 0) {
        await wait();
        continue;
      }
      try {
        pulling = await consumer.fetch({ max_messages: free, expires: PULL_EXPIRES_MS });
        failing = false;
        // Closing takes effect as the iteration below reads on (its promise settles only then).
        if (stopping) void pulling.close();
        for await (const m of pulling) {
          if (stopping) m.nak();
          else start(m);
        }
      } catch (err) {
        // The consumer or the connection is away for now (a restart, streams being replaced).
        if (stopping) break;
        if (!failing) log.warn({ err }, 'pulling messages failed; trying again every second');
        failing = true;
        await wait(PULL_RETRY_MS);
      } finally {
        pulling = undefined;
      }
    }
  })();

  return {
    inFlight: () => inHand.size,
    stop: async () => {
      stopping = true;
      clearTimeout(retryTimer);
      turnFree?.();
      void pulling?.close();
      await loop.catch(() => undefined);
      await Promise.allSettled(inHand.values());
      clearInterval(keepAlive);
    },
  };
};
