import type { Bus } from '@tidemark/bus';
import { stalledReason } from '@tidemark/config';
import type { Logger } from '@tidemark/telemetry';
import type { CrawlJobRepository } from '../repositories/crawl-job.repository.js';
import type { CrawlEngine } from './crawl-engine.js';

/** The work consumers whose waiting messages would move crawls (taken by no worker yet). */
const CRAWL_WORK = ['crawl-start', 'crawl-page', 'scrape-crawl'];

/**
 * Runs on every crawl worker: a crawl or run whose job has not moved for `stallMs` is failed
 * with the reason, its URLs not fetched counted. Nothing else ends such a job: its start was
 * lost, or a result never came back and no step is left to move it. Every worker may find the
 * same job; each ends it only under the run's lock and only if it is still open and stalled, so
 * one does and the rest find it ended. While work waits on the stream untaken, a quiet crawl may
 * simply be queued behind it: the sweep waits for the backlog to drain.
 */
export class CrawlWatchdog {
  private running: Promise<number> | null = null;

  constructor(
    private readonly jobs: CrawlJobRepository,
    private readonly engine: CrawlEngine,
    private readonly bus: Bus,
    private readonly stallMs: number,
    private readonly logger: Logger,
  ) {}

  /** One look; answers how many jobs this worker failed. */
  sweep(): Promise<number> {
    this.running ??= this.look().finally(() => (this.running = null));
    return this.running;
  }

  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  private async look(): Promise<number> {
    try {
      if (await this.backlog()) return 0;
      const reason = stalledReason(this.stallMs);
      let failed = 0;
      for (const job of await this.jobs.stalled(this.stallMs)) {
        if (await this.engine.fail(job, reason, this.stallMs)) {
          failed += 1;
          this.logger.warn({ jobId: job.id, runId: job.runId }, 'stalled crawl failed');
        }
      }
      return failed;
    } catch (err) {
      this.logger.warn({ err }, 'crawl watchdog step failed');
      return 0;
    }
  }

  private async backlog(): Promise<boolean> {
    for (const durable of CRAWL_WORK) {
      const info = await this.bus.consumerInfo(durable).catch(() => null);
      if (info && info.pending > 0) return true;
    }
    return false;
  }
}
