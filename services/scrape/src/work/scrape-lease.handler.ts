import type { WorkHandler } from '@tidemark/bus';
import { ApiError } from '@tidemark/errors';
import { LeaseRunner, type LeaseDeps } from '../crawl-lease/lease-runner.js';
import { OptionsCache } from './scrape-crawl.handler.js';

/** The lease was let go (the worker stops): its message goes back, for another worker to take. */
class LeaseReleased extends ApiError {
  constructor() {
    super('unavailable', 'the worker holding the crawl lease stopped; another takes it');
  }
}

export interface LeaseTurns {
  /**
   * How long a lease is fetched here before it makes way for leases waiting for a worker (ms;
   * 0: it is held until its crawl ends).
   */
  turnMs: number;
  /** Leases waiting in the work queue, not yet taken by any worker. */
  waiting: () => Promise<number>;
}

/**
 * NATS in: `work.scrape.lease`, a crawl's lease (ADR 14). The message is held (its heartbeat
 * keeps it) while this worker fetches the crawl, and acked when the crawl ends the lease, gives
 * it to a newer holder or takes it back at the end of a turn; a worker that dies leaves it to
 * JetStream's redelivery, one that stops hands back what it has and sends the message back at
 * once.
 *
 * Turns: a worker holds `SCRAPE_LEASES` leases at once, and a lease lasts its crawl's length.
 * Without turns, a workspace's long crawls that fill every worker keep every other crawl (its
 * own and other workspaces') waiting until one of them ends, hours on a large site. So while
 * leases wait untaken, a lease held here for `turnMs` makes way: its pages in flight finish and
 * go back, and the crawl queues the slot again behind the waiting ones (a new generation).
 * Crawls take turns in the order they queued; no page is fetched twice for it.
 */
export const scrapeLeaseHandler = (deps: Omit<LeaseDeps, 'options'>, turns?: LeaseTurns) => {
  const options = new OptionsCache();
  const running = new Set<LeaseRunner>();
  const handler: WorkHandler<'work.scrape.lease'> = async (msg, { deliveryCount }) => {
    const runner = new LeaseRunner(msg, deliveryCount, {
      ...deps,
      options: (lease, url, seed) =>
        options.get({ jobId: lease.jobId, request: seed ? lease.seedRequest : lease.request, url }),
    });
    running.add(runner);
    try {
      if ((await runner.run()) === 'released') throw new LeaseReleased();
    } finally {
      running.delete(runner);
    }
  };

  let looking: Promise<void> | null = null;
  /**
   * Hands over as many leases whose turn is over as there are leases waiting: each from the
   * workspace that holds the most of this worker's slots at that point, its longest held first.
   */
  const takeTurns = async (): Promise<void> => {
    if (!turns?.turnMs) return;
    const now = performance.now();
    const over = [...running].filter((r) => !r.lettingGo && (r.turnLength(now) ?? 0) >= turns.turnMs);
    if (!over.length) return;
    let waiting = 0;
    try {
      waiting = await turns.waiting();
    } catch (err) {
      deps.logger.warn({ err }, 'could not count the leases waiting for a worker; no turn taken');
      return;
    }
    // Those already making way free a worker each for what waits.
    waiting -= [...running].filter((r) => r.lettingGo).length;
    for (const runner of makingWay(over, [...running], waiting, now)) {
      deps.logger.info(
        { jobId: runner.jobId, workspaceId: runner.workspaceId },
        'a crawl lease makes way for leases waiting for a worker',
      );
      runner.handOver();
    }
  };
  // A turn is over at most this late; looked at only when some lease's turn is over.
  const timer = turns?.turnMs
    ? setInterval(
        () => {
          looking ??= takeTurns().finally(() => (looking = null));
        },
        Math.max(100, Math.min(5_000, turns.turnMs / 4)),
      )
    : null;
  timer?.unref();

  return {
    handler,
    /** The crawl ended (crawlDoneSubject): its lease's holder stops starting pages. */
    crawlEnded: (jobId: string) => {
      for (const runner of running) if (runner.jobId === jobId) runner.halt();
    },
    /** Lets every lease go: what is in flight finishes and is handed back, the rest given back. */
    releaseAll: () => {
      if (timer) clearInterval(timer);
      for (const runner of running) runner.release();
    },
  };
};

/** What takeTurns needs of a lease's holder. */
export interface TurnHolder {
  workspaceId: string;
  lettingGo: boolean;
  turnLength(now: number): number | null;
}

/**
 * Which of the holders past their turn (`over`) make way for `waiting` leases. One at a time, from
 * the workspace that holds the most of this worker's slots (`held`: every holder here) at that
 * point, its longest held first; between workspaces that hold as many, the longest held. So a
 * workspace that fills a worker with its crawls rotates them among themselves and does not push
 * out another workspace's one crawl for its own next one; the leases that wait are still taken in
 * the order they queued.
 */
export const makingWay = <H extends TurnHolder>(over: H[], held: H[], waiting: number, now: number): H[] => {
  const slots = new Map<string, number>();
  for (const h of held) if (!h.lettingGo) slots.set(h.workspaceId, (slots.get(h.workspaceId) ?? 0) + 1);
  const left = [...over];
  const chosen: H[] = [];
  while (chosen.length < waiting && left.length) {
    let best = 0;
    for (let i = 1; i < left.length; i++) {
      const a = left[i]!;
      const b = left[best]!;
      const bySlots = (slots.get(a.workspaceId) ?? 0) - (slots.get(b.workspaceId) ?? 0);
      if (bySlots > 0 || (bySlots === 0 && (a.turnLength(now) ?? 0) > (b.turnLength(now) ?? 0))) best = i;
    }
    const [runner] = left.splice(best, 1);
    chosen.push(runner!);
    slots.set(runner!.workspaceId, (slots.get(runner!.workspaceId) ?? 0) - 1);
  }
  return chosen;
};
