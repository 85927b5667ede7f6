import type { Bus } from '@tidemark/bus';
import { crawlRequestSchema, type CrawlPageResultMessage } from '@tidemark/contracts';
import type { Logger } from '@tidemark/telemetry';
import type { CrawlJob, CrawlJobRepository } from '../repositories/crawl-job.repository.js';
import type { Dispatchable, FrontierRepository, Tx } from '../repositories/frontier.repository.js';
import { resolveCrawl } from './crawl-options.js';
import { CrawlContexts, type CrawlContext } from './engine/crawl-context.js';
import { crawlEnding } from './engine/crawl-end.js';
import { CrawlEvents } from './engine/crawl-events.js';
import { ENDED, logLine, progressOf, stateOf, type CrawlEnd } from './engine/crawl-state.js';
import type { Discovered, DiscoveryPort } from './engine/discovery-port.js';
import { Dispatcher } from './engine/dispatcher.js';
import { KeyedBatches } from './engine/keyed-batches.js';
import { ResultSettler } from './engine/result-settler.js';
import {
  answerOnly,
  CrawlLeases,
  isQueued,
  LEASE_CONSUMER,
  leasesOf,
  type LeaseAnswer,
  type LeasePull,
  waitsInQueue,
} from './engine/crawl-leases.js';
import { Seeder } from './engine/seeder.js';
import { FrontierStatistics } from '../frontier/frontier-statistics.js';

export interface EngineSettings {
  userAgent: string;
  /** A dispatched page with no answer for this long is dispatched again (its work was lost). */
  staleMs: number;
  /** Most pages of one crawl in flight at once, whatever the hosts. */
  maxInFlight: number;
  /**
   * How long a step may wait for more of its crawl's results, from the first one's arrival, while
   * fewer than half its pages in flight are back. A step is ~8 statements whatever it settles: on
   * a busy crawl, steps of one or two pages made most of its PostgreSQL work, and the CPU that
   * took was what the pages waited for (docs/performance.md, eighth round).
   */
  settleLingerMs: number;
  /** crawl.page: one message per this many pages, or every `pageEventMs`. */
  pageEventEvery: number;
  pageEventMs: number;
  /** A rate-limited page waits this long when the host named no Retry-After. */
  defaultRetryAfterMs: number;
  discoveryTimeoutMs: number;
  /**
   * paged: one work.scrape.crawl message a URL, results back on work.crawl.pages (ADR 13).
   * leased: one scrape worker holds the crawl's lease and trades with it in bulk (ADR 14).
   */
  engine: 'paged' | 'leased';
  /** A lease slot's URLs at most (leased): in flight at its worker and waiting there. */
  leaseBuffer: number;
  /** Lease slots a crawl without a politeness delay opens (leased): workers that may share it. */
  leaseSlots: number;
}

/** Most results settled in one step (one transaction). */
const MAX_SETTLE_BATCH = 200;
/**
 * A crawl whose results settled here this recently is not ticked: its steps already dispatch,
 * publish crawl.page and end it. (A tick is a locked transaction of its own; ticking a busy
 * crawl four times a second was a quarter of a crawl's statements.)
 */
const STEPPED_RECENTLY_MS = 1000;
/** How often the ticker looks whether a crawl's deferred lease slot may go out (a nudge looks at once). */
const DEFERRED_LOOK_MS = 1000;
/**
 * Times in a row a slot whose lease message left the work queue untaken goes out again. A
 * message that every worker gives up on at once would otherwise go round for ever; past this
 * the crawl is left to the watchdog, which ends it with its reason.
 */
const MAX_REQUEUED = 3;
/** How long one answer of JetStream's count of leases waiting untaken serves every crawl's tick. */
const LEASE_QUEUE_LOOK_MS = 1000;

/**
 * The crawl loop, shared by every crawl worker: each step runs inside the run's advisory lock,
 * reads the frontier from PostgreSQL and leaves it there, so workers can come and go (a killed
 * one loses nothing: its unacked messages are redelivered and every step is idempotent).
 * Dispatch messages are published inside the transaction with a deterministic message id, so a
 * step retried after a crash publishes nothing twice (JetStream drops the duplicate).
 *
 * This class coordinates the steps; each part does one job, in engine/: the seeder (robots,
 * sitemaps, the first URLs), the result settler (retries, rows, counts, links), the dispatcher
 * (what goes out, what comes in, what is dropped), the events (crawl.*, the hand-over to diff).
 */
