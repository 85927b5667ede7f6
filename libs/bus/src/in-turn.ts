import type { Consumer, JsMsg } from '@nats-io/jetstream';

export interface InTurn {
  /** Messages being handled now. */
  inFlight(): number;
  /** Takes no more messages, gives back those waiting their turn, and waits for those in hand. */
  stop(): Promise<void>;
}

/**
 * Hands a consumer's messages to `handle` (which acks, naks or terminates each), at most
 * `concurrency` at once, and keeps every message it holds alive until then (JetStream's
 * `working`): those in hand and the one waiting for a turn. It pulls one message at a time
 * (`max_messages: 1`): the client sends its next pull only as this loop reads on, so while every
 * turn is taken nothing more arrives to wait unseen. Pulling batches, a batch's
 * messages waited in the client behind slow ones (pages of one host queued for its politeness
 * slots, a service being waited out) for longer than the ack wait; JetStream handed them out
 * again while the first copy still waited, and both were handled (a batch page fetched twice).
 * A worker that dies stops the keep-alive with it, so its messages still come back after the ack
 * wait.
 */
export const handInTurn = async (
  consumer: Consumer,
  concurrency: number,
  ackWaitMs: number,
  handle: (m: JsMsg) => Promise<void>,
): Promise<InTurn> => {
  const messages = await consumer.consume({ max_messages: 1 });
  const waiting: JsMsg[] = [];
  const held = new Set<JsMsg>();
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  /** Wakes the loop when the message waiting has its turn (or the consumer stops). */
  let turnFree: (() => void) | undefined;
  // One timer for all held messages, rather than one a message.
  const keepAlive = setInterval(
    () => {
      for (const m of held)
        try {
          m.working();
        } catch {
          // The connection is closing: the message comes back after the ack wait.
        }
    },
    Math.max(500, ackWaitMs / 2),
  );

  const start = (m: JsMsg) => {
    const p = handle(m)
      .catch(() => undefined)
      .finally(() => {
        held.delete(m);
        inFlight.delete(p);
        const next = stopping ? undefined : waiting.shift();
        if (next) start(next);
        if (waiting.length === 0) turnFree?.();
      });
    inFlight.add(p);
  };
  const giveBack = (m: JsMsg) => {
    held.delete(m);
    m.nak();
  };

  const loop = (async () => {
    for await (const m of messages) {
      if (stopping) {
        m.nak();
        continue;
      }
      held.add(m);
      if (inFlight.size < concurrency) {
        start(m);
        continue;
      }
      // Not read on (no next pull) until this one has its turn.
      waiting.push(m);
      await new Promise<void>((resolve) => (turnFree = resolve));
    }
  })();

  return {
    inFlight: () => inFlight.size,
    stop: async () => {
      stopping = true;
      turnFree?.();
      await messages.close();
      await loop.catch(() => undefined);
      // Back at once for another worker, rather than after the ack wait.
      for (const m of waiting.splice(0)) giveBack(m);
      await Promise.allSettled(inFlight);
      clearInterval(keepAlive);
    },
  };
};
