import type { Bus } from '@tidemark/bus';
import {
  crawlRequestSchema,
  type CrawlJobEvent,
  type CrawlPageResultMessage,
  type CrawlRequest,
  type ScrapeCrawlPageMessage,
} from '@tidemark/contracts';
import { robotsFromResponse, type RobotsRules } from '@tidemark/robots';
import type { Logger } from '@tidemark/telemetry';
import { normalizeUrl } from '../frontier/normalize-url.js';
import { CrawlScope } from '../frontier/scope.js';
import type { CrawlJobRepository, CrawlJob, CrawlState } from '../repositories/crawl-job.repository.js';
import type { FrontierRepository, FrontierRow, NewUrl, Tx } from '../repositories/frontier.repository.js';
import { pageRequestFor, resolveCrawl, type CrawlOptions } from './crawl-options.js';

/** Sitemap and feed discovery, answered by the map service. */
export interface DiscoveryPort {
  discover(req: {
    workspaceId: string;
    url: string;
    sitemapMode: string;
    limit: number;
    timeoutMs: number;
    billingReference: string;
    feeds: string[];
    /** robots.txt alone: the crawl uses no sitemap (the home page is the seed's to fetch). */
    robotsOnly: boolean;
  }): Promise<{
    entries: { url: string; source: string; file: string }[];
    robotsTxt: string;
    robotsStatus: number;
    creditsUsed: number;
  }>;
}

export interface EngineSettings {
  userAgent: string;
  /** A dispatched page with no answer for this long is dispatched again (its work was lost). */
  staleMs: number;
  /** Most pages of one crawl in flight at once, whatever the hosts. */
  maxInFlight: number;
  /** crawl.page: one message per this many pages, or every `pageEventMs`. */
  pageEventEvery: number;
  pageEventMs: number;
  /** A rate-limited page waits this long when the host named no Retry-After. */
  defaultRetryAfterMs: number;
  discoveryTimeoutMs: number;
}

/** Everything a worker derives from a crawl's stored request, built once per crawl. */
interface CrawlContext {
  request: CrawlRequest;
  options: CrawlOptions;
  scope: CrawlScope;
  robots: RobotsRules | null;
  delayMs: number;
}

interface SettleQueue {
  waiting: { msg: CrawlPageResultMessage; resolve: () => void; reject: (err: unknown) => void }[];
  running: boolean;
}

const READ_VERDICTS = new Set(['ok', 'thin', 'cached']);
/** First wait before a page that got no answer or a 5xx is tried again (doubling each time). */
const TRANSIENT_RETRY_MS = 1000;
/** Most results settled in one step (one transaction). */
const MAX_SETTLE_BATCH = 200;
const ENDED = new Set(['done', 'error', 'cancelled']);

/**
 * The crawl loop, shared by every crawl worker: each step runs inside the run's advisory lock,
 * reads the frontier from PostgreSQL and leaves it there, so workers can come and go (a killed
 * one loses nothing: its unacked messages are redelivered and every step is idempotent).
 * Dispatch messages are published inside the transaction with a deterministic message id, so a
 * step retried after a crash publishes nothing twice (JetStream drops the duplicate).
 */
export class CrawlEngine {
  private readonly contexts = new Map<string, CrawlContext>();
  /** Results waiting for their crawl's next step, per crawl. */
  private readonly settling = new Map<string, SettleQueue>();
  private readonly runs = new Map<string, Pick<CrawlJob, 'id' | 'runId' | 'workspaceId'>>();

  constructor(
    private readonly jobs: CrawlJobRepository,
    private readonly frontier: FrontierRepository,
    private readonly bus: Bus,
    private readonly discovery: DiscoveryPort,
    private readonly settings: EngineSettings,
    private readonly logger: Logger,
  ) {}

