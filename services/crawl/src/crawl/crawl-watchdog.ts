import { stalledReason } from '@tidemark/config';
import type { Logger } from '@tidemark/telemetry';
import type { CrawlJobRepository } from '../repositories/crawl-job.repository.js';
import type { CrawlEngine } from './crawl-engine.js';
import { LEASE_CONSUMER } from './engine/crawl-leases.js';

/** The work consumers whose waiting messages would move crawls (taken by no worker yet). */
export const CRAWL_WORK = ['crawl-start', 'crawl-pages', 'scrape-crawl', LEASE_CONSUMER];

/**
 * The crawl's step of the stalled-work watchdog (`StalledWorkWatchdog`, on every crawl worker): a
 * crawl or run whose job has not moved for `stallMs` is failed with the reason, its URLs not
 * fetched counted. Nothing else ends such a job: its start was lost, or a result never came back
 * and no step is left to move it. Every worker may find the same job; each ends it only under the
 * run's lock and only if it is still open and stalled, so one does and the rest find it ended.
 */
export const failStalledCrawls =
  (jobs: CrawlJobRepository, engine: CrawlEngine, logger: Logger) =>
  async (stallMs: number): Promise<number> => {
    const reason = stalledReason(stallMs);
    let failed = 0;
    for (const job of await jobs.stalled(stallMs)) {
      if (await engine.fail(job, reason, stallMs)) {
        failed += 1;
        logger.warn({ jobId: job.id, runId: job.runId }, 'stalled crawl failed');
      }
    }
    return failed;
  };
