import type { Bus } from '@tidemark/bus';
import type { Logger } from '@tidemark/telemetry';
import type { JobService } from './job.service.js';

/**
 * Runs on every scrape worker: a scrape or playground job that has not moved for `stallMs` is
 * failed with the reason (its work was lost: a message given up whose settling failed too, or a
 * publish that never happened). Jobs are taken FOR UPDATE SKIP LOCKED, so two workers never end
 * one twice. While pages wait on the stream untaken, a quiet job may simply be queued behind
 * them: the sweep waits for that backlog to drain.
 */
export class JobWatchdog {
  private running: Promise<number> | null = null;

  constructor(
    private readonly jobs: JobService,
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
      const info = await this.bus.consumerInfo('scrape-page').catch(() => null);
      if (info && info.pending > 0) return 0;
      return await this.jobs.failStalled(this.stallMs);
    } catch (err) {
      this.logger.warn({ err }, 'scrape watchdog step failed');
      return 0;
    }
  }
}
