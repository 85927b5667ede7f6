import type { Bus } from '@tidemark/bus';
import type { CrawlPageResultMessage } from '@tidemark/contracts';
import type {
  CrawlJob,
  CrawlJobRepository,
  LeaseSlotState,
  WorkspaceLeaseSlot,
} from '../../repositories/crawl-job.repository.js';
import type { Dispatchable, FrontierRepository, Tx } from '../../repositories/frontier.repository.js';
import { pageRequestFor } from '../crawl-options.js';
import type { CrawlContext } from './crawl-context.js';
import type { Dispatcher } from './dispatcher.js';
import { ENDED, progressOf, stateOf } from './crawl-state.js';

/**
 * Who holds a crawl's lease slot: its generation, then the lease message's delivery, and the
 * holder's own id (empty from a worker that predates it).
 */
export interface LeaseHolder {
  slot: number;
  generation: number;
  delivery: number;
  holder: string;
}

/** A pull of a lease's holder (CrawlLeaseService.PullCrawlWork, decoded). */
export interface LeasePull extends LeaseHolder {
  jobId: string;
  results: CrawlPageResultMessage[];
  returned: number[];
  resync: boolean;
  release: boolean;
  /** The holder's turn is over and it holds nothing: the slot goes to the back of the queue. */
  handOver: boolean;
}

export interface LeasedUrl {
  position: number;
  url: string;
  attempt: number;
  robotsDisallowed: boolean;
  seed: boolean;
  dispatchedBefore: boolean;
}

export interface LeaseAnswer {
  state: 'go' | 'stop' | 'lost' | 'ended' | 'wait';
  urls: LeasedUrl[];
  perHost: number;
  maxInFlight: number;
  pullAgainMs: number;
  /** Hosts to leave alone for a while (Retry-After), in ms from the answer. */
  hostWaits: { host: string; waitMs: number }[];
  /** How long from its pull the holder may start pages (0: no limit). */
  leaseMs: number;
}

export const answerOnly = (state: LeaseAnswer['state']): LeaseAnswer => ({
  state,
  urls: [],
  perHost: 0,
  maxInFlight: 0,
  pullAgainMs: 0,
  hostWaits: [],
  leaseMs: 0,
});

/** Negative when `a` is an older holder (of one slot) than `b`. */
export const compareHolders = (
  a: Pick<LeaseHolder, 'generation' | 'delivery'>,
  b: Pick<LeaseHolder, 'generation' | 'delivery'>,
): number => a.generation - b.generation || a.delivery - b.delivery;

/** Past holders of one delivery remembered per slot (each a takeover of a count gone backwards). */
const PAST_HOLDERS = 16;

/**
 * Whether `pull` comes from another holder of the delivery the slot names: JetStream handed the
 * lease message out again with its delivery count gone backwards (nats-server before 2.10.14,
 * on a delivery that failed), so the count alone cannot tell the two apart.
 */
const sameCountOtherHolder = (lease: LeaseSlotState, pull: LeaseHolder): boolean =>
  compareHolders(pull, lease) === 0 && pull.holder !== '' && lease.holder !== undefined && pull.holder !== lease.holder;

/** The durable consumer the scrape workers take `work.scrape.lease` messages with. */
export const LEASE_CONSUMER = 'scrape-lease';

/** A slot whose lease message waits in the work queue: published, and no worker has pulled it yet. */
export const isQueued = (lease: LeaseSlotState | undefined): boolean =>
  lease !== undefined && lease !== null && lease.delivery === 0 && lease.deferredAt === undefined;

/** Another crawl's slot (CrawlJobRepository.workspaceLeases) whose lease message waits in the work queue. */
export const waitsInQueue = (slot: WorkspaceLeaseSlot): boolean => slot.delivery === 0 && slot.deferredAt === null;

/** A leased crawl's slots (a crawl started before slots had one lease, slot 0); empty when paged. */
export const leasesOf = (view: CrawlJob): LeaseSlotState[] => {
  const state = stateOf(view);
  return state.leases ?? (state.lease ? [state.lease] : []);
};

/** A host's URLs out at once when the crawl sets no limit (the holders pace the host). */
const NO_HOST_LIMIT = 1_000_000;

/** A wait a host asked for, as carried in an answer (an int32 of ms; Retry-After is capped well below). */
const MAX_HOST_WAIT_MS = 2 ** 31 - 1;

/** How long a worker with nothing to do waits before it pulls again, at most. */
const IDLE_PULL_MS = 250;

/**
 * A holder's lease, at most: it starts no page later than this after its last pull was sent,
 * and its slot goes to a newer holder only after this long without a pull. Under the ack wait
 * of the lease message (60 s), so a dead holder's redelivered slot is taken at once.
 */
