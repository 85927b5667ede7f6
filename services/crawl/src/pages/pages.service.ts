// Long (~400 lines): one read service per resource (a project's pages), each method a route;
// the query language and link sets are in their own files beside it.
import {
  crawlRequestSchema,
  foundViaEnum,
  jobStatusEnum,
  linkSetEnum,
  PAGE_VERDICTS,
  pageErrorCodeEnum,
  pageRowToProto,
  searchModeEnum,
  verdictEnum,
  type crawlPagesV1,
  type JobStatusName,
  type LinkSet,
  type PageFlag,
  type PageErrorCode,
  type PageRow,
  pageV1,
  type scrapeV1,
} from '@tidemark/contracts';
import { Prisma, type Run } from '@tidemark/db';
import { ApiError, NotFoundError, ValidationError } from '@tidemark/errors';
import { resolveCrawl } from '../crawl/crawl-options.js';
import type { RowsPort } from '../crawl/crawl.service.js';
import { lookupKeys } from '../frontier/normalize-url.js';
import { graphRow, lostRow } from '../frontier/graph-row.js';
import type { CrawlJob, CrawlJobRepository, CrawlState } from '../repositories/crawl-job.repository.js';
import type { FrontierRepository, FrontierRow } from '../repositories/frontier.repository.js';
import { DeadEnds } from './dead-ends.js';
import { linkCoverage } from './link-coverage.js';
import { parsePageQuery, usesDeadEnd } from './page-query.js';
import { deadEndSql, ORPHAN_SQL, queryCondition, unlistedSql } from './page-query.sql.js';
import type { StoredPagesRepository } from './stored-pages.repository.js';

/** Page rows and scans come from the scrape service, which wrote the rows. */
export interface ScrapePagesPort {
  rowsAt: RowsPort['rowsAt'];
  scan(req: scrapeV1.ScanPagesRequest): Promise<scrapeV1.ScanPagesResponse>;
  preview(req: scrapeV1.PreviewContentRequest): Promise<scrapeV1.PreviewContentResponse>;
  explainRemovals(req: scrapeV1.PreviewContentRequest): Promise<scrapeV1.ExplainRemovalsResponse>;
}

const MAX_SELECTORS = 20;
const SELECTOR_EXAMPLES = 5;

const MAX_LIMIT = 1000;
const MAX_VERSIONS = 100;
const MAX_MATCHES = 1000;
/** Positions per ScanPages call, and calls in flight: scrape replicas share a large search. */
const SCAN_CHUNK = 500;
const SCAN_PARALLEL = 4;

