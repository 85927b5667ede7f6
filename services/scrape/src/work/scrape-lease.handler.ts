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

/**
 * NATS in: `work.scrape.lease`, a crawl's lease (ADR 14). The message is held (its heartbeat
 * keeps it) while this worker fetches the crawl, and acked when the crawl ends the lease or gives
 * it to a newer holder; a worker that dies leaves it to JetStream's redelivery, one that stops
 * hands back what it has and sends the message back at once.
 */
export const scrapeLeaseHandler = (deps: Omit<LeaseDeps, 'options'>) => {
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
  return {
    handler,
    /** The crawl ended (crawlDoneSubject): its lease's holder stops starting pages. */
    crawlEnded: (jobId: string) => {
      for (const runner of running) if (runner.jobId === jobId) runner.halt();
    },
    /** Lets every lease go: what is in flight finishes and is handed back, the rest given back. */
    releaseAll: () => {
      for (const runner of running) runner.release();
    },
  };
};
