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

/** How long a slot freed by a hand-over counts as about to take a waiting lease. */
const FREED_SLOT_MS = 1_000;

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
 * go back, and the crawl queues the slot again behind the waiting ones (a new generation). The
 * lease that makes way is one of the workspace holding most of this worker's slots (makingWay);
 * the crawl service keeps one lease of a workspace waiting at a time. No page is fetched twice.
 */
export const scrapeLeaseHandler = (deps: Omit<LeaseDeps, 'options'>, turns?: LeaseTurns) => {
  const options = new OptionsCache();
  const running = new Set<LeaseRunner>();
  // When slots here were freed by a hand-over and not yet filled: each is about to take a
  // waiting lease (the next message this worker takes), so it is counted as making way still.
  let freedAt: number[] = [];
  const handler: WorkHandler<'work.scrape.lease'> = async (msg, { deliveryCount }) => {
    freedAt.shift();
    const runner = new LeaseRunner(msg, deliveryCount, {
      ...deps,
      options: (lease, url, seed) =>
        options.get({ jobId: lease.jobId, request: seed ? lease.seedRequest : lease.request, url }),
    });
    running.add(runner);
    try {
      const ended = await runner.run();
      if (ended === 'released') throw new LeaseReleased();
      if (ended === 'handed-over') freedAt.push(performance.now());
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
    // Those already making way free a worker each for what waits, and so does a slot freed by a
    // hand-over that has not taken its next lease yet (for a moment: a free slot takes what
    // waits at once; one that found nothing is forgotten after a second).
    freedAt = freedAt.filter((at) => now - at < FREED_SLOT_MS);
    waiting -= [...running].filter((r) => r.lettingGo).length + freedAt.length;
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
 * Which of the holders past their turn (`over`) make way for `waiting` leases, one at a time:
 * only a lease of a workspace that holds the most of this worker's slots at that point (`held`:
 * every holder here), its longest held first; between workspaces that hold as many, the longest
 * held. When none of the most-holding workspace's leases is past its turn yet, nothing more
 * makes way now: one will be within a turn. So a workspace that fills a worker rotates its own
 * crawls and does not push out another workspace's crawl for its own next one; the leases that
 * wait are still taken in the order they queued.
 */
export const makingWay = <H extends TurnHolder>(over: H[], held: H[], waiting: number, now: number): H[] => {
  const slots = new Map<string, number>();
  for (const h of held) if (!h.lettingGo) slots.set(h.workspaceId, (slots.get(h.workspaceId) ?? 0) + 1);
  const left = [...over];
  const chosen: H[] = [];
  while (chosen.length < waiting && left.length) {
    const most = Math.max(...slots.values());
    let best = -1;
    for (let i = 0; i < left.length; i++) {
      if (slots.get(left[i]!.workspaceId) !== most) continue;
      if (best < 0 || (left[i]!.turnLength(now) ?? 0) > (left[best]!.turnLength(now) ?? 0)) best = i;
    }
    if (best < 0) break;
    const [runner] = left.splice(best, 1);
    chosen.push(runner!);
    slots.set(runner!.workspaceId, most - 1);
  }
  return chosen;
};
