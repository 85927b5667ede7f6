import type { Logger } from '@tidemark/telemetry';
import type { Bus } from './bus.js';

/**
 * A job that has not moved for `stallMs` is failed with its reason by `failStalled` (its work was
 * lost: a message given up whose settling failed too, purged, or never published). Runs on every
 * worker of a service; the service's `failStalled` takes jobs FOR UPDATE SKIP LOCKED, so two
 * workers never end one twice. While the service's lanes have messages waiting untaken, a quiet
 * job may simply be queued behind them: the sweep waits for that backlog to drain, and for one
 * look more. A message that waited in a lane longer than `stallMs` is delivered as the backlog
 * drains, and its job moves only when the message's first step lands (a crawl lease's first
 * pull): a look in between would find the job quiet and no backlog. Failing only at a look whose
 * previous look saw no backlog either gives every message delivered from a backlog a whole
 * interval between looks to take that step.
 */
export class StalledWorkWatchdog {
  private running: Promise<number> | null = null;
  /** Whether the last look found messages waiting (a new worker has not looked: counted so). */
  private backlogLastLook = true;

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
      let backlog = false;
      for (const lane of this.lanes) {
        const info = await this.bus.consumerInfo(lane).catch(() => null);
        if (info && info.pending > 0) {
          backlog = true;
          break;
        }
      }
      const drainedBefore = !this.backlogLastLook;
      this.backlogLastLook = backlog;
      if (backlog || !drainedBefore) return 0;
      return await this.failStalled(this.stallMs);
    } catch (err) {
      this.logger.warn({ err, lanes: this.lanes }, 'watchdog step failed');
      return 0;
    }
  }
}
