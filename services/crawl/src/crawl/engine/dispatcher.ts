import type { Bus } from '@tidemark/bus';
import type { ScrapeCrawlPageMessage } from '@tidemark/contracts';
import type { FrontierStatistics } from '../../frontier/frontier-statistics.js';
import { normalizeUrl } from '../../frontier/normalize-url.js';
import type { CrawlJob, CrawlJobRepository } from '../../repositories/crawl-job.repository.js';
import type {
  Dispatchable,
  DispatchLimits,
  FrontierRepository,
  FrontierRow,
  NewUrl,
  Tx,
} from '../../repositories/frontier.repository.js';
import { pageRequestFor } from '../crawl-options.js';
import type { CrawlContext } from './crawl-context.js';
import { logLine, progressOf, stateOf } from './crawl-state.js';

/**
 * How many URLs one of `of` takers (the crawl, or a lease slot) may have out: a run's
 * max_credits is a budget, not a point to stop after, and a URL handed out is a page to be
 * charged (a credit at least), so no more are out than each one's share of what is left buys.
 */
const affordable = (job: CrawlJob, ctx: CrawlContext, of: number): number => {
  const budget = ctx.options.config.advanced.max_credits;
  return budget === null ? Infinity : Math.ceil(Math.max(0, budget - job.creditsUsed) / of);
};

/**
 * What goes out and what comes into a crawl's frontier, inside a step's transaction: URLs handed
 * to scrape within the crawl's concurrency and each host's politeness, links taken in, queued
 * URLs dropped when money stops the crawl.
 */
export class Dispatcher {
  constructor(
    private readonly jobs: CrawlJobRepository,
    private readonly frontier: FrontierRepository,
    private readonly bus: Bus,
    /** Most pages of one crawl in flight at once, whatever the hosts. */
    private readonly maxInFlight: number,
    /** Told as the frontier grows, so the planner's statistics keep up with it. */
    private readonly statistics?: FrontierStatistics,
  ) {}

  /**
   * Hands out the next URLs within the crawl's concurrency and each host's politeness. Answers
   * the job and how many of its pages are in flight once these are.
   */
  async dispatch(tx: Tx, job: CrawlJob, ctx: CrawlContext): Promise<{ job: CrawlJob; inFlight: number }> {
    // A politeness delay lets one page of a host go at a time.
    const perHost = ctx.delayMs > 0 ? 1 : ctx.options.config.fetch.concurrency;
    const { job: after, inFlight, picked } = await this.pick(tx, job, ctx, this.maxInFlight, perHost);
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
    return { job: after, inFlight: inFlight + picked.length };
  }

  /**
   * Marks the next URLs dispatched, at most `maxInFlight` of the crawl (of a lease slot: what it
   * holds) and `perHost` of a host out at once, none to a host whose delay or Retry-After has not
   * passed; a delay starts for each host handed a URL. Answers them with the job and how many
   * were out before.
   */
  async pick(
    tx: Tx,
    job: CrawlJob,
    ctx: CrawlContext,
    maxInFlight: number,
    perHost: number,
    slot?: DispatchLimits['slot'],
  ): Promise<{ job: CrawlJob; inFlight: number; picked: Dispatchable[] }> {
    const hostNextAt = { ...stateOf(job).hostNextAt };
    const now = Date.now();
    const { inFlight, picked } = await this.frontier.dispatchNext(tx, job.runId, ctx.options.config.scope.crawl_mode, {
      maxInFlight: Math.min(maxInFlight, affordable(job, ctx, slot?.of ?? 1)),
      perHost,
      waitingHosts: Object.keys(hostNextAt).filter((host) => hostNextAt[host]! > now),
      ...(slot ? { slot } : {}),
    });
    if (!picked.length || ctx.delayMs <= 0) return { job, inFlight, picked };
    for (const row of picked) hostNextAt[row.host] = now + ctx.delayMs;
    return { job: await this.jobs.update(tx, job, { state: { hostNextAt } }), inFlight, picked };
  }

  /**
   * Adds the in-scope links of settled pages to the frontier (the first page to link a URL is its
   * referer) and counts in-links: each page counts once for each URL it links.
   */
  async grow(
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
    const grown = await this.frontier.grow(tx, job.runId, [...fresh.values()], room, inLinks);
    if (grown.added) this.statistics?.grew(job.runId, total + grown.added);
    return { ...grown, tooDeep };
  }

  /**
   * The crawl stops for money (its max_credits, or the workspace's credits): URLs still queued
   * are not fetched (nor billed). Their rows become `unfetched` and `counts.unfetched` counts
   * them; pages in flight settle as they come back, then the crawl ends.
   */
  async dropUnfetched(tx: Tx, job: CrawlJob): Promise<CrawlJob> {
    const { queued } = await this.frontier.dropOpen(tx, job.runId);
    const progress = progressOf(job);
    progress.queued = Math.max(0, progress.queued - queued);
    if (!queued) return this.jobs.update(tx, job, { progress });
    const state = stateOf(job);
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
}
