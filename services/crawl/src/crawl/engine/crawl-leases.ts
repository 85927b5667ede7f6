import type { Bus } from '@tidemark/bus';
import type { CrawlPageResultMessage } from '@tidemark/contracts';
import type { CrawlJob, CrawlJobRepository } from '../../repositories/crawl-job.repository.js';
import type { Dispatchable, FrontierRepository, Tx } from '../../repositories/frontier.repository.js';
import { pageRequestFor } from '../crawl-options.js';
import type { CrawlContext } from './crawl-context.js';
import type { Dispatcher } from './dispatcher.js';
import { ENDED, progressOf, stateOf } from './crawl-state.js';

/** Who holds a crawl's lease: its generation, then the lease message's delivery. */
export interface LeaseHolder {
  generation: number;
  delivery: number;
}

/** A pull of a lease's holder (CrawlLeaseService.PullCrawlWork, decoded). */
export interface LeasePull extends LeaseHolder {
  jobId: string;
  results: CrawlPageResultMessage[];
  returned: number[];
  resync: boolean;
  release: boolean;
}

export interface LeasedUrl {
  position: number;
  url: string;
  attempt: number;
  robotsDisallowed: boolean;
  seed: boolean;
}

export interface LeaseAnswer {
  state: 'go' | 'stop' | 'lost' | 'ended';
  urls: LeasedUrl[];
  perHost: number;
  maxInFlight: number;
  pullAgainMs: number;
}

export const answerOnly = (state: LeaseAnswer['state']): LeaseAnswer => ({
  state,
  urls: [],
  perHost: 0,
  maxInFlight: 0,
  pullAgainMs: 0,
});

/** Negative when `a` is an older holder than `b`. */
export const compareHolders = (a: LeaseHolder, b: LeaseHolder): number =>
  a.generation - b.generation || a.delivery - b.delivery;

/** How long a worker with nothing to do waits before it pulls again, at most. */
const IDLE_PULL_MS = 250;

/**
 * A crawl's lease (ADR 14): the crawl's side of it, inside a step's transaction. The lease is one
 * work.scrape.lease message a generation; the job's state says which holder is current
 * (`state.lease`), so a pull of a holder that lost it (a slow worker whose message went to
 * another) hands nothing out and settles nothing.
 */
export class CrawlLeases {
  constructor(
    private readonly jobs: CrawlJobRepository,
    private readonly frontier: FrontierRepository,
    private readonly bus: Bus,
    private readonly dispatcher: Pick<Dispatcher, 'pick'>,
    private readonly settings: {
      /** URLs a lease holds at most: in flight at its worker and waiting there. */
      leaseBuffer: number;
      /** Most pages of one crawl in flight at once, whatever the hosts. */
      maxInFlight: number;
    },
  ) {}

  /** Opens the crawl's lease of `generation` (published with the step; a retried step publishes nothing twice). */
  async open(tx: Tx, job: CrawlJob, ctx: CrawlContext, generation: number): Promise<CrawlJob> {
    const after = await this.jobs.update(tx, job, {
      state: { lease: { generation, delivery: 0, pulledAt: Date.now() } },
    });
    await this.bus.publishWork(
      'work.scrape.lease',
      {
        jobId: job.id,
        runId: job.runId,
        workspaceId: job.workspaceId,
        generation,
        request: pageRequestFor(ctx.options, false),
        seedRequest: pageRequestFor(ctx.options, true),
      },
      { msgId: `${job.id}:lease:${generation}` },
    );
    return after;
  }

  /** The pull's holder is the lease's (or a newer delivery of it, which takes it over). */
  holds(view: CrawlJob, pull: LeaseHolder): boolean {
    const lease = stateOf(view).lease;
    return lease !== undefined && compareHolders(pull, lease) >= 0;
  }

  /** Records the holder and the time of its pull: the ticker reads a lease silent for long as lost. */
  touch(tx: Tx, view: CrawlJob, pull: LeaseHolder): Promise<CrawlJob> {
    return this.jobs.update(tx, view, {
      state: { lease: { generation: pull.generation, delivery: pull.delivery, pulledAt: Date.now() } },
    });
  }

  /** A newer holder than the one the job names (redelivered: it must be sent all the lease holds). */
  isNewHolder(view: CrawlJob, pull: LeaseHolder): boolean {
    const lease = stateOf(view).lease;
    return lease === undefined || compareHolders(pull, lease) > 0;
  }

  /**
   * URLs the worker gave back unfetched: queued again; on a crawl that ended (cancelled) they
   * are cancelled as its queued URLs were.
   */
  async takeBack(tx: Tx, view: CrawlJob, positions: number[]): Promise<CrawlJob> {
    const back = await this.frontier.giveBack(tx, view.runId, positions);
    if (!back || !ENDED.has(view.status)) return view;
    const dropped = await this.frontier.cancelQueued(tx, view.runId);
    const progress = progressOf(view);
    progress.queued = Math.max(0, progress.queued - dropped);
    return this.jobs.update(tx, view, { progress });
  }

  /**
   * The next URLs for the holder: the lease is filled up to its buffer. Within a host the worker
   * paces the fetches (the crawl's concurrency); with a politeness delay the crawl hands out one
   * URL of a host a time, as it does without a lease.
   */
  async fill(tx: Tx, view: CrawlJob, ctx: CrawlContext): Promise<{ job: CrawlJob; urls: Dispatchable[] }> {
    const buffer = this.settings.leaseBuffer;
    const { job, picked } = await this.dispatcher.pick(tx, view, ctx, buffer, ctx.delayMs > 0 ? 1 : buffer);
    return { job, urls: picked };
  }

  /** What the lease holds now (every dispatched URL of the run is the lease's). */
  held(tx: Tx, view: CrawlJob): Promise<Dispatchable[]> {
    return this.frontier.dispatched(tx, view.runId);
  }

  /** The answer to a pull of the current holder. */
  answer(state: 'go' | 'stop', ctx: CrawlContext, urls: Dispatchable[], view: CrawlJob): LeaseAnswer {
    const now = Date.now();
    const waits = Object.values(stateOf(view).hostNextAt ?? {})
      .filter((t) => t > now)
      .map((t) => t - now);
    return {
      state,
      urls: urls.map((row) => ({
        position: row.position,
        url: row.url,
        attempt: row.attempts,
        robotsDisallowed: ctx.robots !== null && !ctx.robots.isAllowed(row.url),
        seed: row.foundVia === 'seed',
      })),
      perHost: ctx.delayMs > 0 ? 1 : ctx.options.config.fetch.concurrency,
      maxInFlight: this.settings.maxInFlight,
      pullAgainMs: Math.max(20, Math.min(IDLE_PULL_MS, ...waits)),
    };
  }
}