export class CrawlEngine {
  private readonly contexts: CrawlContexts;
  private readonly events: CrawlEvents;
  private readonly dispatcher: Dispatcher;
  private readonly settler: ResultSettler;
  private readonly seeder: Seeder;
  private readonly leases: CrawlLeases;
  private readonly batches: KeyedBatches<{ msg: CrawlPageResultMessage; note?: string }>;
  /**
   * Pages of each crawl in flight after this process's last dispatch for it: how many results a
   * step may still expect (a hint; a crawl not dispatched here expects one and never waits).
   */
  private readonly inFlight = new Map<string, number>();
  /** A crawl's run and workspace never change: read once per crawl, not once per step. */
  private readonly runs = new Map<string, Pick<CrawlJob, 'id' | 'runId' | 'workspaceId'>>();
  /**
   * When each crawl last settled results in this process, for crawls that wait on no clock (no
   * politeness delay, no Retry-After pending): what the ticker may skip.
   */
  private readonly steppedAt = new Map<string, number>();
  /** When the ticker last looked at each crawl's deferred lease slots in this process. */
  private readonly deferredLookedAt = new Map<string, number>();
  /** Whether leases wait in the work queue untaken, as JetStream last said (leasesWaiting). */
  private leaseQueue: { at: number; waiting: Promise<boolean> } | null = null;

  constructor(
    private readonly jobs: CrawlJobRepository,
    private readonly frontier: FrontierRepository,
    private readonly bus: Bus,
    discovery: DiscoveryPort,
    private readonly settings: EngineSettings,
    private readonly logger: Logger,
  ) {
    this.contexts = new CrawlContexts(settings.userAgent);
    this.events = new CrawlEvents(jobs, frontier, bus, this.contexts, logger);
    this.dispatcher = new Dispatcher(
      jobs,
      frontier,
      bus,
      settings.maxInFlight,
      new FrontierStatistics(() => frontier.analyze(), logger),
    );
    this.settler = new ResultSettler(jobs, frontier, this.dispatcher, settings);
    this.leases = new CrawlLeases(jobs, frontier, bus, this.dispatcher, settings);
    this.seeder = new Seeder(jobs, frontier, discovery, this.events, settings.discoveryTimeoutMs, logger);
    this.batches = new KeyedBatches((items) => this.settleStep(items), MAX_SETTLE_BATCH, {
      ms: settings.settleLingerMs,
      enough: (jobId) => Math.ceil((this.inFlight.get(jobId) ?? 1) / 2),
    });
  }

  /** work.crawl.start: robots and sitemaps, the seed, the first dispatch. */
  async start(jobId: string, lastTry = true): Promise<void> {
    const job = await this.jobs.findById(jobId);
    if (!job || ENDED.has(job.status)) return;
    const state = stateOf(job);
    const request = crawlRequestSchema.parse(job.request);
    const scope = resolveCrawl(request).config.scope;
    // A re-crawl fetches its listed URLs alone: robots.txt is read, no sitemap or feed.
    const recrawl = state.recrawlUrls ?? null;
    const useSitemap = scope.use_sitemap && !recrawl;
    let discovered: Discovered | null = null;
    if (!state.started && (scope.respect_robots || useSitemap)) {
      discovered = await this.seeder.discover(job, request, scope, useSitemap, lastTry);
      if (!discovered) return;
    }
    const started = await this.frontier.locked(job.runId, async (tx) => {
      const view = (await this.jobs.lockedView(tx, job.id))!;
      if (stateOf(view).started || ENDED.has(view.status)) return null; // a redelivered start
      const robots = {
        robotsTxt: discovered?.robotsTxt ?? '',
        robotsStatus: discovered ? discovered.robotsStatus : 404,
      };
      const ctx = this.contexts.of(view, robots);
      const seeded = await this.seeder.seed(tx, view, ctx, discovered, recrawl, useSitemap);
      const { total } = seeded;
      let first: CrawlJob;
      if (this.settings.engine === 'leased') first = await this.leases.openAll(tx, seeded.job, ctx);
      else {
        const dispatched = await this.dispatcher.dispatch(tx, seeded.job, ctx);
        remember(this.inFlight, job.id, dispatched.inFlight);
        first = dispatched.job;
      }
      return this.events.jobEvent(first, {
        done: 0,
        total,
        queued: total,
      });
    });
    if (started) await this.events.started(job, started);
  }