  /** work.crawl.start: robots and sitemaps, the seed, the first dispatch. */
  async start(jobId: string, lastTry = true): Promise<void> {
    const job = await this.jobs.findById(jobId);
    if (!job || ENDED.has(job.status)) return;
    const state = job.result as unknown as CrawlState;
    const request = crawlRequestSchema.parse(job.request);
    const { config } = resolveCrawl(request);
    const scope = config.scope;
    // A re-crawl fetches its listed URLs alone: robots.txt is read, no sitemap or feed.
    const recrawl = state.recrawlUrls ?? null;
    const useSitemap = scope.use_sitemap && !recrawl;
    let discovered: Awaited<ReturnType<DiscoveryPort['discover']>> | null = null;
    if (!state.started && (scope.respect_robots || useSitemap)) {
      discovered = await this.discover(job, request, scope, useSitemap, lastTry);
      if (!discovered) return;
    }

    const events = await this.frontier.locked(job.runId, async (tx) => {
      const view = (await this.jobs.lockedView(tx, job.id))!;
      const current = view.result as unknown as CrawlState;
      if (current.started || ENDED.has(view.status)) return null; // a redelivered start
      const robotsTxt = discovered?.robotsTxt ?? '';
      const robotsStatus = discovered ? discovered.robotsStatus : 404;
      const ctx = this.context(view, { robotsTxt, robotsStatus });
      const seedKey = normalizeUrl(request.url)!;
      const seeds: NewUrl[] = [];
      const skipped: string[] = [];
      // The seed, then url_list (extra URLs fetched every run); a re-crawl: its URLs alone.
      for (const url of recrawl ?? [request.url, ...scope.url_list]) {
        const key = normalizeUrl(url);
        const verdict = key ? ctx.scope.check(new URL(key), 0) : 'other_host';
        if (!key || (verdict !== 'in' && verdict !== 'too_deep' && url !== request.url)) {
          skipped.push(url);
          continue;
        }
        seeds.push({
          key,
          url,
          host: new URL(key).host,
          depth: 0,
          foundVia: 'seed',
          firstReferer: null,
          inSitemap: false,
        });
      }
      const listed: NewUrl[] = [];
      const sitemapKeys: string[] = [];
      let depthReached = false;
      // sitemap_mode skip still lists the home page's feeds (foundVia feed).
      if (discovered && useSitemap) {
        for (const entry of discovered.entries) {
          const key = normalizeUrl(entry.url);
          if (!key) continue;
          if (entry.source === 'sitemap') sitemapKeys.push(key);
          const url = new URL(key);
          const verdict = ctx.scope.check(url, 1);
          if (verdict === 'too_deep') depthReached = true;
          if (verdict !== 'in' || key === seedKey) continue;
          if (entry.source === 'sitemap' && !ctx.scope.takesFromSitemap(url)) continue;
          listed.push({
            key,
            url: entry.url,
            host: url.host,
            depth: 1,
            foundVia: entry.source === 'feed' ? 'feed' : 'sitemap',
            firstReferer: null,
            inSitemap: entry.source === 'sitemap',
          });
        }
      }
      const first = await this.frontier.add(tx, job.runId, seeds, recrawl ? seeds.length : scope.max_pages);
      const room = Math.max(0, scope.max_pages - first.added);
      const { added, overflow } = await this.frontier.add(tx, job.runId, listed, recrawl ? 0 : room);
      await this.frontier.markInSitemap(tx, job.runId, sitemapKeys);
      const total = first.added + added;
      const listedNote = recrawl
        ? ` (a re-crawl of ${first.added} listed pages${skipped.length ? `; ${skipped.length} outside the site left out` : ''})`
        : `${scope.url_list.length ? `, ${first.added - 1} from url_list` : ''}${
            discovered && useSitemap ? `, ${listed.length} more from sitemaps and feeds` : ''
          }${skipped.length ? `; ${skipped.length} listed URLs outside the site left out` : ''}`;
      const robotsNote = discovered ? `; robots.txt answered ${robotsStatus || 'nothing'}` : '';
      const next: Partial<CrawlState> = {
        started: true,
        log: logLine(current, `started from ${request.url}${listedNote}${robotsNote}`),
        robotsTxt,
        robotsStatus,
        limitReached: overflow > 0 || first.overflow > 0,
        depthReached,
        sitemapUrls: sitemapKeys.length,
      };
      const started = await this.jobs.update(tx, view, {
        status: 'running',
        progress: { done: 0, total, queued: total },
        addCredits: discovered?.creditsUsed ?? 0,
        state: next,
      });
      return this.jobEvent(await this.dispatch(tx, started, ctx), { done: 0, total, queued: total });
    });
    if (events)
      await this.bus.publishEvent(job.workspaceId, 'crawl.started', events, { msgId: `${job.id}:crawl.started` });
  }

