import { gunzipSync, gzipSync } from 'node:zlib';
import { newId, type Page, type Prisma, type PrismaClient } from '@tidemark/db';
import type { PageRow, ScrapeFormat } from '@tidemark/contracts';
import { emptyRow, type Bodies, type PageResult } from '../ladder/ladder.service.js';

type RowData = PageResult['row'];
type CrawlRowRef = { workspaceId: string; jobId: string; runId: string; position: number };

/** The columns a settled page writes, whatever kind of job it belongs to. */
const settledColumns = (result: PageResult) => ({
  status: result.row.status,
  httpStatus: result.row.httpStatus,
  verdict: result.row.verdict,
  errorCode: result.row.errorCode,
  tier: result.row.tier,
  credits: result.row.credits,
  data: result.row as unknown as Prisma.InputJsonValue,
  bodies: Object.keys(result.bodies).length ? new Uint8Array(gzipSync(JSON.stringify(result.bodies))) : null,
  screenshot: result.screenshot ? new Uint8Array(result.screenshot) : null,
  crawledAt: result.row.crawledAt ? new Date(result.row.crawledAt) : new Date(),
});

const crawlRowData = (ref: CrawlRowRef, result: PageResult) => ({
  workspaceId: ref.workspaceId,
  jobId: ref.jobId,
  runId: ref.runId,
  position: ref.position,
  url: result.row.url,
  ...settledColumns(result),
});

/** The only file of scrape that touches page. Bodies are stored gzip-compressed. */
export class PageRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** One queued row per URL, in the order given. */
  async createQueued(workspaceId: string, jobId: string, urls: string[]): Promise<void> {
    await this.prisma.page.createMany({
      data: urls.map((url, position) => ({
        id: newId('pg'),
        workspaceId,
        jobId,
        position,
        url,
        status: 'queued',
        data: emptyRow(url) as unknown as Prisma.InputJsonValue,
      })),
    });
  }

  /**
   * Takes a row for fetching. False when it is done or cancelled: a redelivered message for a
   * page already settled does nothing. A row left `running` by a worker that died is taken again.
   */
  async claim(jobId: string, position: number): Promise<boolean> {
    // One statement: the row must be open and its job not cancelled (a cancel that came while
    // the page queued for its host still stops it).
    const count = await this.prisma.$executeRaw`
      UPDATE page SET status = 'running'
       WHERE job_id = ${jobId} AND position = ${position} AND status IN ('queued', 'running')
         AND EXISTS (SELECT 1 FROM job WHERE id = ${jobId} AND status <> 'cancelled')`;
    return count > 0;
  }

  /** Writes a fetched page; false when the row was cancelled meanwhile (then nothing changes). */
  async complete(jobId: string, position: number, result: PageResult): Promise<boolean> {
    const { count } = await this.prisma.page.updateMany({
      where: { jobId, position, status: 'running' },
      data: settledColumns(result),
    });
    return count > 0;
  }

  /**
   * Writes a crawl page's row (crawl rows are not queued ahead: the crawl owns its frontier).
   * False when the row already exists: a redelivered fetch writes nothing twice.
   */
  async insertCrawlRow(ref: CrawlRowRef, result: PageResult): Promise<boolean> {
    // Raw SQL: one row per crawled page is the crawl's hot path, and the query compiler's
    // per-call cost was a large share of a crawl's CPU.
    const c = settledColumns(result);
    const inserted = await this.prisma.$executeRaw`
      INSERT INTO page (id, workspace_id, run_id, job_id, position, url, status, http_status, verdict, error_code,
                        tier, credits, data, bodies, screenshot, crawled_at)
      VALUES (${newId('pg')}, ${ref.workspaceId}, ${ref.runId}, ${ref.jobId}, ${ref.position}, ${result.row.url},
              ${c.status}, ${c.httpStatus}, ${c.verdict}, ${c.errorCode}, ${c.tier}, ${c.credits},
              ${JSON.stringify(c.data)}::jsonb, ${c.bodies}, ${c.screenshot}, ${c.crawledAt})
      ON CONFLICT (job_id, position) DO NOTHING`;
    return inserted > 0;
  }

  /** A retried crawl page (it was rate limited) replaces its row. */
  async rewriteCrawlRow(ref: CrawlRowRef, result: PageResult): Promise<void> {
    await this.prisma.page.upsert({
      where: { jobId_position: { jobId: ref.jobId, position: ref.position } },
      create: { id: newId('pg'), ...crawlRowData(ref, result) },
      update: crawlRowData(ref, result),
    });
  }

  findAt(jobId: string, position: number): Promise<Page | null> {
    return this.prisma.page.findUnique({ where: { jobId_position: { jobId, position } } });
  }

  /** Rows of a job at the given positions (the caller orders them). */
  atPositions(workspaceId: string, jobId: string, positions: number[]): Promise<Page[]> {
    return this.prisma.page.findMany({ where: { workspaceId, jobId, position: { in: positions } } });
  }

  async cancelQueued(jobId: string): Promise<number> {
    const { count } = await this.prisma.page.updateMany({
      where: { jobId, status: 'queued' },
      data: { status: 'cancelled' },
    });
    return count;
  }

  async screenshot(jobId: string, position: number): Promise<Uint8Array | null> {
    const page = await this.prisma.page.findUnique({
      where: { jobId_position: { jobId, position } },
      select: { screenshot: true },
    });
    return page?.screenshot ?? null;
  }

  async list(jobId: string, after: number, take: number): Promise<Page[]> {
    return this.prisma.page.findMany({
      where: { jobId, position: { gte: after } },
      orderBy: { position: 'asc' },
      take,
    });
  }

  /** The newest read copy of a URL in the workspace younger than `since`, for maxAge. */
  async fresh(workspaceId: string, url: string, since: Date): Promise<Page | null> {
    return this.prisma.page.findFirst({
      where: { workspaceId, url, status: 'done', verdict: { in: ['ok', 'thin'] }, crawledAt: { gte: since } },
      orderBy: { crawledAt: 'desc' },
    });
  }
}