  /**
   * work.crawl.pages: pages of one crawl settled. They settle in one step, with results of the
   * crawl that arrive while its step runs. Resolves when every page's step has committed: the
   * message is acked only then.
   */
  async settle(pages: CrawlPageResultMessage[]): Promise<void> {
    await this.batches.addAll(
      pages[0]!.jobId,
      pages.map((msg) => ({ msg })),
    );
  }

  /**
   * A lease holder's pull (ADR 14), one step under the run's lock: the pages it settled are
   * settled, URLs it gave back queued again, and it is handed the next URLs up to its buffer (all
   * it holds when it is new or lost an answer). A pull of a holder that lost the lease changes
   * nothing.
   */
  async pull(pull: LeasePull): Promise<LeaseAnswer> {
    const job = await this.runOf(pull.jobId);
    if (!job) return answerOnly('ended');
    let answer = answerOnly('ended');
    let taken = false;
    const ended = await this.frontier.locked(
      job.runId,
      async (tx, read): Promise<CrawlEnd | null> => {
        let view = this.jobs.fromView(read);
        if (!view) return null;
        if (!this.leases.holds(view, pull)) {
          answer = answerOnly('lost');
          return null;
        }
        // The lease's first pull: it no longer waits in the work queue (see nudgeDeferred).
        taken = isQueued(leasesOf(view)[pull.slot]);
        const newHolder = this.leases.isNewHolder(view, pull);
        // A newer holder while the current one's lease runs: nothing changes (a new holder has
        // nothing to hand back), and it asks again.
        const waitMs = newHolder ? this.leases.waitForSlot(view, pull) : 0;
        if (waitMs > 0) {
          answer = this.leases.waitAnswer(waitMs);
          return null;
        }
        const ctx = await this.contextOf(tx, view);
        if (pull.results.length) view = (await this.settler.settle(tx, view, ctx, pull.results)) ?? view;
        if (pull.returned.length) view = await this.leases.takeBack(tx, view, pull.returned);
        view = await this.leases.touch(tx, view, pull);
        view = await this.cutSilentSlots(tx, view, ctx);
        view = await this.leases.publishDeferred(tx, view, ctx);
        const state = stateOf(view);
        const stopping = view.status !== 'running' || state.budgetHit || state.creditsExhausted === true;
        let urls: Dispatchable[] = [];
        if (!stopping && !pull.release) {
          const filled = await this.leases.fill(tx, view, ctx, pull.slot);
          view = filled.job;
          urls = filled.urls;
        }
        if (pull.handOver && !stopping) view = await this.leases.handOver(tx, view, ctx, pull);
        else if (pull.resync || newHolder) urls = await this.leases.held(tx, view, pull.slot);
        remember(this.steppedAt, job.id, Date.now());
        const end = await this.advance(tx, view, ctx);
        answer = end ? answerOnly('ended') : this.leases.answer(stopping ? 'stop' : 'go', ctx, urls, view);
        return end;
      },
      false,
      this.jobs.viewQuery(job.id),
    );
    if (ended) {
      this.steppedAt.delete(job.id);
      await this.events.publishEnd(job, ended);
    }
    if (taken) this.nudgeDeferred(job.workspaceId);
    return answer;
  }

  /**
   * A workspace's waiting lease was taken: its oldest deferred slot goes out now rather than at
   * its crawl's next tick (a tick a lease, 250 ms, would pace a workspace's crawls started
   * together on an idle fleet). Not awaited: the pull's answer does not wait for another crawl's
   * step; a nudge that fails or finds the crawl's lock taken leaves it to the ticker.
   */
  private nudgeDeferred(workspaceId: string): void {
    void (async () => {
      const next = await this.jobs.oldestDeferred(workspaceId);
      if (next) await this.tick(next.id, next.runId, true);
    })().catch((err: unknown) => this.logger.warn({ err, workspaceId }, 'a deferred lease waits for the ticker'));
  }

