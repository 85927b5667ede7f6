import {
  applyConfigPatch,
  scopeVerdictEnum,
  sitemapModeEnum,
  type crawlV1,
  type ResolvedConfig,
} from '@tidemark/contracts';
import { NotFoundError, ValidationError } from '@tidemark/errors';
import { robotsFromResponse } from '@tidemark/robots';
import type { DiscoveryPort } from '../crawl/engine/discovery-port.js';
import { normalizeUrl } from '../frontier/normalize-url.js';
import { CrawlScope, matcher, type ScopeVerdict } from '../frontier/scope.js';
import type { CrawlJobRepository } from '../repositories/crawl-job.repository.js';
import type { FrontierRepository } from '../repositories/frontier.repository.js';
import { GlobBudget } from './glob-budget.js';

/** URLs shown per verdict or pattern; the counts are always whole. */
const EXAMPLES = 10;
const MAX_PREVIEW_URLS = 1000;
const MAX_PREVIEW_FEEDS = 20;

/** What sources/preview may try without saving it. */
export interface SourcesDraft {
  include_paths?: string[];
  exclude_paths?: string[];
  sitemap_include?: string[];
  sitemap_exclude?: string[];
  feeds?: string[];
  url_list?: string[];
}

/** Scope keys a dry run may try without saving them. */
export interface ScopeDraft {
  include_paths?: string[];
  exclude_paths?: string[];
  allow_subdomains?: boolean;
  max_depth?: number | null;
  sitemap_include?: string[];
  sitemap_exclude?: string[];
}

/**
 * What a project's scope does to the URLs it already knows (the last finished full run's
 * frontier, and what a running run has queued), and where its pages came from. Nothing is
 * fetched, nothing spent.
 */
export class ProjectScopeService {
  constructor(
    private readonly jobs: CrawlJobRepository,
    private readonly frontier: FrontierRepository,
    private readonly discovery: DiscoveryPort,
    private readonly userAgent: string,
  ) {}

  /**
   * POST /projects/{id}/sources/preview: each pattern's count and first URLs over the URLs the
   * project knows (sitemap patterns over those its sitemaps listed), each feed read now with its
   * entry count (billed as a map: 1 credit a file), and each listed URL checked against the scope
   * and robots.txt. Nothing is queued or saved.
   */
  async previewSources(
    workspaceId: string,
    projectId: string,
    draft: SourcesDraft,
  ): Promise<crawlV1.PreviewSourcesResponse> {
    if ((draft.url_list?.length ?? 0) > MAX_PREVIEW_URLS || (draft.feeds?.length ?? 0) > MAX_PREVIEW_FEEDS)
      throw new ValidationError(`body: at most ${MAX_PREVIEW_URLS} url_list URLs and ${MAX_PREVIEW_FEEDS} feeds`);
    const { project, config, runs } = await this.context(workspaceId, projectId);
    const known = await this.frontier.knownUrls([runs.finished, runs.running].filter((r) => r !== null));
    const listed = runs.finished ? new Set(await this.frontier.sitemapUrls(runs.finished)) : new Set<string>();
    const pathOf = (u: string) => {
      const url = new URL(u);
      return url.pathname + url.search;
    };
    const all = known.map((k) => k.url);
    const sitemap = all.filter((u) => listed.has(u));
    const include = draft.include_paths ?? config.scope.include_paths;
    const exclude = draft.exclude_paths ?? config.scope.exclude_paths;
    const sitemapInclude = draft.sitemap_include ?? config.scope.sitemap_include;
    const sitemapExclude = draft.sitemap_exclude ?? config.scope.sitemap_exclude;
    const budget = new GlobBudget(
      (include.length + exclude.length) * all.length + (sitemapInclude.length + sitemapExclude.length) * sitemap.length,
    );
    const patterns = async (globs: string[], over: string[]) => {
      const out: crawlV1.PatternSample[] = [];
      for (const glob of globs) {
        const isMatch = matcher([glob], budget.cost)!;
        const urls: string[] = [];
        for (const u of over) {
          if (isMatch(pathOf(u))) urls.push(u);
          await budget.tick();
        }
        out.push({ pattern: glob, count: urls.length, urls: urls.slice(0, EXAMPLES) });
      }
      return out;
    };
    // Patterns first: a draft whose globs cost too much is refused before a feed is read (and billed).
    const matched = {
      includePaths: await patterns(include, all),
      excludePaths: await patterns(exclude, all),
      sitemapInclude: await patterns(sitemapInclude, sitemap),
      sitemapExclude: await patterns(sitemapExclude, sitemap),
    };
    budget.check();
    const feeds = (draft.feeds ?? config.scope.feeds).slice(0, MAX_PREVIEW_FEEDS);
    const urlList = (draft.url_list ?? config.scope.url_list).slice(0, MAX_PREVIEW_URLS);
    // One read of robots.txt and the feeds (no sitemap, not the home page).
    const read =
      feeds.length || urlList.length
        ? await this.discovery.discover({
            workspaceId,
            url: project.seed,
            sitemapMode: 'skip',
            robotsOnly: feeds.length === 0,
            limit: 50_000,
            timeoutMs: 30_000,
            billingReference: `sources-preview:${projectId}:${Date.now()}`,
            feeds,
          })
        : null;
    const robots = read ? robotsFromResponse(read.robotsStatus || null, read.robotsTxt, this.userAgent) : null;
    const scope = new CrawlScope(project.seed, { ...config.scope, ...draft });
    const knownKeys = new Set(all.map((u) => normalizeUrl(u)));
    return {
      runId: runs.finished ?? undefined,
      known: all.length,
      sitemapUrls: sitemap.length,
      ...matched,
      feeds: feeds.map((feed) => {
        const entries = (read?.entries ?? []).filter((e) => e.source === 'feed' && e.file === feed);
        // The map's reason when it could not read the feed (the fetch guard's refusal, a status).
        const error = (read?.errors ?? []).find((e) => e.file === feed || e.file === absoluteUrl(feed))?.reason;
        return {
          feed,
          entries: entries.length,
          urls: entries.slice(0, EXAMPLES).map((e) => e.url),
          ...(error !== undefined ? { error } : {}),
        };
      }),
      urlList: urlList.map((url) => {
        const key = normalizeUrl(url);
        return {
          url,
          scope: scopeVerdictEnum.toProto(key ? scope.check(new URL(key), 0) : 'not a URL'),
          robotsAllowed: robots && key ? robots.isAllowed(url) : undefined,
          known: key !== null && knownKeys.has(key),
        };
      }),
      creditsUsed: read?.creditsUsed ?? 0,
    };
  }

