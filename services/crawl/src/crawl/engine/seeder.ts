import type { CrawlRequest } from '@tidemark/contracts';
import type { Logger } from '@tidemark/telemetry';
import { normalizeUrl } from '../../frontier/normalize-url.js';
import type { CrawlJob, CrawlJobRepository, CrawlState } from '../../repositories/crawl-job.repository.js';
import {
  SITEMAP_DEPTH,
  type FrontierRepository,
  type NewUrl,
  type Tx,
} from '../../repositories/frontier.repository.js';
import type { CrawlOptions } from '../crawl-options.js';
import type { CrawlContext } from './crawl-context.js';
import type { CrawlEvents } from './crawl-events.js';
import { ENDED, logLine, stateOf } from './crawl-state.js';
import type { Discovered, DiscoveryPort } from './discovery-port.js';

type Scope = CrawlOptions['config']['scope'];

/**
 * A crawl's start: robots.txt and sitemaps read through the map service, then the first URLs
 * into the frontier — the seed and url_list (or a re-crawl's URLs alone) and what the sitemaps
 * and feeds list, in scope and within max_pages.
 */
export class Seeder {
  constructor(
    private readonly jobs: CrawlJobRepository,
    private readonly frontier: FrontierRepository,
    private readonly discovery: DiscoveryPort,
    private readonly events: CrawlEvents,
    private readonly discoveryTimeoutMs: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Robots and sitemaps through the map service. A failure is retried with the start message;
   * on its last try the crawl fails with the reason rather than crawl blind (then null).
   */
  async discover(
    job: CrawlJob,
    request: CrawlRequest,
    scope: Scope,
    useSitemap: boolean,
    lastTry: boolean,
  ): Promise<Discovered | null> {
    try {
      return await this.discovery.discover({
        workspaceId: job.workspaceId,
        url: request.url,
        sitemapMode: useSitemap ? scope.sitemap_mode : 'skip',
        robotsOnly: !useSitemap,
        limit: Math.min(50_000, scope.max_pages * 2),
        timeoutMs: this.discoveryTimeoutMs,
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
          state: { log: logLine(stateOf(view), error) },
        });
        return { ...view, status: 'error', stop: 'error' } as CrawlJob;
      });
      if (failed) await this.events.publishEnd(failed, { kind: 'crawl.failed', job: failed });
      return null;
    }
  }

  /** Under the run's lock: the first URLs into the frontier and the job running. */
  async seed(
    tx: Tx,
    view: CrawlJob,
    ctx: CrawlContext,
    discovered: Discovered | null,
    recrawl: string[] | null,
    useSitemap: boolean,
  ): Promise<{ job: CrawlJob; total: number }> {
    const { request } = ctx;
    const scope = ctx.options.config.scope;
    const current = stateOf(view);
    const robotsStatus = discovered ? discovered.robotsStatus : 404;
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
        const verdict = ctx.scope.check(url, SITEMAP_DEPTH);
        if (verdict === 'too_deep') depthReached = true;
        if (verdict !== 'in' || key === seedKey) continue;
        if (entry.source === 'sitemap' && !ctx.scope.takesFromSitemap(url)) continue;
        listed.push({
          key,
          url: entry.url,
          host: url.host,
          depth: SITEMAP_DEPTH,
          foundVia: entry.source === 'feed' ? 'feed' : 'sitemap',
          firstReferer: null,
          inSitemap: entry.source === 'sitemap',
        });
      }
    }
    const first = await this.frontier.add(tx, view.runId, seeds, recrawl ? seeds.length : scope.max_pages);
    const room = Math.max(0, scope.max_pages - first.added);
    const { added, overflow } = await this.frontier.add(tx, view.runId, listed, recrawl ? 0 : room);
    await this.frontier.markInSitemap(tx, view.runId, sitemapKeys);
    const total = first.added + added;
    const listedNote = recrawl
      ? ` (a re-crawl of ${first.added} listed pages${skipped.length ? `; ${skipped.length} outside the site left out` : ''})`
      : `${scope.url_list.length ? `, ${first.added - 1} from url_list` : ''}${
          discovered && useSitemap ? `, ${listed.length} more from sitemaps and feeds` : ''
        }${skipped.length ? `; ${skipped.length} listed URLs outside the site left out` : ''}`;
    // Unanswered, robots.txt forbids the whole site (RFC 9309): the log says why, as the map
    // service read it, since the crawl then ends with its seed.
    const robotsNote = !discovered
      ? ''
      : robotsStatus
        ? `; robots.txt answered ${robotsStatus}`
        : `; robots.txt ${
            discovered.errors?.find((e) => e.file.endsWith('/robots.txt'))?.reason ??
            'answered nothing: the site counts as disallowing everything (RFC 9309)'
          }`;
    const next: Partial<CrawlState> = {
      started: true,
      log: logLine(current, `started from ${request.url}${listedNote}${robotsNote}`),
      limitReached: overflow > 0 || first.overflow > 0,
      depthReached,
      sitemapUrls: sitemapKeys.length,
    };
    await this.jobs.saveRobots(tx, view.runId, { robotsTxt: discovered?.robotsTxt ?? '', robotsStatus });
    const job = await this.jobs.update(tx, view, {
      status: 'running',
      progress: { done: 0, total, queued: total },
      addCredits: discovered?.creditsUsed ?? 0,
      state: next,
    });
    return { job, total };
  }
}