  /**
   * A page of work.crawl.pages given up after its last redelivery (its settle step kept failing): the page
   * settles as scrape answered, without its links (taking them in is what may have failed), with
   * a line in the crawl's log; the crawl goes on.
   */
  async settleGivenUp(msg: CrawlPageResultMessage, reason: string): Promise<void> {
    await this.settleStep([{ msg: { ...msg, links: [], gaveUp: true }, note: `${msg.position}: ${reason}` }]);
  }

  private async settleStep(items: { msg: CrawlPageResultMessage; note?: string }[]): Promise<void> {
    const job = await this.runOf(items[0]!.msg.jobId);
    if (!job) return;
    // The job is read in the round trip that takes the run's lock (the step's first).
    const ended = await this.frontier.locked(
      job.runId,
      (tx, read) => this.step(tx, job, this.jobs.fromView(read), items),
      false,
      this.jobs.viewQuery(job.id),
    );
    if (ended) {
      this.steppedAt.delete(job.id);
      this.inFlight.delete(job.id);
      await this.events.publishEnd(job, ended);
    }
  }

  /** One settle step under the run's lock: the results settled, then what may go dispatched. */
  private async step(
    tx: Tx,
    job: Pick<CrawlJob, 'id'>,
    view: CrawlJob | null,
    items: { msg: CrawlPageResultMessage; note?: string }[],
  ): Promise<CrawlEnd | null> {
    if (!view) return null;
    const ctx = await this.contextOf(tx, view);
    const note = items.find((i) => i.note)?.note;
    const after = await this.settler.settle(
      tx,
      view,
      ctx,
      items.map((i) => i.msg),
      note,
    );
    if (!after) return null;
    const now = Date.now();
    const waitsOnClock = ctx.delayMs > 0 || Object.values(stateOf(after).hostNextAt ?? {}).some((t) => t > now);
    if (waitsOnClock) this.steppedAt.delete(job.id);
    else {
      remember(this.steppedAt, job.id, now);
    }
    return this.advance(tx, after, ctx);
  }

  /**
   * Ends a crawl or run that cannot go on, as an error with the reason: its start was given up,
   * or (`stalledMs` given) the watchdog found it has not moved for that long. Under the run's lock
   * (taken only if free: a step that runs is progress) and only if it is still open and, for the
   * watchdog, still stalled and not waiting for a time a site named; URLs not fetched are counted.
   * Answers whether it ended the job (two watchdogs never both do).
   */
  async fail(job: { id: string; runId: string }, reason: string, stalledMs: number | null = null): Promise<boolean> {
    const ended = await this.frontier.locked(
      job.runId,
      async (tx): Promise<CrawlEnd | null> => {
        const view = await this.jobs.lockedView(tx, job.id);
        if (!view || ENDED.has(view.status)) return null;
        if (stalledMs !== null) {
          if (!(await this.jobs.stillStalled(tx, view.id, stalledMs))) return null;
          if (await this.frontier.waitingOnSite(tx, view.runId)) return null;
          if (await this.waitsItsTurn(tx, view, stalledMs)) return null;
        }
        const dropped = await this.frontier.dropOpen(tx, view.runId, true);
        const unfetched = dropped.queued + dropped.dispatched;
        const progress = { ...progressOf(view), queued: 0 };
        const error = unfetched ? `${reason}; ${unfetched} URLs not fetched` : reason;
        const failed = await this.jobs.update(tx, view, {
          status: 'error',
          stop: 'error',
          error,
          progress,
          ...(unfetched ? { addCounts: { unfetched } } : {}),
          state: { log: logLine(stateOf(view), error) },
        });
        return { kind: 'crawl.failed', job: failed };
      },
      stalledMs !== null,
    );
    if (ended) await this.events.publishEnd(ended.job, ended);
    return ended !== null;
  }

