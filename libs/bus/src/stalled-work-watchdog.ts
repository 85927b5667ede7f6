import type { Logger } from '@tidemark/telemetry';
import type { Bus } from './bus.js';

/**
 * A job that has not moved for `stallMs` is failed with its reason by `failStalled` (its work was
 * lost: a message given up whose settling failed too, purged, or never published). Runs on every
 * worker of a service; the service's `failStalled` takes jobs FOR UPDATE SKIP LOCKED, so two
 * workers never end one twice. While the service's lanes have messages waiting untaken, a quiet
 * job may simply be queued behind them: the sweep waits for that backlog to drain.
 */
export class StalledWorkWatchdog {
  private running: Promise<number> | null = null;

  constructor(
    private readonly bus: Bus,
    /** The durable consumers whose backlog a quiet job may be waiting behind. */
    private readonly lanes: readonly string[],
    private readonly failStalled: (stallMs: number) => Promise<number>,
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
      for (const lane of this.lanes) {
        const info = await this.bus.consumerInfo(lane).catch(() => null);
        if (info && info.pending > 0) return 0;
      }
      return await this.failStalled(this.stallMs);
    } catch (err) {
      this.logger.warn({ err, lanes: this.lanes }, 'watchdog step failed');
      return 0;
    }
  }
}