const LEASE_MS = 30_000;

/** How often a newer holder kept waiting asks again, at most. */
const WAIT_PULL_MS = 1000;

/**
 * A crawl's leases (ADR 14): the crawl's side of them, inside a step's transaction. A crawl has
 * one lease slot, or several so that as many workers share it: each slot is one
 * work.scrape.lease message a generation, and holds the URLs it was handed (their frontier rows
 * name it). The job's state says which holder of each slot is current (`state.leases`), so a
 * pull of a holder that lost its slot (a slow worker whose message went to another) hands
 * nothing out and settles nothing.
 *
 * Slots split the crawl's concurrency: with two, each holder fetches at most half the crawl's
 * pages of a host and in all. A crawl with a politeness delay has one slot: its pace is the
 * delay's (one page of a host at a time), which one worker keeps for any number of hosts, and
 * pacing a host stays inside that worker.
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
      /** Lease slots a crawl without a politeness delay opens (workers that may share it). */
      leaseSlots: number;
      /** A 429's wait when the host names none: its holder pauses the host this long at once. */
      defaultRetryAfterMs: number;
      /** A slot whose holder has not pulled for this long is cut (a new generation). */
      staleMs: number;
    },
  ) {
    // Half the cut's time: a holder that went silent has stopped starting pages well before its
    // slot is cut and handed out again.
    this.leaseMs = Math.min(LEASE_MS, Math.floor(settings.staleMs / 2));
  }

  /** How long a holder may start pages after it sent a pull (the answer's lease_ms). */
  readonly leaseMs: number;

  /** How many slots a crawl opens: one with a politeness delay, never more than its concurrency. */
  slotsFor(ctx: CrawlContext): number {
    if (ctx.delayMs > 0) return 1;
    return Math.max(1, Math.min(this.settings.leaseSlots, ctx.options.config.fetch.concurrency));
  }

  /** Opens every slot of a crawl that starts, at generation 0. */
  async openAll(tx: Tx, job: CrawlJob, ctx: CrawlContext): Promise<CrawlJob> {
    let view = job;
    for (let slot = 0; slot < this.slotsFor(ctx); slot++) view = await this.open(tx, view, ctx, slot, 0);
    return view;
  }

  /**
   * Opens a slot's lease of `generation`: published with the step (a retried step publishes
   * nothing twice), or deferred while another lease of the workspace waits in the work queue.
   *
   * One waiting lease a workspace: JetStream's work queue is first in, first out, so a workspace
   * that queued many crawls would otherwise keep every crawl queued after them waiting for a
   * turn behind each of its own (a turn is `SCRAPE_LEASE_TURN_MS`). With one lease of each
   * workspace in the queue, workers take the workspaces' leases in turn; a workspace's further
   * leases go out oldest first, each once the one before it is taken (publishDeferred).
   */
  async open(
    tx: Tx,
    job: CrawlJob,
    ctx: CrawlContext,
    slot: number,
    generation: number,
    requeued = 0,
  ): Promise<CrawlJob> {
    const leases = [...leasesOf(job)];
    const now = Date.now();
    const count = requeued ? { requeued } : {};
    if (await this.workspaceLeaseWaits(tx, job, leases, slot)) {
      leases[slot] = { generation, delivery: 0, pulledAt: now, deferredAt: now, ...count };
      return this.jobs.update(tx, job, { state: { leases } });
    }
    leases[slot] = { generation, delivery: 0, pulledAt: now, ...count };
    const after = await this.jobs.update(tx, job, { state: { leases } });
    await this.publish(job, ctx, slot, generation);
    return after;
  }

  /**
   * Publishes the crawl's deferred slot if it is its workspace's oldest and none of the
   * workspace's leases waits in the work queue any more (it was taken, or its crawl ended).
   * Looked at by the ticker and by every pull of a crawl that has one.
   */
  async publishDeferred(tx: Tx, view: CrawlJob, ctx: CrawlContext): Promise<CrawlJob> {
    const leases = [...leasesOf(view)];
    const mine = leases
      .map((lease, slot) => ({ lease, slot }))
      .filter((x): x is { lease: LeaseSlotState; slot: number } => x.lease?.deferredAt !== undefined)
      .sort((a, b) => a.lease.deferredAt! - b.lease.deferredAt! || a.slot - b.slot);
    const first = mine[0];
    if (!first) return view;
    if (leases.some((lease) => isQueued(lease))) return view;
    if (!(await this.jobs.tryLockLeaseQueue(tx, view.workspaceId))) return view;
    const others = await this.jobs.workspaceLeases(tx, view.workspaceId, view.id);
    if (others.some(waitsInQueue)) return view;
    // Oldest first across the workspace (its crawls' deferred slots by when they were deferred).
    const older = others.some(
      (o) =>
        o.deferredAt !== null &&
        (o.deferredAt < first.lease.deferredAt! || (o.deferredAt === first.lease.deferredAt && o.jobId < view.id)),
    );
    if (older) return view;
    const { deferredAt: _, ...lease } = first.lease;
    leases[first.slot] = { ...lease, pulledAt: Date.now() };
    const after = await this.jobs.update(tx, view, { state: { leases } });
    await this.publish(view, ctx, first.slot, lease.generation);
    return after;
  }

  /**
   * Whether a lease of the workspace waits in the work queue (published, not yet taken) or
   * another crawl of the workspace is deciding right now (its queue lock is taken): either way
   * this slot is deferred. `leases`: this crawl's slots as the step sees them; `slot` is the
   * one being opened.
   */
  private async workspaceLeaseWaits(tx: Tx, job: CrawlJob, leases: LeaseSlotState[], slot: number): Promise<boolean> {
    if (leases.some((lease, at) => at !== slot && (isQueued(lease) || lease?.deferredAt !== undefined))) return true;
    if (!(await this.jobs.tryLockLeaseQueue(tx, job.workspaceId))) return true;
    const others = await this.jobs.workspaceLeases(tx, job.workspaceId, job.id);
    return others.some((o) => o.delivery === 0 || o.deferredAt !== null);
  }

  private publish(job: CrawlJob, ctx: CrawlContext, slot: number, generation: number): Promise<void> {
    return this.bus.publishWork(
      'work.scrape.lease',
      {
        jobId: job.id,
        runId: job.runId,
        workspaceId: job.workspaceId,
        slot,
        generation,
        request: pageRequestFor(ctx.options, false),
        seedRequest: pageRequestFor(ctx.options, true),
        defaultRetryAfterMs: this.settings.defaultRetryAfterMs,
      },
      { msgId: `${job.id}:lease:${slot}:${generation}` },
    );
  }

  /** The pull's holder is its slot's (or a newer delivery of it, which takes it over). */
  holds(view: CrawlJob, pull: LeaseHolder): boolean {
    const lease = leasesOf(view)[pull.slot];
    if (lease === undefined) return false;
    const order = compareHolders(pull, lease);
    // A holder of this delivery the slot went past (another of the same count took it over).
    return order > 0 || (order === 0 && !(pull.holder !== '' && lease.past?.includes(pull.holder)));
  }

  /**
   * Records the holder and the time of its pull (the ticker reads a slot silent for long as
   * lost), and whether it let the slot go.
   */
  touch(tx: Tx, view: CrawlJob, pull: LeaseHolder & { release: boolean }): Promise<CrawlJob> {
    const leases = [...leasesOf(view)];
    const before = leases[pull.slot];
    // The ids of holders of this delivery the slot went past, kept while the delivery is.
    const past = before && compareHolders(pull, before) === 0 ? [...(before.past ?? [])] : [];
    if (before?.holder && before.holder !== pull.holder && compareHolders(pull, before) === 0) past.push(before.holder);
    leases[pull.slot] = {
      generation: pull.generation,
      delivery: pull.delivery,
      pulledAt: Date.now(),
      ...(pull.release ? { released: true } : {}),
      ...(pull.holder ? { holder: pull.holder } : {}),
      ...(past.length ? { past: past.slice(-PAST_HOLDERS) } : {}),
    };
    return this.jobs.update(tx, view, { state: { leases } });
  }

  /**
   * How long a newer holder must wait for the slot (0: it may take it now). The current holder
   * may be alive and starting pages until its lease runs out; handed the slot before that, the
   * new holder would fetch what the old one starts meanwhile. A slot nobody has pulled yet (a
   * new generation) or whose holder let it go is free at once.
   */
  waitForSlot(view: CrawlJob, pull: LeaseHolder): number {
    const lease = leasesOf(view)[pull.slot];
    if (!lease || lease.delivery === 0 || lease.released) return 0;
    return Math.max(0, lease.pulledAt + this.leaseMs - Date.now());
  }

  /** The answer to a newer holder kept waiting: nothing yet, ask again when the lease may have run out. */
  waitAnswer(waitMs: number): LeaseAnswer {
    return { ...answerOnly('wait'), pullAgainMs: Math.max(20, Math.min(WAIT_PULL_MS, waitMs)) };
  }

  /**
   * A newer holder than the one the job names (redelivered: it must be sent all its slot holds),
   * or another holder of the same delivery (a count gone backwards), which is treated as one.
   */
  isNewHolder(view: CrawlJob, pull: LeaseHolder): boolean {
    const lease = leasesOf(view)[pull.slot];
    return lease === undefined || compareHolders(pull, lease) > 0 || sameCountOtherHolder(lease, pull);
  }

  /**
   * A holder hands its slot over (its turn is over and other leases wait for a worker): a new
   * generation of the slot goes to the back of the work queue, behind the leases that wait, and
   * the holder's pulls are refused from now on. The holder sends this only once it holds
   * nothing; should the slot still hold URLs, they are queued again unfetched, as given back.
   */
  async handOver(tx: Tx, view: CrawlJob, ctx: CrawlContext, pull: LeaseHolder): Promise<CrawlJob> {
    const still = await this.held(tx, view, pull.slot);
    const after = still.length
      ? await this.takeBack(
          tx,
          view,
          still.map((row) => row.position),
        )
      : view;
    return this.open(tx, after, ctx, pull.slot, pull.generation + 1);
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
   * The next URLs for a slot's holder: the slot is filled up to its buffer. Within a host the
   * worker paces the fetches (its share of the crawl's concurrency); with a politeness delay the
   * crawl hands out one URL of a host a time, as it does without a lease.
   */
  async fill(
    tx: Tx,
    view: CrawlJob,
    ctx: CrawlContext,
    slot: number,
  ): Promise<{ job: CrawlJob; urls: Dispatchable[] }> {
    const of = Math.max(1, leasesOf(view).length);
    // (The run's max_credits bounds it too, in pick: a holder cannot spend past it between pulls.)
    const buffer = Math.min(this.settings.leaseBuffer, this.holdingCap(view, ctx, of));
    // Without a delay the holders pace each host; the crawl puts no limit of its own on one.
    const perHost = ctx.delayMs > 0 ? 1 : NO_HOST_LIMIT;
    const { job, picked } = await this.dispatcher.pick(tx, view, ctx, buffer, perHost, {
      index: slot,
      of,
    });
    return { job, urls: picked };
  }

  /**
   * What one of `of` slots may hold: its share of the crawl's open URLs, and never less than
   * twice its share of the concurrency (so it has the next URL at hand). Without it the slot
   * that pulls first holds the whole queue of a crawl smaller than its buffer, and the others
   * have nothing to fetch. One slot may hold everything.
   */
  private holdingCap(view: CrawlJob, ctx: CrawlContext, of: number): number {
    if (of === 1) return Infinity;
    const share = Math.ceil(ctx.options.config.fetch.concurrency / of);
    return Math.max(2 * share, Math.ceil(progressOf(view).queued / of));
  }

  /** What a slot holds now (the run's dispatched URLs marked as the slot's). */
  held(tx: Tx, view: CrawlJob, slot: number): Promise<Dispatchable[]> {
    return this.frontier.dispatched(tx, view.runId, slot);
  }

  /**
   * The answer to a pull of a slot's current holder: its share of the crawl's concurrency, and
   * the hosts still waiting out a Retry-After. A host's 429 reaches the crawl with the pull of the
   * holder that heard it; every other holder of the crawl hears of it at its next pull, so the
   * URLs of that host it already holds wait too (without it they would be fetched until that
   * holder met a 429 of its own). Without a politeness delay the crawl's clock of a host is
   * only ever a Retry-After; with one it is the delay's pace, kept by the crawl (one URL of a
   * host handed out at a time), and the one holder heard any 429 itself.
   */
  answer(state: 'go' | 'stop', ctx: CrawlContext, urls: Dispatchable[], view: CrawlJob): LeaseAnswer {
    const of = Math.max(1, leasesOf(view).length);
    const now = Date.now();
    const hostWaits = Object.entries(stateOf(view).hostNextAt ?? {})
      .filter(([, t]) => t > now)
      .map(([host, t]) => ({ host, waitMs: Math.min(MAX_HOST_WAIT_MS, t - now) }));
    const waits = hostWaits.map((w) => w.waitMs);
    return {
      state,
      urls: urls.map((row) => ({
        position: row.position,
        url: row.url,
        attempt: row.attempts,
        robotsDisallowed: ctx.robots !== null && !ctx.robots.isAllowed(row.url),
        seed: row.foundVia === 'seed',
        dispatchedBefore: row.dispatchedBefore === true,
      })),
      perHost: ctx.delayMs > 0 ? 1 : Math.ceil(ctx.options.config.fetch.concurrency / of),
      maxInFlight: Math.ceil(this.settings.maxInFlight / of),
      pullAgainMs: Math.max(20, Math.min(IDLE_PULL_MS, ...waits)),
      hostWaits: ctx.delayMs > 0 ? [] : hostWaits,
      leaseMs: this.leaseMs,
    };
  }
}