  /**
   * Whether a quiet crawl is waiting for its workspace's turn in the work queue rather than
   * stalled: it holds a deferred slot (CrawlLeases.open), and another crawl of the workspace has
   * a lease waiting there or ended within the stall time (a lease lost before any worker took it
   * ends its crawl at the watchdog, this sweep or another worker's). Its slot goes out at its
   * next tick once no lease of the workspace waits. A deferred crawl quiet with nothing ahead of
   * it is stalled like any other.
   */
  private async waitsItsTurn(tx: Tx, view: CrawlJob, stalledMs: number): Promise<boolean> {
    if (!leasesOf(view).some((lease) => lease?.deferredAt !== undefined)) return false;
    const others = await this.jobs.workspaceLeases(tx, view.workspaceId, view.id);
    if (others.some(waitsInQueue)) return true;
    return this.jobs.endedSince(tx, view.workspaceId, view.id, stalledMs);
  }

  /** Cancels: nothing more is dispatched, queued URLs are not fetched; pages in flight finish. */
  async cancel(job: CrawlJob): Promise<boolean> {
    const cancelled = await this.frontier.locked(job.runId, async (tx) => {
      const view = (await this.jobs.lockedView(tx, job.id))!;
      if (ENDED.has(view.status)) return null;
      const dropped = await this.frontier.cancelQueued(tx, view.runId);
      const progress = progressOf(view);
      progress.queued = Math.max(0, progress.queued - dropped);
      return this.jobs.update(tx, view, {
        status: 'cancelled',
        stop: 'cancelled',
        progress,
        state: { log: logLine(stateOf(view), `cancelled; ${dropped} queued URLs dropped`) },
      });
    });
    if (cancelled) await this.events.publishEnd(cancelled, { kind: 'crawl.completed', job: cancelled });
    return cancelled !== null;
  }

  /**
   * The ticker's step for one crawl: what no message will trigger — a delay or Retry-After that
   * has passed, crawl.page every few seconds, work lost with a dead scrape worker, the end.
   */
  async tick(jobId: string, runId: string, nudged = false): Promise<void> {
    const stepped = this.steppedAt.get(jobId);
    if (!nudged && stepped !== undefined && Date.now() - stepped < STEPPED_RECENTLY_MS) return;
    let workspaceId = '';
    const ended = await this.frontier.locked(
      runId,
      async (tx) => {
        let view = await this.jobs.lockedView(tx, jobId);
        if (!view || view.status !== 'running') return null;
        workspaceId = view.workspaceId;
        const ctx = await this.contextOf(tx, view);
        if (!leasesOf(view).length) view = await this.settler.recoverLost(tx, view, ctx);
        else {
          view = await this.cutSilentSlots(tx, view, ctx);
          // A deferred slot is looked at by a nudge at once; the ticker's look is the fallback,
          // once a second (it reads the workspace's running crawls).
          const lookedAt = this.deferredLookedAt.get(jobId) ?? 0;
          if (nudged || Date.now() - lookedAt >= DEFERRED_LOOK_MS) {
            remember(this.deferredLookedAt, jobId, Date.now());
            view = await this.leases.publishDeferred(tx, view, ctx);
          }
        }
        return this.advance(tx, view, ctx);
      },
      true,
    );
    if (ended && workspaceId) await this.events.publishEnd({ workspaceId }, ended);
  }

  /**
   * A lease slot whose holder went silent (a worker wedged, or the lease message given up): what
   * it held counts as lost work, as a paged crawl's unanswered pages do (queued again, for any
   * slot to take), and a new generation goes out; a pull of the old holder is refused from now
   * on. Looked at by the ticker and by every pull (the other slots' pulls keep the ticker off a
   * crawl).
   *
   * A slot nobody has taken yet is waiting for a free worker, however long, while leases wait in
   * the work queue. Published that long ago with none waiting there, its message left the queue
   * untaken (purged, or given up by the workers at once): it holds nothing, and a new generation
   * goes out, at most MAX_REQUEUED times in a row. A worker that took the old message meanwhile
   * is refused as an older generation's holder. A deferred slot waits for its workspace's turn.
   */
  private async cutSilentSlots(tx: Tx, current: CrawlJob, ctx: CrawlContext): Promise<CrawlJob> {
    let view = current;
    for (const [slot, lease] of leasesOf(view).entries()) {
      if (!lease || lease.deferredAt !== undefined || Date.now() - lease.pulledAt < this.settings.staleMs) continue;
      if (lease.delivery === 0) {
        const requeued = (lease.requeued ?? 0) + 1;
        if (requeued > MAX_REQUEUED || (await this.leasesWaiting())) continue;
        this.logger.warn(
          { jobId: view.id, slot, generation: lease.generation, requeued },
          'a crawl lease left the work queue before any worker took it; it goes out again',
        );
        view = await this.leases.open(tx, view, ctx, slot, lease.generation + 1, requeued);
        continue;
      }
      view = await this.settler.recoverLost(tx, view, ctx, slot);
      view = await this.leases.open(tx, view, ctx, slot, lease.generation + 1);
    }
    return view;
  }