  /**
   * work.crawl.page: a page settled. Results of one crawl that arrive while its step runs wait and
   * settle together in the next step (one transaction, one dispatch), so the lock a crawl's steps
   * take in turn costs once per batch rather than once per page. Resolves when this page's step
   * has committed: the message is acked only then.
   */
  settle(msg: CrawlPageResultMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      let queue = this.settling.get(msg.jobId);
      if (!queue) this.settling.set(msg.jobId, (queue = { waiting: [], running: false }));
      queue.waiting.push({ msg, resolve, reject });
      if (!queue.running) void this.drainSettling(msg.jobId, queue);
    });
  }

  private async drainSettling(jobId: string, queue: SettleQueue): Promise<void> {
    queue.running = true;
    try {
      while (queue.waiting.length) {
        const batch = queue.waiting.splice(0, MAX_SETTLE_BATCH);
        try {
          await this.settleBatch(batch.map((b) => b.msg));
          for (const b of batch) b.resolve();
        } catch (err) {
          if (batch.length === 1) {
            batch[0]!.reject(err);
            continue;
          }
          // One bad result must not hold back the others: each settles on its own.
          for (const b of batch) await this.settleBatch([b.msg]).then(b.resolve, b.reject);
        }
      }
    } finally {
      queue.running = false;
      if (!queue.waiting.length) this.settling.delete(jobId);
    }
  }

  /**
   * work.crawl.page given up after its last redelivery (its settle step kept failing): the page
   * settles as scrape answered, without its links (taking them in is what may have failed), with
   * a line in the crawl's log; the crawl goes on.
   */
  async settleGivenUp(msg: CrawlPageResultMessage, reason: string): Promise<void> {
    await this.settleBatch([{ ...msg, links: [], gaveUp: true }], `${msg.position}: ${reason}`);
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
      async (tx) => {
        const view = await this.jobs.lockedView(tx, job.id);
        if (!view || ENDED.has(view.status)) return null;
        if (stalledMs !== null) {
          if (!(await this.jobs.stillStalled(tx, view.id, stalledMs))) return null;
          if (await this.frontier.waitingOnSite(tx, view.runId)) return null;
        }
        const dropped = await this.frontier.dropOpen(tx, view.runId, true);
        const unfetched = dropped.queued + dropped.dispatched;
        const progress = { ...(view.progress as { done: number; total: number; queued: number }), queued: 0 };
        const error = unfetched ? `${reason}; ${unfetched} URLs not fetched` : reason;
        const failed = await this.jobs.update(tx, view, {
          status: 'error',
          stop: 'error',
          error,
          progress,
          ...(unfetched ? { addCounts: { unfetched } } : {}),
          state: { log: logLine(view.result as unknown as CrawlState, error) },
        });
        return { kind: 'crawl.failed' as const, job: failed };
      },
      stalledMs !== null,
    );
    if (ended) await this.publishEnd(ended.job, ended);
    return ended !== null;
  }

  private async settleBatch(msgs: CrawlPageResultMessage[], note?: string): Promise<void> {
    const first = msgs[0]!;
    const job = await this.runOf(first.jobId);
    if (!job) return;
    const ended = await this.frontier.locked(job.runId, async (tx) => {
      const view = await this.jobs.lockedView(tx, job.id);
      if (!view) return null;
      const ctx = this.context(view);
      const state = view.result as unknown as CrawlState;
      const progress = { ...(view.progress as { done: number; total: number; queued: number }) };
      const next: Partial<CrawlState> = {};
      const hostNextAt = { ...state.hostNextAt };

      const settling: CrawlPageResultMessage[] = [];
      for (const msg of msgs) {
        // Given up by scrape after its redeliveries: settled as it is, never tried again.
        if (msg.gaveUp) {
          settling.push(msg);
          continue;
        }
        if (msg.errorCode === 'RATE_LIMITED' && view.status === 'running') {
          const page = await this.frontier.at(tx, view.runId, msg.position);
          if (page && page.attempts <= ctx.options.config.advanced.max_retries) {
            const wait = msg.retryAfterMs ?? this.settings.defaultRetryAfterMs;
            const notBefore = new Date(Date.now() + wait);
            if (await this.frontier.requeue(tx, view.runId, msg.position, notBefore)) {
              // Retry-After speaks for the whole host: nothing goes to it before then.
              hostNextAt[page.host] = Math.max(hostNextAt[page.host] ?? 0, notBefore.getTime());
              next.hostNextAt = hostNextAt;
              continue;
            }
          }
        }
        // No answer, or a server error: worth another try or two (the page's own, not the host's).
        const transient =
          msg.errorCode === 'NETWORK' ||
          msg.errorCode === 'TIMEOUT' ||
          (msg.httpStatus !== null && msg.httpStatus >= 500) ||
          (msg.status === 'error' && msg.errorCode === null);
        if (transient && view.status === 'running') {
          const page = await this.frontier.at(tx, view.runId, msg.position);
          if (page && page.attempts <= ctx.options.config.advanced.max_retries) {
            const wait = TRANSIENT_RETRY_MS * 2 ** (page.attempts - 1);
            if (await this.frontier.requeue(tx, view.runId, msg.position, new Date(Date.now() + wait))) continue;
          }
        }
        settling.push(msg);
      }

      const linksOf = (msg: CrawlPageResultMessage) =>
        READ_VERDICTS.has(msg.verdict ?? '') && msg.status === 'done' ? msg.links : [];
      const unique = onePerPage(settling);
      const rows = new Map(
        (
          await this.frontier.settleMany(
            tx,
            view.runId,
            unique.map((msg) => ({
              position: msg.position,
              attempt: msg.attempt,
              verdict: msg.verdict,
              errorCode: msg.errorCode,
              httpStatus: msg.httpStatus,
              outLinks: linksOf(msg).length,
            })),
          )
        ).map((row) => [row.position, row]),
      );
      if (!rows.size && !next.hostNextAt) return null; // every result was settled before (redelivered)

      // Links of a read page grow the frontier while the crawl runs (not after a cancel or a
      // budget stop: nothing new is queued then).
      const growing = view.status === 'running' && !state.budgetHit && !state.creditsExhausted && !state.recrawlUrls;
      const found: { from: FrontierRow; links: string[] }[] = [];
      const addCounts: Record<string, number> = {};
      const engines = { ...state.engines };
      let credits = 0;
      let budgetHit = false;
      let creditsExhausted = false;
      const maxCredits = ctx.options.config.advanced.max_credits;
      for (const msg of unique) {
        const row = rows.get(msg.position);
        if (!row) continue;
        progress.done += 1;
        progress.queued = Math.max(0, progress.queued - 1);
        const key = msg.status === 'error' ? 'error' : (msg.verdict ?? 'error');
        addCounts[key] = (addCounts[key] ?? 0) + 1;
        const method = msg.method ?? 'none';
        engines[method] = (engines[method] ?? 0) + 1;
        credits += msg.credits;
        // The workspace could not pay for it: the crawl stops (a page over maxCredits does not stop it).
        if (msg.creditsExhausted) creditsExhausted = true;
        const links = linksOf(msg);
        if (links.length && growing) found.push({ from: row, links });
      }
      if (maxCredits !== null && view.creditsUsed + credits >= maxCredits) budgetHit = true;
      if (found.length) {
        const grown = await this.grow(tx, view, ctx, found, progress.total);
        progress.total += grown.added;
        progress.queued += grown.added;
        if (grown.overflow) next.limitReached = true;
        if (grown.tooDeep) next.depthReached = true;
      }
      if (budgetHit) next.budgetHit = true;
      if (note) next.log = logLine(state, `page ${note}`);
      if (creditsExhausted && !state.creditsExhausted) {
        next.creditsExhausted = true;
        next.log = logLine({ log: next.log ?? state.log }, "the workspace's credits ran out: nothing more is fetched");
      }
      if (rows.size) next.engines = engines;
      next.pagesSinceEvent = (state.pagesSinceEvent ?? 0) + rows.size;
      const after = await this.jobs.update(tx, view, {
        progress,
        addCredits: credits,
        ...(rows.size ? { addCounts } : {}),
        state: next,
      });
      return this.advance(tx, after, ctx);
    });
    if (ended) await this.publishEnd(job, ended);
  }

  /** A crawl's run and workspace never change: read once per crawl, not once per step. */
  private async runOf(jobId: string): Promise<Pick<CrawlJob, 'id' | 'runId' | 'workspaceId'> | null> {
    const known = this.runs.get(jobId);
    if (known) return known;
    const job = await this.jobs.findById(jobId);
    if (!job) return null;
    const run = { id: job.id, runId: job.runId, workspaceId: job.workspaceId };
    if (this.runs.size >= 4096) this.runs.delete(this.runs.keys().next().value!);
    this.runs.set(jobId, run);
    return run;
  }

  /**
   * Robots and sitemaps through the map service. A failure is retried with the start message;
   * on its last try the crawl fails with the reason rather than crawl blind.
   */
  private async discover(
    job: CrawlJob,
    request: CrawlRequest,
    scope: CrawlOptions['config']['scope'],
    useSitemap: boolean,
    lastTry: boolean,
  ): Promise<Awaited<ReturnType<DiscoveryPort['discover']>> | null> {
    try {
      return await this.discovery.discover({
        workspaceId: job.workspaceId,
        url: request.url,
        sitemapMode: useSitemap ? scope.sitemap_mode : 'skip',
        robotsOnly: !useSitemap,
        limit: Math.min(50_000, scope.max_pages * 2),
        timeoutMs: this.settings.discoveryTimeoutMs,
        billingReference: `crawl:${job.id}`,
        feeds: useSitemap ? scope.feeds : [],
      });
    } catch (err) {
      if (!lastTry) throw err;
      this.logger.error({ err, jobId: job.id }, 'discovery failed; the crawl fails');
      const failed = await this.frontier.locked(job.runId, async (tx) => {
        const view = (await this.jobs.lockedView(tx, job.id))!;
        if (ENDED.has(view.status)) return null;
        const error = `robots.txt and sitemaps could not be read: ${(err as Error).message}`;
        await this.jobs.update(tx, view, {
          status: 'error',
          stop: 'error',
          error,
          state: { log: logLine(view.result as unknown as CrawlState, error) },
        });
        return { ...view, status: 'error', stop: 'error' } as CrawlJob;
      });
      if (failed) await this.publishEnd(failed, { kind: 'crawl.failed', job: failed });
      return null;
    }
  }

  /** Cancels: nothing more is dispatched, queued URLs are not fetched; pages in flight finish. */
  async cancel(job: CrawlJob): Promise<boolean> {
    const cancelled = await this.frontier.locked(job.runId, async (tx) => {
      const view = (await this.jobs.lockedView(tx, job.id))!;
      if (ENDED.has(view.status)) return null;
      const dropped = await this.frontier.cancelQueued(tx, view.runId);
      const progress = { ...(view.progress as { done: number; total: number; queued: number }) };
      progress.queued = Math.max(0, progress.queued - dropped);
      return this.jobs.update(tx, view, {
        status: 'cancelled',
        stop: 'cancelled',
        progress,
        state: { log: logLine(view.result as unknown as CrawlState, `cancelled; ${dropped} queued URLs dropped`) },
      });
    });
    if (cancelled) await this.publishEnd(cancelled, { kind: 'crawl.completed', job: cancelled });
    return cancelled !== null;
  }

  /**
   * The ticker's step for one crawl: what no message will trigger — a delay or Retry-After that
   * has passed, crawl.page every few seconds, work lost with a dead scrape worker, the end.
   */
  async tick(jobId: string, runId: string): Promise<void> {
    let workspaceId = '';
    const ended = await this.frontier.locked(
      runId,
      async (tx) => {
        let view = await this.jobs.lockedView(tx, jobId);
        if (!view || view.status !== 'running') return null;
        workspaceId = view.workspaceId;
        const ctx = this.context(view);
        view = await this.recoverLost(tx, view, ctx);
        return this.advance(tx, view, ctx);
      },
      true,
    );
    if (ended && workspaceId) await this.publishEnd({ workspaceId } as CrawlJob, ended);
  }

  /**
   * Pages dispatched and unanswered for `staleMs` (their work was lost): each counts as an
   * attempt, so one is dispatched again while it has tries left (`max_retries`) and is settled
   * as an error with nothing stored once it has none, rather than going round for ever.
   */
  private async recoverLost(tx: Tx, view: CrawlJob, ctx: CrawlContext): Promise<CrawlJob> {
    const stale = await this.frontier.stale(tx, view.runId, this.settings.staleMs);
    if (!stale.length) return view;
    const maxRetries = ctx.options.config.advanced.max_retries;
    const spent = stale.filter((row) => row.attempts > maxRetries);
    let again = 0;
    for (const row of stale)
      if (row.attempts <= maxRetries && (await this.frontier.requeue(tx, view.runId, row.position, new Date())))
        again++;
    const settled = await this.frontier.settleMany(
      tx,
      view.runId,
      spent.map((row) => ({
        position: row.position,
        attempt: row.attempts,
        verdict: null,
        errorCode: null,
        httpStatus: null,
        outLinks: 0,
      })),
    );
    const progress = { ...(view.progress as { done: number; total: number; queued: number }) };
    progress.done += settled.length;
    progress.queued = Math.max(0, progress.queued - settled.length);
    const state = view.result as unknown as CrawlState;
    const minutes = Math.round(this.settings.staleMs / 60_000);
    const note = [
      again ? `${again} pages unanswered for ${minutes} min dispatched again` : '',
      settled.length ? `${settled.length} pages unanswered after ${maxRetries + 1} tries given up` : '',
    ].filter(Boolean);
    // Written even when only requeued: the job moved, so the watchdog sees progress.
    return this.jobs.update(tx, view, {
      progress,
      ...(settled.length ? { addCounts: { error: settled.length } } : {}),
      state: { log: logLine(state, note.join('; ') || 'lost pages looked at') },
    });
  }

  /** Dispatches what may go, publishes crawl.page when due, and ends the crawl when nothing is left. */
  private async advance(
    tx: Tx,
    current: CrawlJob,
    ctx: CrawlContext,
  ): Promise<{ kind: 'crawl.completed' | 'crawl.failed'; job: CrawlJob } | null> {
    let job = current;
    const stateOf = () => job.result as unknown as CrawlState;
    const stopping = stateOf().budgetHit || stateOf().creditsExhausted === true;
    if (job.status === 'running' && !stopping) job = await this.dispatch(tx, job, ctx);
    if (job.status === 'running' && stopping && (job.progress as { queued: number }).queued > 0)
      job = await this.dropUnfetched(tx, job);
    const since = stateOf().pagesSinceEvent ?? 0;
    const due =
      since >= this.settings.pageEventEvery ||
      (since > 0 && Date.now() - Date.parse(stateOf().lastPageEventAt) >= this.settings.pageEventMs);
    if (due) job = await this.publishPages(tx, job);

    // progress.queued is kept step by step; the frontier is counted only to confirm an end.
    if (job.status !== 'running' || (job.progress as { queued: number }).queued > 0) return null;
    if ((await this.frontier.openCount(tx, job.runId)) > 0) return null;
    if (stateOf().pagesSinceEvent) job = await this.publishPages(tx, job);
    const state = stateOf();
    const counts = job.counts as Record<string, number>;
    const read = (counts.ok ?? 0) + (counts.thin ?? 0) + (counts.cached ?? 0);
    const failed = read === 0 && (counts.error ?? 0) + (counts.blocked ?? 0) > 0;
    const stop = state.creditsExhausted
      ? 'credits_exhausted'
      : failed
        ? 'error'
        : state.budgetHit
          ? 'budget'
          : state.limitReached
            ? 'limit'
            : state.depthReached
              ? 'depth'
              : 'exhausted';
    const status = failed ? 'error' : 'done';
    const ended = await this.jobs.update(tx, job, {
      status,
      stop,
      state: { log: logLine(state, `ended: ${stop}, ${(job.progress as { done: number }).done} pages settled`) },
      ...(failed
        ? {
            error: state.creditsExhausted
              ? "no page of the crawl could be read: the workspace's credits ran out"
              : 'no page of the crawl could be read',
          }
        : {}),
    });
    return { kind: failed ? 'crawl.failed' : 'crawl.completed', job: ended };
  }

  /**
   * The crawl stops for money (its max_credits, or the workspace's credits): URLs still queued
   * are not fetched (nor billed). Their rows become `unfetched` and `counts.unfetched` counts
   * them; pages in flight settle as they come back, then the crawl ends.
   */
  private async dropUnfetched(tx: Tx, job: CrawlJob): Promise<CrawlJob> {
    const { queued } = await this.frontier.dropOpen(tx, job.runId);
    const progress = { ...(job.progress as { done: number; total: number; queued: number }) };
    progress.queued = Math.max(0, progress.queued - queued);
    if (!queued) return this.jobs.update(tx, job, { progress });
    const state = job.result as unknown as CrawlState;
    return this.jobs.update(tx, job, {
      progress,
      addCounts: { unfetched: queued },
      state: {
        log: logLine(
          state,
          `${queued} queued URLs not fetched (${state.creditsExhausted ? "the workspace's credits ran out" : "the run's max_credits was reached"})`,
        ),
      },
    });
  }

  /**
   * Adds the in-scope links of settled pages to the frontier (the first page to link a URL is its
   * referer) and counts in-links: each page counts once for each URL it links.
   */
  private async grow(
    tx: Tx,
    job: CrawlJob,
    ctx: CrawlContext,
    found: { from: FrontierRow; links: string[] }[],
    total: number,
  ): Promise<{ added: number; overflow: number; tooDeep: boolean }> {
    const inLinks = new Map<string, number>();
    const fresh = new Map<string, NewUrl>();
    let tooDeep = false;
    const config = ctx.options.config.scope;
    const followLinks = config.sitemap_mode !== 'only' || !config.use_sitemap;
    for (const { from, links } of found) {
      const keys = new Map<string, string>();
      for (const link of links) {
        const key = normalizeUrl(link);
        if (key && key !== from.urlKey && !keys.has(key)) keys.set(key, link);
      }
      for (const [key, link] of keys) {
        inLinks.set(key, (inLinks.get(key) ?? 0) + 1);
        if (!followLinks || fresh.has(key)) continue;
        const url = new URL(key);
        const verdict = ctx.scope.check(url, from.depth + 1);
        if (verdict === 'too_deep') tooDeep = true;
        if (verdict !== 'in') continue;
        fresh.set(key, {
          key,
          url: link.split('#')[0]!,
          host: url.host,
          depth: from.depth + 1,
          foundVia: 'link',
          firstReferer: from.url,
          inSitemap: false,
        });
      }
    }
    const room = config.max_pages - total;
    const grown = await this.frontier.add(tx, job.runId, [...fresh.values()], room);
    await this.frontier.countInLinks(tx, job.runId, inLinks);
    return { ...grown, tooDeep };
  }

  /** Hands out the next URLs within the crawl's concurrency and each host's politeness. */
  private async dispatch(tx: Tx, job: CrawlJob, ctx: CrawlContext): Promise<CrawlJob> {
    const perHost = ctx.options.config.fetch.concurrency;
    const inFlight = await this.frontier.inFlight(tx, job.runId);
    let busy = [...inFlight.values()].reduce((a, b) => a + b, 0);
    const room = this.settings.maxInFlight - busy;
    if (room <= 0) return job;
    const candidates = await this.frontier.nextQueued(
      tx,
      job.runId,
      ctx.options.config.scope.crawl_mode,
      Math.min(room * 4, 1000),
    );
    if (!candidates.length) return job;
    const state = job.result as unknown as CrawlState;
    const hostNextAt = { ...state.hostNextAt };
    const now = Date.now();
    const picked: FrontierRow[] = [];
    for (const row of candidates) {
      if (busy >= this.settings.maxInFlight) break;
      const n = inFlight.get(row.host) ?? 0;
      if (n >= (ctx.delayMs > 0 ? 1 : perHost)) continue;
      if ((hostNextAt[row.host] ?? 0) > now) continue;
      if (ctx.delayMs > 0) hostNextAt[row.host] = now + ctx.delayMs;
      inFlight.set(row.host, n + 1);
      busy += 1;
      picked.push(row);
    }
    if (!picked.length) return job;
    await this.frontier.markDispatched(
      tx,
      job.runId,
      picked.map((r) => r.position),
    );
    const after = ctx.delayMs > 0 ? await this.jobs.update(tx, job, { state: { hostNextAt } }) : job;
    await Promise.all(
      picked.map((row) => {
        const msg: ScrapeCrawlPageMessage = {
          jobId: job.id,
          runId: job.runId,
          workspaceId: job.workspaceId,
          position: row.position,
          url: row.url,
          request: pageRequestFor(ctx.options, row.foundVia === 'seed'),
          attempt: row.attempts,
          robotsDisallowed: ctx.robots !== null && !ctx.robots.isAllowed(row.url),
        };
        return this.bus.publishWork('work.scrape.crawl', msg, {
          msgId: `${job.id}:${row.position}:${row.attempts}:fetch`,
        });
      }),
    );
    return after;
  }

  /** crawl.page: the pages settled since the last message. */
  private async publishPages(tx: Tx, job: CrawlJob): Promise<CrawlJob> {
    const state = job.result as unknown as CrawlState;
    const rows = await this.frontier.settledPage(job.runId, state.pageEventCursor ?? null, 1000, tx);
    if (!rows.length) return job;
    const last = rows.at(-1)!;
    const event: CrawlJobEvent = {
      ...this.jobEvent(job, job.progress as CrawlJobEvent['progress']),
      pages: rows.map((r) => ({ url: r.url, httpStatus: r.httpStatus, verdict: r.verdict, errorCode: r.errorCode })),
    };
    await this.bus.publishEvent(job.workspaceId, 'crawl.page', event, {
      msgId: `${job.id}:crawl.page:${last.position}`,
    });
    return this.jobs.update(tx, job, {
      state: {
        pagesSinceEvent: 0,
        lastPageEventAt: new Date().toISOString(),
        pageEventCursor: { at: last.doneAt!, position: last.position },
      },
    });
  }

  private async publishEnd(
    job: Pick<CrawlJob, 'workspaceId'>,
    end: { kind: 'crawl.completed' | 'crawl.failed'; job: CrawlJob },
  ): Promise<void> {
    // A project run's end is told by run.finished once the diff service has compared it with
    // the run before (not by crawl.*): hand it over.
    if (end.job.kind === 'run') {
      await this.handToDiff(end.job);
      this.bus.broadcast(crawlDoneSubject(end.job.id), { jobId: end.job.id, status: end.job.status });
      this.contexts.delete(end.job.id);
      return;
    }
    // A crawl kept while it ran is its project's first run: it gets its change record too.
    if ((await this.jobs.projectOfRun(end.job.runId))?.ephemeral === false) await this.handToDiff(end.job);
    try {
      await this.bus.publishEvent(
        job.workspaceId,
        end.kind,
        this.jobEvent(end.job, end.job.progress as CrawlJobEvent['progress']),
        { msgId: `${end.job.id}:${end.kind}` },
      );
    } catch (err) {
      this.logger.error({ err, jobId: end.job.id }, 'crawl end event not published');
    }
    this.bus.broadcast(crawlDoneSubject(end.job.id), { jobId: end.job.id, status: end.job.status });
    this.contexts.delete(end.job.id);
  }

  /**
   * Asks diff for the run's change record (work.diff.compare, once per run: the message id
   * dedupes a keep racing the crawl's end). Logged, not thrown: the run has ended either way.
   */
  async handToDiff(job: Pick<CrawlJob, 'workspaceId' | 'runId'>): Promise<void> {
    try {
      await this.bus.publishWork(
        'work.diff.compare',
        { workspaceId: job.workspaceId, runId: job.runId },
        { msgId: `${job.runId}:compare` },
      );
    } catch (err) {
      this.logger.error({ err, runId: job.runId }, 'run not handed to diff');
    }
  }

  private jobEvent(job: CrawlJob, progress: CrawlJobEvent['progress']): CrawlJobEvent {
    const request = job.request as { webhook?: CrawlJobEvent['webhook'] };
    return {
      jobId: job.id,
      status: job.status,
      progress,
      creditsUsed: job.creditsUsed,
      counts: job.counts as Record<string, number>,
      stop: job.stop,
      webhook: request.webhook
        ? {
            url: request.webhook.url,
            events: request.webhook.events ?? [],
            metadata: request.webhook.metadata ?? {},
          }
        : null,
    };
  }

  private context(job: CrawlJob, robots?: { robotsTxt: string; robotsStatus: number }): CrawlContext {
    const known = this.contexts.get(job.id);
    if (known && !robots) return known;
    const request = crawlRequestSchema.parse(job.request);
    const options = resolveCrawl(request);
    const state = job.result as unknown as CrawlState;
    const src = robots ?? { robotsTxt: state.robotsTxt, robotsStatus: state.robotsStatus };
    const rules = options.config.scope.respect_robots
      ? robotsFromResponse(src.robotsStatus || null, src.robotsTxt, this.settings.userAgent)
      : null;
    const crawlDelay = rules?.crawlDelaySeconds ?? 0;
    const ctx: CrawlContext = {
      request,
      options,
      scope: new CrawlScope(request.url, options.config.scope),
      robots: rules,
      delayMs: Math.max(options.config.fetch.delay, crawlDelay) * 1000,
    };
    if (this.contexts.size >= 512) this.contexts.delete(this.contexts.keys().next().value!);
    this.contexts.set(job.id, ctx);
    return ctx;
  }
}

/** The state's log with one line more (the last 50 kept). */
const logLine = (state: Pick<CrawlState, 'log'>, message: string): CrawlState['log'] => [
  ...(state.log ?? []).slice(-49),
  { at: new Date().toISOString(), message },
];

/** Core-NATS broadcast when a crawl ends. */
/**
 * One result per page, the latest dispatch's: a page dispatched again after a slow answer can
 * have both results in one batch (or one message delivered twice). The UPDATE settles its row
 * once; counting both would count the page, its credits and its links twice.
 */
const onePerPage = (msgs: CrawlPageResultMessage[]): CrawlPageResultMessage[] => {
  const byPosition = new Map<number, CrawlPageResultMessage>();
  for (const msg of msgs) {
    const seen = byPosition.get(msg.position);
    if (!seen || msg.attempt >= seen.attempt) byPosition.set(msg.position, msg);
  }
  return [...byPosition.values()];
};

export const crawlDoneSubject = (jobId: string) => `crawl.job.${jobId}.done`;
