import type { CrawlPageRow, PageRow } from '@tidemark/contracts';
import type { FrontierRow } from '../repositories/frontier.repository.js';

/**
 * A page row with what the crawl's link graph says about it: how it was found, its in-links, and
 * the flags (orphan: listed in a sitemap, linked from no read page, not the seed; unlisted:
 * linked, in no sitemap, on a site that has one). GET /crawl/{id} and the project pages use it.
 */
export const graphRow = (row: PageRow, f: FrontierRow, sitemapUrls: number): CrawlPageRow => ({
  ...row,
  foundVia: f.foundVia as CrawlPageRow['foundVia'],
  firstReferer: f.firstReferer,
  inSitemap: f.inSitemap,
  inLinks: f.inLinks,
  orphan: f.inSitemap && f.inLinks === 0 && f.foundVia !== 'seed',
  unlisted: !f.inSitemap && f.inLinks > 0 && sitemapUrls > 0,
  origin: new URL(f.url).origin,
  depth: f.depth,
});

/**
 * The row of a settled URL that has no stored page: its work was lost or given up and even the
 * error row could not be written. The frontier says it settled; this says why nothing is there.
 */
export const lostRow = (f: FrontierRow): PageRow => ({
  url: f.url,
  status: 'error',
  httpStatus: f.httpStatus,
  verdict: null,
  errorCode: null,
  shape: null,
  warnings: [],
  signals: [],
  method: null,
  tier: null,
  credits: 0,
  billedAs: null,
  climbedTo: null,
  words: 0,
  language: null,
  head: null,
  reason: `nothing was stored for this page: its work was lost or failed (${f.attempts} ${f.attempts === 1 ? 'try' : 'tries'})`,
  widget: null,
  solved: null,
  exitBytes: 0,
  finalUrl: null,
  crawledAt: f.doneAt ? f.doneAt.toISOString() : null,
});