  /** POST /projects/{id}/dry-run: every known URL judged by the saved scope and by the draft. */
  async dryRun(workspaceId: string, projectId: string, draft: ScopeDraft): Promise<crawlV1.DryRunResponse> {
    const { project, config, runs } = await this.context(workspaceId, projectId);
    const known = await this.frontier.knownUrls([runs.finished, runs.running].filter((r) => r !== null));
    const budget = new GlobBudget(known.length);
    const saved = new CrawlScope(project.seed, config.scope, budget.cost);
    const tried = new CrawlScope(project.seed, { ...config.scope, ...draft }, budget.cost);
    const verdicts: Record<ScopeVerdict, { count: number; urls: string[] }> = {
      in: { count: 0, urls: [] },
      excluded: { count: 0, urls: [] },
      not_included: { count: 0, urls: [] },
      other_host: { count: 0, urls: [] },
      too_deep: { count: 0, urls: [] },
    };
    const dropped = { count: 0, urls: [] as string[] };
    const added = { count: 0, urls: [] as string[] };
    const note = (bucket: { count: number; urls: string[] }, url: string) => {
      bucket.count += 1;
      if (bucket.urls.length < EXAMPLES) bucket.urls.push(url);
    };
    for (const row of known) {
      // The seed is always fetched, whatever the patterns say.
      const url = new URL(row.url);
      const now = row.foundVia === 'seed' ? 'in' : tried.check(url, row.depth);
      const before = row.foundVia === 'seed' ? 'in' : saved.check(url, row.depth);
      note(verdicts[now], row.url);
      if (before === 'in' && now !== 'in') note(dropped, row.url);
      if (before !== 'in' && now === 'in') note(added, row.url);
      await budget.tick();
    }
    budget.check();
    return {
      known: known.length,
      runs: { finished: runs.finished ?? undefined, running: runs.running ?? undefined },
      verdicts: {
        in: verdicts.in,
        excluded: verdicts.excluded,
        notIncluded: verdicts.not_included,
        otherHost: verdicts.other_host,
        tooDeep: verdicts.too_deep,
      },
      // Against the saved scope: URLs the draft would leave out, and ones it would take in.
      dropped,
      added,
    };
  }

  /** GET /projects/{id}/sources: the project's sources and what the last full run found by each. */
  async sources(workspaceId: string, projectId: string): Promise<crawlV1.GetSourcesResponse> {
    const { project, config, runs } = await this.context(workspaceId, projectId);
    const lastRun = runs.finished;
    const found = lastRun ? await this.frontier.foundVia(lastRun) : {};
    const listedKeys = config.scope.url_list.map((u) => normalizeUrl(u)).filter((k): k is string => k !== null);
    const listedFound = lastRun ? await this.frontier.countKeys(lastRun, listedKeys) : 0;
    return {
      runId: lastRun ?? undefined,
      seed: { url: project.seed, found: found.seed ?? 0 },
      sitemap: {
        use: config.scope.use_sitemap,
        mode: sitemapModeEnum.toProto(config.scope.sitemap_mode),
        include: config.scope.sitemap_include,
        exclude: config.scope.sitemap_exclude,
        found: found.sitemap ?? 0,
      },
      urlList: { urls: config.scope.url_list.length, found: listedFound },
      feeds: { urls: config.scope.feeds, found: found.feed ?? 0 },
      links: { found: found.link ?? 0 },
      patterns: { includePaths: config.scope.include_paths, excludePaths: config.scope.exclude_paths },
    };
  }

  private async context(workspaceId: string, projectId: string) {
    const project = await this.jobs.findProject(workspaceId, projectId);
    if (!project) throw new NotFoundError('project');
    const config = applyConfigPatch(project.config as unknown as ResolvedConfig, {});
    return { project, config, runs: await this.jobs.knownRuns(projectId) };
  }
}

/** A feed as the map service names it once read (an absolute URL), or null. */
const absoluteUrl = (feed: string): string | null => {
  try {
    return new URL(feed).href;
  } catch {
    return null;
  }
};
