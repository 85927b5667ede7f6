import type { LinkCoverage, LinkSet } from '@tidemark/contracts';

export interface RunFacts {
  status: string;
  stop: string | null;
  /** A re-crawl run: the listed URLs only, no sitemap, no link followed. */
  recrawl: boolean;
  read: number;
  unread: number;
  sitemapUrls: number;
  /** The run read sitemaps (use_sitemap) and followed links (sitemap_mode not `only`). */
  useSitemap: boolean;
  followedLinks: boolean;
  /** Most sitemap URLs discovery hands a run: a sitemap this long may have been cut. */
  discoveryLimit: number;
  /** dead_ends: read pages whose links were not stored. */
  unscanned: number;
}

/**
 * Whether a link set can be taken as the truth about the site (docs/decisions.md, Pages).
 * orphans need the whole site read: a page the run did not read may be the one linking an
 * "orphan". unlisted needs a whole sitemap: a page is only unlisted against a list we have.
 * dead_ends are judged page by page from each page's own links.
 */
export const linkCoverage = (kind: LinkSet, f: RunFacts): LinkCoverage => {
  const base = { stop: f.stop, read: f.read, unread: f.unread, sitemapUrls: f.sitemapUrls, unscanned: f.unscanned };
  const no = (reason: string): LinkCoverage => ({ verdict: false, reason, ...base });
  if (f.status === 'queued' || f.status === 'running') return no('the run has not ended');
  if (kind === 'dead_ends') {
    return f.unscanned > 0
      ? no(`${f.unscanned} read pages kept no links to judge`)
      : { verdict: true, reason: null, ...base };
  }
  if (f.recrawl) return no('a re-crawl run reads only the URLs it was given: no sitemap, no link followed');
  if (!f.useSitemap) return no('the run read no sitemap (use_sitemap is off)');
  if (f.sitemapUrls === 0) return no('the site has no sitemap: no page is listed, so none is an orphan or unlisted');
  if (kind === 'unlisted') {
    return f.sitemapUrls >= f.discoveryLimit
      ? no(`the sitemaps list ${f.sitemapUrls} URLs or more; the run read only the first ones`)
      : { verdict: true, reason: null, ...base };
  }
  if (!f.followedLinks) return no('the run followed no links (sitemap_mode only), so in-links are incomplete');
  if (f.stop !== 'exhausted')
    return no(`the run stopped early (${f.stop ?? 'unknown'}): pages it did not read may link the ones listed`);
  if (f.unread > 0) return no(`${f.unread} pages could not be read; the links on them are unknown`);
  return { verdict: true, reason: null, ...base };
};