const encode = (s: string) => Buffer.from(s).toString('base64url');
const decodePosition = (cursor: string): number => {
  const raw = Buffer.from(cursor, 'base64url').toString();
  if (!/^\d{1,9}$/.test(raw)) throw new ValidationError('query.cursor: not a cursor this API gave out', undefined, 400);
  return Number(raw);
};
const decodeKey = (cursor: string): string => {
  const raw = Buffer.from(cursor, 'base64url').toString();
  if (!/^https?:\/\//.test(raw))
    throw new ValidationError('query.cursor: not a cursor this API gave out', undefined, 400);
  return raw;
};

interface RunRef {
  run: Run;
  job: CrawlJob;
}

/**
 * The read side of a project's runs: pages filtered by the query language, one page in full
 * with its versions, its screenshot, link-graph sets with their coverage, and search. The crawl
 * owns the run and the graph; rows are composed by scrape so they read exactly as GET /crawl's.
 */
export class PagesService {
  private readonly deadEnds: DeadEnds;

  constructor(
    private readonly jobs: CrawlJobRepository,
    private readonly frontier: FrontierRepository,
    private readonly stored: StoredPagesRepository,
    private readonly scrape: ScrapePagesPort,
  ) {
    this.deadEnds = new DeadEnds(frontier, stored);
  }

  /** The run named, or the project's latest finished one; not_found for anything not the caller's. */
  async resolveRun(workspaceId: string, projectId: string, runId: string | null): Promise<RunRef> {
    if (!(await this.jobs.projectVisible(workspaceId, projectId))) throw new NotFoundError('project');
    const run = runId
      ? await this.jobs.findRun(workspaceId, projectId, runId)
      : await this.stored.latestFinishedRun(workspaceId, projectId);
    if (!run) throw new NotFoundError(runId ? 'run' : 'finished run of this project');
    const job = (await this.jobs.jobsOfRuns([run.id])).get(run.id);
    if (!job) throw new NotFoundError('run');
    return { run, job };
  }

  async list(
    workspaceId: string,
    projectId: string,
    input: {
      runId: string | null;
      verdicts: string[];
      flag: PageFlag | null;
      q: string;
      cursor: string | null;
      limit: number;
      formats: string[];
    },
  ): Promise<crawlPagesV1.ListPagesResponse> {
    // The query is read before anything else: a bad term is named whatever the run.
    const terms = parsePageQuery(input.q);
    const after = input.cursor ? decodePosition(input.cursor) : -1;
    const limit = Math.min(Math.max(input.limit || 100, 1), MAX_LIMIT);
    const { job } = await this.resolveRun(workspaceId, projectId, input.runId);
    const sitemapUrls = stateOf(job).sitemapUrls ?? 0;
    const deadEnds = input.flag === 'dead_end' || usesDeadEnd(terms) ? (await this.deadEnds.of(job)).positions : null;
    const parts: Prisma.Sql[] = [queryCondition(terms, { sitemapUrls, deadEnds })];
    if (input.verdicts.length) parts.push(Prisma.sql`c.verdict = ANY(${verdictsOf(input.verdicts)}::text[])`);
    if (input.flag === 'orphan') parts.push(ORPHAN_SQL);
    if (input.flag === 'unlisted') parts.push(unlistedSql(sitemapUrls));
    if (input.flag === 'dead_end') parts.push(deadEndSql(deadEnds!));
    const where = Prisma.join(parts, ' AND ');
    const found = await this.frontier.settledWhere(job.runId, job.id, where, after, limit + 1);
    let shown = found.slice(0, limit);
    let more = found.length > limit;
    const { rows, positionsRead } = shown.length
      ? await this.scrape.rowsAt(
          workspaceId,
          job.id,
          shown.map((f) => f.position),
          input.formats,
        )
      : { rows: new Map<number, PageRow>(), positionsRead: 0 };
    // Rows too heavy for one answer: the page ends where the reading stopped, the cursor after it.
    if (positionsRead < shown.length) {
      shown = shown.slice(0, positionsRead);
      more = true;
    }
    const data = shown.map((f) => pageRowToProto(graphRow(rows.get(f.position) ?? lostRow(f), f, sitemapUrls)));
    return {
      runId: job.runId,
      data,
      cursor: more ? encode(String(shown.at(-1)!.position)) : undefined,
    };
  }

  async content(
    workspaceId: string,
    projectId: string,
    runId: string | null,
    url: string,
    formats: string[],
  ): Promise<crawlPagesV1.PageContentResponse> {
    const keys = urlKeys(url);
    const { run, job } = await this.resolveRun(workspaceId, projectId, runId);
    const { row, frontier } = await this.findPage(workspaceId, job, keys, formats.length ? formats : ['all']);
    const versions = await this.frontier.versionsOf(workspaceId, projectId, keys, run.id, MAX_VERSIONS);
    return {
      page: pageRowToProto(graphRow(row, frontier, stateOf(job).sitemapUrls ?? 0)),
      runId: run.id,
      versions: versions.map((v) => ({
        runId: v.runId,
        runStatus: jobStatusEnum.toProto(v.runStatus as JobStatusName),
        crawledAt: v.crawledAt?.toISOString(),
        verdict: verdictOf(v.verdict),
        words: v.words ?? undefined,
      })),
    };
  }

  async screenshot(workspaceId: string, projectId: string, runId: string | null, url: string): Promise<Buffer> {
    const keys = urlKeys(url);
    const { job } = await this.resolveRun(workspaceId, projectId, runId);
    const { row } = await this.findPage(workspaceId, job, keys, ['screenshot']);
    const data = row.screenshot?.match(/^data:image\/(?:jpeg|png);base64,(.*)$/)?.[1];
    if (!data) throw new NotFoundError('screenshot of this page');
    return Buffer.from(data, 'base64');
  }

  async links(
    workspaceId: string,
    projectId: string,
    runId: string,
    kind: LinkSet,
    cursor: string | null,
    limit: number,
  ): Promise<crawlPagesV1.ListLinksResponse> {
    const afterKey = cursor ? decodeKey(cursor) : null;
    const take = Math.min(Math.max(limit || 100, 1), MAX_LIMIT);
    const { run, job } = await this.resolveRun(workspaceId, projectId, runId);
    const state = stateOf(job);
    const sitemapUrls = state.sitemapUrls ?? 0;
    const dead = kind === 'dead_ends' ? await this.deadEnds.of(job) : null;
    const where =
      kind === 'orphans' ? ORPHAN_SQL : kind === 'unlisted' ? unlistedSql(sitemapUrls) : deadEndSql(dead!.positions);
    const found = await this.frontier.settledByKey(job.runId, where, afterKey, take + 1);
    const shown = found.slice(0, take);
    const scope = resolveCrawl(crawlRequestSchema.parse(job.request)).config.scope;
    const counts = await this.frontier.readCounts(job.runId);
    const coverage = linkCoverage(kind, {
      status: job.status,
      stop: job.stop,
      recrawl: run.trigger === 'recrawl',
      ...counts,
      sitemapUrls,
      useSitemap: scope.use_sitemap,
      followedLinks: !(scope.use_sitemap && scope.sitemap_mode === 'only'),
      // The crawl engine asks discovery for this many URLs at most (crawl-engine.ts).
      discoveryLimit: Math.min(50_000, scope.max_pages * 2),
      unscanned: dead?.unscanned ?? 0,
    });
    return {
      runId: job.runId,
      kind: linkSetEnum.toProto(kind),
      coverage: { ...coverage, reason: coverage.reason ?? undefined, stop: coverage.stop ?? undefined },
      data: shown.map(linkEntry),
      cursor: found.length > take ? encode(shown.at(-1)!.urlKey) : undefined,
    };
  }

  /**
   * POST /projects/{id}/selectors/match: per selector, the pages of a run whose stored html it
   * matches and how many nodes; a scan of stored bodies, nothing fetched.
   */
  async matchSelectors(
    workspaceId: string,
    projectId: string,
    runId: string | null,
    selectors: string[],
  ): Promise<crawlPagesV1.MatchSelectorsResponse> {
    if (!selectors.length || selectors.length > MAX_SELECTORS)
      throw new ValidationError(`body.selectors: 1 to ${MAX_SELECTORS} selectors`);
    // The run and its pages are read once for every selector.
    const { job } = await this.resolveRun(workspaceId, projectId, runId);
    const positions = await this.frontier.settledPositions(job.runId);
    const results: crawlPagesV1.SelectorMatch[] = [];
    for (const [i, selector] of selectors.entries()) {
      const found = await this.scan(workspaceId, job.id, positions, 'selector', selector).catch((err: unknown) => {
        // The scan names the selector it could not read; say which one of the list it was.
        if (err instanceof ApiError && err.code === 'validation')
          throw new ValidationError(`body.selectors[${i}]: ${err.message.replace(/^q: /, '')}`);
        throw err;
      });
      results.push({
        selector,
        pages: found.matches.length,
        nodes: found.matches.reduce((n, m) => n + m.count, 0),
        scanned: found.scanned,
        unscanned: found.unscanned,
        examples: found.matches.slice(0, SELECTOR_EXAMPLES).map((m) => ({ url: m.url, count: m.count })),
      });
    }
    return { runId: job.runId, selectors: results };
  }

  /**
   * POST /projects/{id}/content/preview: what the content filters make of one stored page (the
   * home page by default) under the saved config with `draft` on top. Nothing fetched.
   */
  async previewContent(
    workspaceId: string,
    projectId: string,
    url: string | null,
    draft: Record<string, unknown> | undefined,
  ): Promise<crawlPagesV1.PreviewContentResponse> {
    const project = await this.jobs.findProject(workspaceId, projectId);
    if (!project) throw new NotFoundError('project');
    const { job } = await this.resolveRun(workspaceId, projectId, null);
    const target = url ?? project.seed;
    const keys = lookupKeys(target);
    if (!keys.length) throw new ValidationError('body.page: an http or https URL');
    const found = await this.frontier.findByKeys(job.runId, keys);
    if (!found || found.state !== 'done') throw new NotFoundError('page of the last finished run');
    const res = await this.scrape.preview({
      workspaceId,
      jobId: job.id,
      position: found.position,
      savedConfig: project.config as Record<string, unknown>,
      draft,
    });
    return { runId: job.runId, preview: res.preview };
  }

  /**
   * GET /projects/{id}/pages/removed: what the content filters take out of one stored page under
   * the saved config (banners, widgets, base64 images, excluded selectors, what lies outside the
   * main content). Needs the page's stored html.
   */
  async removed(
    workspaceId: string,
    projectId: string,
    url: string,
    runId: string | null,
  ): Promise<crawlPagesV1.RemovedContentResponse> {
    const project = await this.jobs.findProject(workspaceId, projectId);
    if (!project) throw new NotFoundError('project');
    const { job } = await this.resolveRun(workspaceId, projectId, runId);
    const keys = lookupKeys(url);
    if (!keys.length) throw new ValidationError('query.url: an http or https URL', undefined, 400);
    const found = await this.frontier.findByKeys(job.runId, keys);
    if (!found || found.state !== 'done') throw new NotFoundError('page of this run');
    const res = await this.scrape.explainRemovals({
      workspaceId,
      jobId: job.id,
      position: found.position,
      savedConfig: project.config as Record<string, unknown>,
      draft: undefined,
    });
    return { runId: job.runId, removals: res.removals };
  }

  async search(
    workspaceId: string,
    projectId: string,
    runId: string | null,
    mode: string,
    q: string,
  ): Promise<crawlPagesV1.SearchPagesResponse> {
    if (mode !== 'content' && mode !== 'selector') throw new ValidationError('body.mode: content or selector');
    const { job } = await this.resolveRun(workspaceId, projectId, runId);
    const positions = await this.frontier.settledPositions(job.runId);
    const { matches, scanned, unscanned } = await this.scan(workspaceId, job.id, positions, mode, q);
    return {
      runId: job.runId,
      mode: searchModeEnum.toProto(mode),
      q,
      counts: { pages: positions.length, scanned, unscanned, matched: matches.length },
      matches: matches
        .slice(0, MAX_MATCHES)
        .map((m) => ({ url: m.url, count: m.count, snippet: m.snippet, body: m.body })),
      truncated: matches.length > MAX_MATCHES,
    };
  }

  /** Scans a run's stored bodies in scrape, chunk by chunk; every match, most first. */
  private async scan(workspaceId: string, jobId: string, positions: number[], mode: string, q: string) {
    const chunks: number[][] = [];
    for (let i = 0; i < positions.length; i += SCAN_CHUNK) chunks.push(positions.slice(i, i + SCAN_CHUNK));
    // One call even for a run without pages: scrape checks q (a bad selector is refused).
    if (!chunks.length) chunks.push([]);
    const results: scrapeV1.ScanPagesResponse[] = [];
    let next = 0;
    const worker = async () => {
      while (next < chunks.length) {
        const chunk = chunks[next++]!;
        results.push(await this.scrape.scan({ workspaceId, jobId, positions: chunk, mode, q }));
      }
    };
    await Promise.all(Array.from({ length: Math.min(SCAN_PARALLEL, chunks.length) }, worker));
    return {
      matches: results
        .flatMap((r) => r.matches)
        .sort((a, b) => b.count - a.count || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0)),
      scanned: results.reduce((n, r) => n + r.scanned, 0),
      unscanned: results.reduce((n, r) => n + r.unscanned, 0),
    };
  }

  /** The settled page of a run under any spelling of its URL, as scrape composes its row. */
  private async findPage(
    workspaceId: string,
    job: CrawlJob,
    keys: string[],
    formats: string[],
  ): Promise<{ row: PageRow; frontier: FrontierRow }> {
    const found = await this.frontier.findByKeys(job.runId, keys);
    if (!found || found.state !== 'done') throw new NotFoundError('page of this run');
    const row = (await this.scrape.rowsAt(workspaceId, job.id, [found.position], formats)).rows.get(found.position);
    return { row: row ?? lostRow(found), frontier: found };
  }
}

