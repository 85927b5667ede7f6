import type { ResolvedConfig } from '@tidemark/contracts';
import { PathMatcher, type MatchCost } from './glob/path-matcher.js';

export type ScopeVerdict = 'in' | 'other_host' | 'excluded' | 'not_included' | 'too_deep';

/**
 * Which URLs belong to a crawl. Hosts: the seed's host (a leading `www.` ignored on both sides),
 * and its subdomains only with allow_subdomains. Paths: include_paths and exclude_paths are
 * globs (`*` within a segment, `**` across segments, `{a,b}`, `?`, `[a-z]`; picomatch's rules,
 * read by glob/path-matcher.ts without backtracking) matched against the path with its query
 * (`/blog/**`, `/**.pdf`); a glob without a leading slash matches anywhere (`**` is put in
 * front). Exclusions win. Depth: link hops from the seed; max_depth null is no limit.
 */
export class CrawlScope {
  private readonly seedHost: string;
  private readonly include: ((path: string) => boolean) | null;
  private readonly exclude: ((path: string) => boolean) | null;
  private readonly sitemapInclude: ((path: string) => boolean) | null;
  private readonly sitemapExclude: ((path: string) => boolean) | null;

  constructor(
    seed: string,
    private readonly scope: Pick<
      ResolvedConfig['scope'],
      'include_paths' | 'exclude_paths' | 'allow_subdomains' | 'max_depth'
    > &
      Partial<Pick<ResolvedConfig['scope'], 'sitemap_include' | 'sitemap_exclude'>>,
    /** Where the globs' matching work is added up, for callers that keep a budget. */
    cost?: MatchCost,
  ) {
    this.seedHost = bareHost(new URL(seed).hostname);
    this.include = matcher(scope.include_paths, cost);
    this.exclude = matcher(scope.exclude_paths, cost);
    this.sitemapInclude = matcher(scope.sitemap_include ?? [], cost);
    this.sitemapExclude = matcher(scope.sitemap_exclude ?? [], cost);
  }

  /** sitemap_include / sitemap_exclude: whether a URL a sitemap lists may be queued (same glob rules). */
  takesFromSitemap(url: URL): boolean {
    const path = url.pathname + url.search;
    if (this.sitemapExclude?.(path)) return false;
    return !this.sitemapInclude || this.sitemapInclude(path);
  }

  check(url: URL, depth: number): ScopeVerdict {
    const host = bareHost(url.hostname);
    if (host !== this.seedHost && !(this.scope.allow_subdomains && host.endsWith(`.${this.seedHost}`)))
      return 'other_host';
    const path = url.pathname + url.search;
    if (this.exclude?.(path)) return 'excluded';
    if (this.include && !this.include(path)) return 'not_included';
    if (this.scope.max_depth !== null && depth > this.scope.max_depth) return 'too_deep';
    return 'in';
  }
}

const bareHost = (host: string) => host.toLowerCase().replace(/^www\./, '');

/** A path matcher for globs under the rules above; null for none. */
export const matcher = (globs: string[], cost?: MatchCost): ((path: string) => boolean) | null => {
  const compiled = PathMatcher.compile(globs);
  return compiled && ((path) => compiled.matches(path, cost));
};
