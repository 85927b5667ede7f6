import { MAX_CRAWL_RETRY_AFTER_MS, transientResult, type CrawlPageResultMessage } from '@tidemark/contracts';
import type { CrawlJob, CrawlJobRepository, CrawlState } from '../../repositories/crawl-job.repository.js';
import type { FrontierRepository, FrontierRow, Tx } from '../../repositories/frontier.repository.js';
import type { CrawlContext } from './crawl-context.js';
import { logLine, progressOf, stateOf } from './crawl-state.js';
import type { Dispatcher } from './dispatcher.js';

const READ_VERDICTS = new Set(['ok', 'thin', 'cached']);
/** First wait before a page that got no answer or a 5xx is tried again (doubling each time). */
const TRANSIENT_RETRY_MS = 1000;

/**
 * Pages coming back into a crawl, inside a step's transaction: a result is tried again (a
 * Retry-After, no answer, a 5xx) or settled — its row, the job's progress, counts, credits and
 * engines, its links grown into the frontier — and pages whose work was lost are sent again or
 * given up.
 */
export class ResultSettler {
  constructor(
    private readonly jobs: CrawlJobRepository,
    private readonly frontier: FrontierRepository,
    private readonly dispatcher: Dispatcher,
    private readonly settings: {
      /** A rate-limited page waits this long when the host named no Retry-After. */
      defaultRetryAfterMs: number;
      /** A dispatched page with no answer for this long is dispatched again. */
      staleMs: number;
    },
  ) {}

  /** The job after settling `msgs`; null when every result had been settled before (redelivered). */
  async settle(
    tx: Tx,
    view: CrawlJob,
    ctx: CrawlContext,
    msgs: CrawlPageResultMessage[],
    note?: string,
  ): Promise<CrawlJob | null> {
    const state = stateOf(view);
    const progress = progressOf(view);
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
          const wait = Math.min(msg.retryAfterMs ?? this.settings.defaultRetryAfterMs, MAX_CRAWL_RETRY_AFTER_MS);
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
      if (transientResult(msg) && view.status === 'running') {
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
    if (!rows.size && !next.hostNextAt) return null;

    // Links of a read page grow the frontier while the crawl runs (not after a cancel or a
    // budget stop: nothing new is queued then).
    const growing = view.status === 'running' && !state.budgetHit && !state.creditsExhausted && !state.recrawlUrls;
    const found: { from: FrontierRow; links: string[] }[] = [];
    const addCounts: Record<string, number> = {};
    const engines = { ...state.engines };
    let credits = 0;
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
    if (found.length) {
      const grown = await this.dispatcher.grow(tx, view, ctx, found, progress.total);
      progress.total += grown.added;
      progress.queued += grown.added;
      if (grown.overflow) next.limitReached = true;
      if (grown.tooDeep) next.depthReached = true;
    }
    if (maxCredits !== null && view.creditsUsed + credits >= maxCredits) next.budgetHit = true;
    if (note) next.log = logLine(state, `page ${note}`);
    if (creditsExhausted && !state.creditsExhausted) {
      next.creditsExhausted = true;
      next.log = logLine({ log: next.log ?? state.log }, "the workspace's credits ran out: nothing more is fetched");
    }
    if (rows.size) next.engines = engines;
    next.pagesSinceEvent = (state.pagesSinceEvent ?? 0) + rows.size;
    return this.jobs.update(tx, view, {
      progress,
      addCredits: credits,
      ...(rows.size ? { addCounts } : {}),
      state: next,
    });
  }

  /**
   * Pages dispatched and unanswered for `staleMs` (their work was lost; of one lease slot when
   * `slot` is given, the others' holders being alive): each counts as an
   * attempt, so one is dispatched again while it has tries left (`max_retries`) and is settled
   * as an error with nothing stored once it has none, rather than going round for ever.
   */
  async recoverLost(tx: Tx, view: CrawlJob, ctx: CrawlContext, slot: number | null = null): Promise<CrawlJob> {
    // A cut slot's holder is gone: all it held is lost, the URLs handed out at its last pull too
    // (marked a few milliseconds after the pull's time, they may not be `staleMs` old yet, and
    // no holder of the slot may come to take them while the crawl runs).
    const stale = await this.frontier.stale(tx, view.runId, slot === null ? this.settings.staleMs : 0, slot);
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
    const progress = progressOf(view);
    progress.done += settled.length;
    progress.queued = Math.max(0, progress.queued - settled.length);
    const minutes = Math.round(this.settings.staleMs / 60_000);
    const note = [
      again ? `${again} pages unanswered for ${minutes} min dispatched again` : '',
      settled.length ? `${settled.length} pages unanswered after ${maxRetries + 1} tries given up` : '',
    ].filter(Boolean);
    // Written even when only requeued: the job moved, so the watchdog sees progress.
    return this.jobs.update(tx, view, {
      progress,
      ...(settled.length ? { addCounts: { error: settled.length } } : {}),
      state: { log: logLine(stateOf(view), note.join('; ') || 'lost pages looked at') },
    });
  }
}

/**
 * One result per page, the latest dispatch's: a page dispatched again after a slow answer can
 * have both results in one batch (or one message delivered twice). The UPDATE settles its row
 * once; counting both would count the page, its credits and its links twice.
 */
export const onePerPage = (msgs: CrawlPageResultMessage[]): CrawlPageResultMessage[] => {
  const byPosition = new Map<number, CrawlPageResultMessage>();
  for (const msg of msgs) {
    const seen = byPosition.get(msg.position);
    if (!seen || msg.attempt >= seen.attempt) byPosition.set(msg.position, msg);
  }
  return [...byPosition.values()];
};