const stateOf = (job: CrawlJob) => (job.result ?? {}) as unknown as Partial<CrawlState>;

const urlKeys = (url: string): string[] => {
  const keys = lookupKeys(url);
  if (!keys.length) throw new ValidationError('query.url: must be an http or https URL', undefined, 400);
  return keys;
};

const verdictsOf = (verdicts: string[]): string[] => {
  const bad = verdicts.find((v) => !(PAGE_VERDICTS as string[]).includes(v));
  if (bad)
    throw new ValidationError(`query.v: "${bad}" is not a verdict (${PAGE_VERDICTS.join(', ')})`, undefined, 400);
  return verdicts;
};

/** The frontier keeps the settled page's verdict and error code as the row has them; null: none. */
const verdictOf = (verdict: string | null): pageV1.Verdict =>
  verdict === null
    ? pageV1.Verdict.VERDICT_UNSPECIFIED
    : verdictEnum.toProto(verdict as (typeof PAGE_VERDICTS)[number]);
const errorCodeOf = (code: string | null): pageV1.PageErrorCode =>
  code === null ? pageV1.PageErrorCode.PAGE_ERROR_CODE_UNSPECIFIED : pageErrorCodeEnum.toProto(code as PageErrorCode);

const linkEntry = (f: FrontierRow): crawlPagesV1.LinkEntry => ({
  url: f.url,
  depth: f.depth,
  foundVia: foundViaEnum.toProto(f.foundVia as (typeof foundViaEnum.names)[number]),
  firstReferer: f.firstReferer ?? undefined,
  inSitemap: f.inSitemap,
  inLinks: f.inLinks,
  outLinks: f.outLinks ?? undefined,
  verdict: verdictOf(f.verdict),
  errorCode: errorCodeOf(f.errorCode),
  httpStatus: f.httpStatus ?? undefined,
});