  /**
   * Whether leases wait in the work queue, not yet taken by any worker (JetStream's count for the
   * workers' consumer; one answer serves every crawl's tick for a second). Unknown counts as yes.
   */
  private leasesWaiting(): Promise<boolean> {
    const now = Date.now();
    if (!this.leaseQueue || now - this.leaseQueue.at >= LEASE_QUEUE_LOOK_MS) {
      const waiting = this.bus.consumerInfo(LEASE_CONSUMER).then(
        (info) => info.pending > 0,
        () => true,
      );
      this.leaseQueue = { at: now, waiting };
    }
    return this.leaseQueue.waiting;
  }

  /** Asks diff for the run's change record (a crawl kept after it ended). */
  handToDiff(job: Pick<CrawlJob, 'workspaceId' | 'runId'>): Promise<void> {
    return this.events.handToDiff(job);
  }

  /** The crawl's context: built once per crawl on this worker, its robots.txt read from its run then. */
  private async contextOf(tx: Tx, view: CrawlJob): Promise<CrawlContext> {
    return this.contexts.cached(view.id) ?? this.contexts.of(view, await this.jobs.robotsOf(tx, view));
  }

  /** Dispatches what may go, publishes crawl.page when due, and ends the crawl when nothing is left. */
  private async advance(tx: Tx, current: CrawlJob, ctx: CrawlContext): Promise<CrawlEnd | null> {
    let job = current;
    const stopping = stateOf(job).budgetHit || stateOf(job).creditsExhausted === true;
    // A leased crawl's URLs go out in its holder's pulls.
    if (job.status === 'running' && !stopping && !leasesOf(job).length) {
      const dispatched = await this.dispatcher.dispatch(tx, job, ctx);
      remember(this.inFlight, job.id, dispatched.inFlight);
      job = dispatched.job;
    }
    if (job.status === 'running' && stopping && progressOf(job).queued > 0)
      job = await this.dispatcher.dropUnfetched(tx, job);
    const since = stateOf(job).pagesSinceEvent ?? 0;
    const due =
      since >= this.settings.pageEventEvery ||
      (since > 0 && Date.now() - Date.parse(stateOf(job).lastPageEventAt) >= this.settings.pageEventMs);
    if (due) job = await this.events.publishPages(tx, job);

    // progress.queued is kept step by step; the frontier is counted only to confirm an end.
    if (job.status !== 'running' || progressOf(job).queued > 0) return null;
    if ((await this.frontier.openCount(tx, job.runId)) > 0) return null;
    if (stateOf(job).pagesSinceEvent) job = await this.events.publishPages(tx, job);
    const { status, stop, error } = crawlEnding(stateOf(job), job.counts as Record<string, number>);
    const ended = await this.jobs.update(tx, job, {
      status,
      stop,
      state: { log: logLine(stateOf(job), `ended: ${stop}, ${progressOf(job).done} pages settled`) },
      ...(error ? { error } : {}),
    });
    return { kind: status === 'error' ? 'crawl.failed' : 'crawl.completed', job: ended };
  }

  private async runOf(jobId: string): Promise<Pick<CrawlJob, 'id' | 'runId' | 'workspaceId'> | null> {
    const known = this.runs.get(jobId);
    if (known) return known;
    const job = await this.jobs.findById(jobId);
    if (!job) return null;
    const run = { id: job.id, runId: job.runId, workspaceId: job.workspaceId };
    remember(this.runs, jobId, run);
    return run;
  }
}

/**
 * Sets a per-crawl entry of this process's memory. Crawls that end in another worker leave their
 * entries: past 4096 crawls the oldest entry goes.
 */
const remember = <V>(known: Map<string, V>, jobId: string, value: V): void => {
  if (!known.has(jobId) && known.size >= 4096) known.delete(known.keys().next().value!);
  known.set(jobId, value);
};
