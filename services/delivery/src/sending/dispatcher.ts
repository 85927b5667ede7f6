import { randomUUID } from 'node:crypto';
import type { Delivery } from '@tidemark/db';
import type { Logger } from '@tidemark/telemetry';
import type { DeliveryRepository } from '../repositories/delivery.repository.js';
import type { DeliverySender } from './delivery-sender.js';
import { afterAttempt, type SendResult } from './retry-policy.js';

const SETTLE_RETRY_FIRST_MS = 250;
const SETTLE_RETRY_MAX_MS = 4_000;

export interface DispatcherOptions {
  concurrency: number;
  hostConcurrency: number;
  pollMs: number;
  leaseMs: number;
  retryScale: number;
}

/**
 * Works the durable schedule: claims due deliveries (leased, so no other worker sends them),
 * sends each, and settles the outcome — delivered, retried later, failed or paused. At most
 * `hostConcurrency` sends per receiver host are in flight here, and a host at its limit is left
 * out of the next claim, so one slow or dead receiver holds its own slots and no one else's.
 */
export class Dispatcher {
  /** Names this process's leases. */
  readonly owner = `dispatch-${randomUUID()}`;
  private readonly perHost = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;

  constructor(
    private readonly repo: DeliveryRepository,
    private readonly sender: DeliverySender,
    private readonly opts: DispatcherOptions,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Looks at the schedule now (new deliveries, a redeliver, a freed slot). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops claiming, lets the sends in flight finish and settle. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.allSettled(this.inFlight);
  }

  private async run(): Promise<void> {
    while (this.running) {
      let claimed = 0;
      let free = this.opts.concurrency - this.inFlight.size;
      try {
        if (free > 0) {
          const batch = await this.repo.claimDue({
            owner: this.owner,
            leaseMs: this.opts.leaseMs,
            limit: free,
            perHost: this.opts.hostConcurrency,
            free: this.hostSlots(),
          });
          for (const d of batch) this.launch(d);
          claimed = batch.length;
          free -= claimed;
        }
        // A full batch may mean more are due: look again at once while there is room.
        if (claimed > 0 && free > 0) continue;
        // Sleep until the next retry falls due, a poll interval at most (rows due but held by
        // another worker, or for a host at its limit here, wait for that or a finished send).
        const dueIn = free > 0 ? await this.repo.msUntilNextDue() : null;
        await this.sleep(dueIn === null ? this.opts.pollMs : Math.min(this.opts.pollMs, dueIn));
      } catch (err) {
        this.logger.error({ err }, 'delivery schedule not read; trying again');
        await this.sleep(this.opts.pollMs);
      }
    }
  }

  /** Slots left for hosts with sends in flight; hosts not listed have all of theirs. */
  private hostSlots(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [host, n] of this.perHost) out[host] = Math.max(0, this.opts.hostConcurrency - n);
    return out;
  }

  private launch(d: Delivery): void {
    this.perHost.set(d.host, (this.perHost.get(d.host) ?? 0) + 1);
    const p = this.attempt(d).finally(() => {
      const n = (this.perHost.get(d.host) ?? 1) - 1;
      if (n <= 0) this.perHost.delete(d.host);
      else this.perHost.set(d.host, n);
      this.inFlight.delete(p);
      this.wake();
    });
    this.inFlight.add(p);
  }

  private async attempt(d: Delivery): Promise<void> {
    const at = new Date();
    let result: SendResult;
    try {
      result = await this.sender.send(d);
    } catch (err) {
      // Our side failed (a secret that will not open, the database): retried like no answer.
      this.logger.error({ err, deliveryId: d.id }, 'delivery attempt failed before sending');
      result = { status: null, error: 'internal error before sending', durationMs: 0, answer: 'retryable' };
    }
    const step = afterAttempt(result, d, this.opts.retryScale);
    // The send has happened: writing its outcome is tried again while the lease lasts, since an
    // outcome not written means the delivery is sent again when the lease runs out.
    const leaseEnds = Date.now() + this.opts.leaseMs;
    for (let tries = 1; ; tries++) {
      try {
        const settled = await this.repo.settle(d, this.owner, { at, result, ...step });
        if (!settled) this.logger.warn({ deliveryId: d.id }, 'lease lost before the attempt was written');
        return;
      } catch (err) {
        const pause = Math.min(SETTLE_RETRY_MAX_MS, SETTLE_RETRY_FIRST_MS * 2 ** (tries - 1));
        if (Date.now() + pause >= leaseEnds) {
          // The lease runs out and the attempt is made again: a receiver may see it twice (same webhook-id).
          this.logger.error({ err, deliveryId: d.id, tries }, 'delivery attempt not written');
          return;
        }
        this.logger.warn({ err, deliveryId: d.id, tries }, 'delivery attempt not written yet; trying again');
        await new Promise((ok) => setTimeout(ok, pause));
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken || !this.running) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(finish, Math.max(0, ms));
      this.wakeUp = finish;
    });
  }
}
