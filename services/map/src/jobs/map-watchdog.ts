import type { Bus } from '@tidemark/bus';
import type { Logger } from '@tidemark/telemetry';
import type { MapJobService } from './map-job.service.js';

/**
 * Runs on every map worker: a map job that has not moved for `stallMs` is failed with the reason
 * (issue 12, item 10). Nothing else ends such a job: its message was never published, was purged,
 * or its last delivery died with the worker. Jobs are taken FOR UPDATE SKIP LOCKED, so two
 * workers never end one twice. While map work waits on the stream untaken, a quiet job may simply
 * be queued behind it: the sweep waits for that backlog to drain.
 */
export class MapWatchdog {
  private running: Promise<number> | null = null;

  constructor(
    private readonly jobs: MapJobService,
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
      const info = await this.bus.consumerInfo('map-run').catch(() => null);
      if (info && info.pending > 0) return 0;
      return await this.jobs.failStalled(this.stallMs);
    } catch (err) {
      this.logger.warn({ err }, 'map watchdog step failed');
      return 0;
    }
  }
}