/** The bodies kept for a stored page. */
export const storedBodies = (page: Page): Bodies =>
  page.bodies ? (JSON.parse(gunzipSync(page.bodies).toString()) as Bodies) : {};

/** A stored page as a row of the API, with the bodies the caller asked for. */
export const toRow = (page: Page, formats: ScrapeFormat[] | 'all'): PageRow => {
  const row = { ...(page.data as unknown as RowData), status: page.status as PageRow['status'] } as PageRow;
  // The rung-by-rung evidence is the playground's; scrape rows stay lean.
  if (formats !== 'all') delete row.attempts;
  if (page.bodies) {
    const bodies = JSON.parse(gunzipSync(page.bodies).toString()) as Bodies;
    const want = (f: ScrapeFormat) => formats === 'all' || formats.includes(f);
    if (want('markdown') && bodies.markdown !== undefined) row.markdown = bodies.markdown;
    if (want('text') && bodies.text !== undefined) row.text = bodies.text;
    if (want('cleanHtml') && bodies.cleanHtml !== undefined) row.cleanHtml = bodies.cleanHtml;
    if (want('rawHtml') && bodies.html !== undefined) row.html = bodies.html;
    if (want('links') && bodies.links !== undefined) row.links = bodies.links;
  }
  if (page.screenshot && (formats === 'all' || formats.includes('screenshot'))) {
    row.screenshot = `data:image/jpeg;base64,${Buffer.from(page.screenshot).toString('base64')}`;
  }
  return row;
};

/** A stored copy served again under maxAge: verdict cached, nothing charged. */
export const toCachedResult = (page: Page): PageResult => {
  const row = page.data as unknown as RowData;
  return {
    row: {
      ...row,
      verdict: 'cached',
      credits: 0,
      billedAs: null,
      signals: ['cached', ...row.signals],
      reason: `served from the copy fetched at ${page.crawledAt?.toISOString()}`,
    },
    bodies: page.bodies ? (JSON.parse(gunzipSync(page.bodies).toString()) as Bodies) : {},
    ...(page.screenshot ? { screenshot: Buffer.from(page.screenshot) } : {}),
  };
};
