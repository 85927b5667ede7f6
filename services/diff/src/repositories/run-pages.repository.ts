import type { PrismaClient } from '@tidemark/db';
import { decodeBodies, type StoredBodies } from '@tidemark/page-store';
import type { PageSummary, RunSummary } from '../compare/types.js';

export interface RunToCompare {
  id: string;
  workspaceId: string;
  projectId: string;
  status: string;
  stop: string | null;
  /** manual, schedule, api, crawl, recrawl. */
  trigger: string;
  createdAt: Date;
  /** The project's saved config (grouped). */
  config: Record<string, Record<string, unknown>>;
}

export type { StoredBodies };

/**
 * Reads runs, projects and page rows, never writes them: a finished run's rows do not change,
 * and streaming two runs of pages with their bodies through the scrape service would move every
 * byte twice (docs/architecture.md, departures).
 */
export class RunPagesRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async run(runId: string): Promise<RunToCompare | null> {
    const run = await this.prisma.run.findUnique({ where: { id: runId }, include: { project: true } });
    if (!run) return null;
    return {
      id: run.id,
      workspaceId: run.workspaceId,
      projectId: run.projectId,
      status: run.status,
      stop: run.stop,
      trigger: run.trigger,
      createdAt: run.createdAt,
      config: run.project.config as RunToCompare['config'],
    };
  }

  /**
   * The run a run is compared with: the project's latest finished full run before it. A re-crawl
   * of listed pages never stands in for the site, so it is never a baseline.
   */
  async baselineOf(run: RunToCompare): Promise<RunToCompare | null> {
    const before = await this.prisma.run.findFirst({
      where: {
        projectId: run.projectId,
        status: 'done',
        trigger: { not: 'recrawl' },
        createdAt: { lt: run.createdAt },
        id: { not: run.id },
      },
      orderBy: { createdAt: 'desc' },
      select: { id: true },
    });
    return before ? this.run(before.id) : null;
  }

  /** The latest finished run of a project (the default `run_id` of the routes). */
  async latestFinished(workspaceId: string, projectId: string): Promise<string | null> {
    const run = await this.prisma.run.findFirst({
      where: { workspaceId, projectId, status: 'done' },
      orderBy: { createdAt: 'desc' },
      select: { id: true },
    });
    return run?.id ?? null;
  }

  async summary(run: RunToCompare): Promise<RunSummary> {
    const rows = await this.prisma.$queryRaw<
      {
        url: string;
        status: string;
        verdict: string | null;
        error_code: string | null;
        http_status: number | null;
        words: number | null;
        fields: Record<string, unknown> | null;
      }[]
    >`SELECT url, status, verdict, error_code, http_status, (data->>'words')::int AS words, data->'fields' AS fields
        FROM page WHERE run_id = ${run.id}`;
    const pages: PageSummary[] = rows.map((r) => ({
      url: r.url,
      status: r.status,
      verdict: r.verdict as PageSummary['verdict'],
      errorCode: r.error_code as PageSummary['errorCode'],
      httpStatus: r.http_status,
      // No fingerprint is stored yet: every page present in both runs is loaded and compared.
      contentHash: null,
      words: r.words ?? 0,
      ...(r.fields ? { fields: r.fields as PageSummary['fields'] } : {}),
    }));
    return { runId: run.id, status: run.status, stop: run.stop, recrawl: run.trigger === 'recrawl', pages };
  }

  /** One page's stored bodies in a run (the first row of that URL). */
  async bodies(runId: string, url: string): Promise<StoredBodies | null> {
    const rows = await this.prisma.$queryRaw<{ bodies: Uint8Array | null }[]>`
      SELECT bodies FROM page WHERE run_id = ${runId} AND url = ${url} ORDER BY position LIMIT 1`;
    const raw = rows[0]?.bodies;
    if (!raw) return rows.length ? {} : null;
    return decodeBodies(raw);
  }

  async projectVisible(workspaceId: string, projectId: string): Promise<boolean> {
    return (await this.prisma.project.count({ where: { id: projectId, workspaceId, ephemeral: false } })) > 0;
  }

  async runOfProject(workspaceId: string, projectId: string, runId: string): Promise<RunToCompare | null> {
    const run = await this.run(runId);
    return run && run.workspaceId === workspaceId && run.projectId === projectId ? run : null;
  }

  /** Pages a run found blocked that the baseline had read (by URL). */
  async newlyBlocked(runId: string, baselineId: string, take: number) {
    return this.prisma.$queryRaw<{ url: string; error_code: string | null; http_status: number | null }[]>`
      SELECT c.url, c.error_code, c.http_status FROM page c
        JOIN page b ON b.run_id = ${baselineId} AND b.url = c.url AND b.verdict IN ('ok', 'thin', 'cached')
       WHERE c.run_id = ${runId} AND c.verdict = 'blocked'
       ORDER BY c.url LIMIT ${take}`;
  }

  /**
   * Pages whose place in the link graph flipped between two runs of a site with sitemaps:
   * `orphaned` (listed in a sitemap, linked before, linked from nowhere now) or `linked` (the
   * reverse). Read from the crawl's frontier rows (crawl_url), read-only.
   */
  async linkFlips(runId: string, baselineId: string, take: number) {
    return this.prisma.$queryRaw<{ url: string; flip: 'orphaned' | 'linked' }[]>`
      SELECT c.url, CASE WHEN c.in_links = 0 THEN 'orphaned' ELSE 'linked' END AS flip
        FROM crawl_url c JOIN crawl_url b ON b.run_id = ${baselineId} AND b.url_key = c.url_key
       WHERE c.run_id = ${runId} AND c.state = 'done' AND b.state = 'done'
         AND c.in_sitemap AND b.in_sitemap AND c.found_via <> 'seed'
         AND ((c.in_links = 0) <> (b.in_links = 0))
       ORDER BY c.url LIMIT ${take}`;
  }

  /** The latest full run before this one that was compared (its record says how it went). */
  async previousCompared(run: RunToCompare): Promise<{ id: string; status: string } | null> {
    return this.prisma.run.findFirst({
      where: {
        projectId: run.projectId,
        trigger: { not: 'recrawl' },
        createdAt: { lt: run.createdAt },
        id: { not: run.id },
        changes: { isNot: null },
      },
      orderBy: { createdAt: 'desc' },
      select: { id: true, status: true },
    });
  }

  /** How a run found these URLs: the page that first linked each, and its depth. */
  async referers(runId: string, urls: string[]) {
    if (!urls.length) return [];
    return this.prisma.$queryRaw<{ url: string; first_referer: string | null; depth: number }[]>`
      SELECT url, first_referer, depth FROM crawl_url WHERE run_id = ${runId} AND url = ANY(${urls}::text[])`;
  }

  /** Which of these URLs a run read (verdict ok, thin or cached). */
  async readIn(runId: string, urls: string[]): Promise<Set<string>> {
    if (!urls.length) return new Set();
    const rows = await this.prisma.$queryRaw<{ url: string }[]>`
      SELECT url FROM page WHERE run_id = ${runId} AND url = ANY(${urls}::text[])
         AND verdict IN ('ok', 'thin', 'cached')`;
    return new Set(rows.map((r) => r.url));
  }

  /** Pages whose head canonical, robots or title differs between the baseline and this run (both read). */
  async headChanges(runId: string, baselineId: string, take: number) {
    return this.prisma.$queryRaw<
      {
        url: string;
        canonical_before: string | null;
        canonical_after: string | null;
        robots_before: string | null;
        robots_after: string | null;
        title_before: string | null;
        title_after: string | null;
      }[]
    >`
      SELECT c.url,
             b.data->'head'->>'canonical' AS canonical_before, c.data->'head'->>'canonical' AS canonical_after,
             b.data->'head'->>'robots' AS robots_before, c.data->'head'->>'robots' AS robots_after,
             b.data->'head'->>'title' AS title_before, c.data->'head'->>'title' AS title_after
        FROM page c JOIN page b ON b.run_id = ${baselineId} AND b.url = c.url
       WHERE c.run_id = ${runId}
         AND c.verdict IN ('ok', 'thin', 'cached') AND b.verdict IN ('ok', 'thin', 'cached')
         AND (b.data->'head'->>'canonical' IS DISTINCT FROM c.data->'head'->>'canonical'
           OR b.data->'head'->>'robots' IS DISTINCT FROM c.data->'head'->>'robots'
           OR b.data->'head'->>'title' IS DISTINCT FROM c.data->'head'->>'title')
       ORDER BY c.url LIMIT ${take}`;
  }
}
