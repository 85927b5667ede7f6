import { newId, PAGE_COLUMNS, Prisma, storable, type Page, type PrismaClient, type RawDb } from '@tidemark/db';
import type { PageRow, ScrapeFormat } from '@tidemark/contracts';
import { decodeBodies, encodeBodies, encodeBodiesAsync } from '@tidemark/page-store';
import { emptyRow, type Bodies, type PageResult } from '../ladder/ladder.service.js';
import { DEFAULT_BATCH_WINDOW } from '../config.js';
import { countingIntoJobs, countKeyOf, jobsAfterCount, type JobAfterPage, type JobCounted } from './job.repository.js';

type RowData = PageResult['row'];
export type CrawlRowRef = { workspaceId: string; jobId: string; runId: string; position: number };

/**
 * The columns a settled page writes, whatever kind of job it belongs to. Everything in a row and
 * its bodies was taken from the web: it passes `storable` (no NUL, no lone surrogate), so a
 * hostile page is stored rather than failing its write for good. `encoded`: the bodies already
 * compressed (`storedBodiesOf`); without it they are compressed here, on the event loop.
 */
const settledColumns = (result: PageResult, encoded?: Uint8Array<ArrayBuffer> | null) => {
  const row = storable(result.row);
  return {
    url: row.url,
    status: row.status,
    httpStatus: row.httpStatus,
    verdict: row.verdict,
    errorCode: row.errorCode,
    tier: row.tier,
    credits: row.credits,
    data: row as unknown as Prisma.InputJsonValue,
    bodies: encoded !== undefined ? encoded : encodeBodies(storable(result.bodies)),
    screenshot: result.screenshot ? new Uint8Array(result.screenshot) : null,
    crawledAt: row.crawledAt ? new Date(row.crawledAt) : new Date(),
  };
};

/**
 * A page's bodies as stored: as its reading thread made them, or compressed off the event loop
 * (the hot writes: settleMany, crawl rows).
 */
const storedBodiesOf = async (result: PageResult) =>
  result.storedBodies !== undefined ? result.storedBodies : encodeBodiesAsync(storable(result.bodies));

const crawlRowData = (ref: CrawlRowRef, result: PageResult) => ({
  workspaceId: ref.workspaceId,
  jobId: ref.jobId,
  runId: ref.runId,
  position: ref.position,
  ...settledColumns(result),
});

/**
 * The only file of scrape that touches page. Bodies are stored gzip-compressed. What every
 * scrape or crawled page does runs on node-postgres (`RawDb`, see JobRepository); the rest on
 * Prisma.
 */
export class PageRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly raw: RawDb,
    /** SCRAPE_WORKSPACE_WINDOW: what one workspace's batches keep on the work stream in all. */
    private readonly workspaceWindow = DEFAULT_BATCH_WINDOW,
  ) {}

  /**
   * Pages fetched per UTC day from `since` on (the usage view): rows a fetch answered, not the
   * ones robots.txt ruled out or a stored copy served. The (workspace_id, crawled_at) index
   * bounds the read to those days.
   */
  async usageByDay(
    workspaceId: string,
    since: Date,
  ): Promise<{ day: string; pages: number; browserPages: number; blockedPages: number; credits: number }[]> {
    const rows = await this.prisma.$queryRaw<
      { day: string; pages: bigint; browser_pages: bigint; blocked_pages: bigint; credits: bigint }[]
    >`
      SELECT to_char(crawled_at, 'YYYY-MM-DD') AS day,
             count(*)::bigint AS pages,
             (count(*) FILTER (WHERE tier = 'browser'))::bigint AS browser_pages,
             (count(*) FILTER (WHERE verdict = 'blocked'))::bigint AS blocked_pages,
             COALESCE(SUM(credits), 0)::bigint AS credits
        FROM page
       WHERE workspace_id = ${workspaceId} AND crawled_at >= ${since}
         AND status IN ('done', 'error') AND verdict IS DISTINCT FROM 'robots' AND verdict IS DISTINCT FROM 'cached'
       GROUP BY 1
       ORDER BY 1`;
    return rows.map((r) => ({
      day: r.day,
      pages: Number(r.pages),
      browserPages: Number(r.browser_pages),
      blockedPages: Number(r.blocked_pages),
      credits: Number(r.credits),
    }));
  }

  /** One queued row per URL, in the order given (`running`: taken by the caller from the start). */
  async createQueued(
    workspaceId: string,
    jobId: string,
    urls: string[],
    status: 'queued' | 'running' = 'queued',
  ): Promise<void> {
    await this.raw.$executeRaw`
      INSERT INTO page (id, workspace_id, job_id, position, url, status, data)
      SELECT id, ${workspaceId}, ${jobId}, position, url, ${status}, data
        FROM unnest(${urls.map(() => newId('pg'))}::text[], ${urls.map((_, i) => i)}::int[], ${urls}::text[],
                    ${urls.map((url) => JSON.stringify(emptyRow(url)))}::jsonb[]) AS q(id, position, url, data)`;
  }

  /**
   * Takes rows for fetching, several in one statement (claims that came together under load);
   * answers, per row in order, whether it was taken. False when it is done or cancelled, or its
   * job was cancelled (a cancel that came while the page queued for its host still stops it): a
   * redelivered message for a page already settled does nothing. A row left `running` by a
   * worker that died is taken again by a claim that may (`reclaim`: its message's redelivery);
   * a first delivery takes a queued row only, so a second message for the page (the dispatch
   * sweep's) does not fetch it beside the first.
   */
  async claimMany(rows: { jobId: string; position: number; reclaim: boolean }[]): Promise<boolean[]> {
    if (!rows.length) return [];
    const taken = await this.raw.$queryRaw<{ job_id: string; position: number }[]>`
      /* prepared */
      UPDATE page SET status = 'running'
        FROM unnest(${rows.map((r) => r.jobId)}::text[], ${rows.map((r) => r.position)}::int[],
                    ${rows.map((r) => r.reclaim)}::bool[]) AS i(job_id, position, reclaim)
       WHERE page.job_id = i.job_id AND page.position = i.position
         AND (page.status = 'queued' OR (page.status = 'running' AND i.reclaim))
         AND EXISTS (SELECT 1 FROM job WHERE job.id = i.job_id AND job.status <> 'cancelled')
      RETURNING page.job_id, page.position`;
    const keys = new Set(taken.map((w) => `${w.job_id}:${w.position}`));
    return rows.map(({ jobId, position }) => keys.has(`${jobId}:${position}`));
  }

  /**
   * Settles fetched pages of scrape jobs in one statement: each row is written (it must still be
   * `running`: a row cancelled meanwhile is left) and the rows written are counted into their
   * jobs (`countingIntoJobs`), finishing a job whose last page is among them. Row and count
   * cannot part: a page is never written and left uncounted. The rows are locked first, then
   * their jobs in id order. Answers, per page in order, whether its row was written, and each job
   * counted into, as the statement left it.
   */
  async settleMany(
    items: { jobId: string; position: number; result: PageResult }[],
  ): Promise<{ written: boolean[]; jobs: Map<string, JobAfterPage> }> {
    if (!items.length) return { written: [], jobs: new Map() };
    const encoded = await Promise.all(items.map(({ result }) => storedBodiesOf(result)));
    // Every value cast: the types of a VALUES list are read from its rows, not from page.
    // Prepared (libs/db PREPARED_MARK), one name per count of rows (at most JobPageWrites'
    // MAX_ROWS): planning this statement was half of its 3 ms on a one-URL scrape's path, and
    // its plan (rows by their key, their jobs by id) does not depend on the values.
    const values = items.map(({ jobId, position, result }, i) => {
      const c = settledColumns(result, encoded[i]);
      return Prisma.sql`(${jobId}::text, ${position}::int, ${c.url}::text, ${c.status}::text, ${c.httpStatus}::int,
        ${c.verdict}::text, ${c.errorCode}::text, ${c.tier}::text, ${c.credits}::int, ${JSON.stringify(c.data)}::jsonb,
        ${c.bodies}::bytea, ${c.screenshot}::bytea, ${c.crawledAt}::timestamp, ${countKeyOf(c)}::text)`;
    });
    const [answer] = await this.raw.$queryRaw<
      { written: { j: string; p: number }[] | null; jobs: JobCounted[] | null }[]
    >`/* prepared */
      WITH counting AS (
        UPDATE page SET url = i.url, status = i.status, http_status = i.http_status, verdict = i.verdict,
               error_code = i.error_code, tier = i.tier, credits = i.credits, data = i.data, bodies = i.bodies,
               screenshot = i.screenshot, crawled_at = i.crawled_at
          FROM (VALUES ${Prisma.join(values)}) AS i(job_id, position, url, status, http_status, verdict, error_code,
                                                   tier, credits, data, bodies, screenshot, crawled_at, count_key)
         WHERE page.job_id = i.job_id AND page.position = i.position AND page.status = 'running'
        RETURNING page.job_id, page.position, i.credits, i.count_key),
      ${countingIntoJobs(this.workspaceWindow)}
      SELECT (SELECT json_agg(json_build_object('j', job_id, 'p', position)) FROM counting) AS written,
             (SELECT json_agg(counted) FROM counted) AS jobs`;
    const keys = new Set((answer?.written ?? []).map((w) => `${w.j}:${w.p}`));
    return {
      written: items.map(({ jobId, position }) => keys.has(`${jobId}:${position}`)),
      jobs: jobsAfterCount(answer?.jobs ?? []),
    };
  }

  /**
   * Crawl pages' first rows, several in one statement (the crawl's hot path: one round trip and
   * one call's overhead for the pages that settled together). Answers, per row in order, whether
   * it was written (false: a redelivered page whose row exists already).
   */
  async insertCrawlRows(rows: { ref: CrawlRowRef; result: PageResult }[]): Promise<boolean[]> {
    if (!rows.length) return [];
    const encoded = await Promise.all(rows.map(({ result }) => storedBodiesOf(result)));
    const values = rows.map(({ ref, result }, i) => {
      const c = settledColumns(result, encoded[i]);
      return Prisma.sql`(${newId('pg')}, ${ref.workspaceId}, ${ref.runId}, ${ref.jobId}, ${ref.position}, ${c.url},
        ${c.status}, ${c.httpStatus}, ${c.verdict}, ${c.errorCode}, ${c.tier}, ${c.credits},
        ${JSON.stringify(c.data)}::jsonb, ${c.bodies}, ${c.screenshot}, ${c.crawledAt})`;
    });
    const written = await this.raw.$queryRaw<{ job_id: string; position: number }[]>`
      INSERT INTO page (id, workspace_id, run_id, job_id, position, url, status, http_status, verdict, error_code,
                        tier, credits, data, bodies, screenshot, crawled_at)
      VALUES ${Prisma.join(values)}
      ON CONFLICT (job_id, position) DO NOTHING
      RETURNING job_id, position`;
    const keys = new Set(written.map((w) => `${w.job_id}:${w.position}`));
    return rows.map(({ ref }) => keys.has(`${ref.jobId}:${ref.position}`));
  }

  /**
   * `insertCrawlRows`, and a statement that fails written again row by row, so that one row that
   * cannot be stored fails its own page only. Answers, per row in order, what kept it from being
   * stored (null: stored, or there already).
   */
  async insertCrawlRowsApart(rows: { ref: CrawlRowRef; result: PageResult }[]): Promise<({ error: unknown } | null)[]> {
    try {
      await this.insertCrawlRows(rows);
      return rows.map(() => null);
    } catch {
      const failed: ({ error: unknown } | null)[] = [];
      for (const row of rows) {
        try {
          await this.insertCrawlRows([row]);
          failed.push(null);
        } catch (error) {
          failed.push({ error });
        }
      }
      return failed;
    }
  }

  /**
   * A retried crawl page (it was rate limited, or answered 5xx) replaces its row, saying which
   * attempt wrote it: a redelivery of that attempt then answers from the row (`findAt`).
   */
  async rewriteCrawlRow(ref: CrawlRowRef, result: PageResult, attempt: number): Promise<void> {
    const data = { ...crawlRowData(ref, result), attempt };
    await this.prisma.page.upsert({
      where: { jobId_position: { jobId: ref.jobId, position: ref.position } },
      create: { id: newId('pg'), ...data },
      update: data,
    });
  }

  /**
   * Settles a row whose work was given up (or found stalled) with the error row given; false
   * when the row had settled or been cancelled already (then nothing changes).
   */
  async giveUp(jobId: string, position: number, result: PageResult): Promise<boolean> {
    const { count } = await this.prisma.page.updateMany({
      where: { jobId, position, status: { in: ['queued', 'running'] } },
      data: settledColumns(result),
    });
    return count > 0;
  }

  /**
   * A job's rows still open as errors with `reason`: queued, or taken by a worker whose work was
   * lost (`statuses`: only those of these statuses).
   */
  async failOpen(jobId: string, reason: string, statuses: string[] = ['queued', 'running']): Promise<number> {
    return this.prisma.$executeRaw`
      UPDATE page SET status = 'error',
             data = data || jsonb_build_object('status', 'error', 'reason', ${reason}::text,
                                               'crawledAt', to_jsonb(${new Date().toISOString()}::text))
       WHERE job_id = ${jobId} AND status = ANY(${statuses}::text[])`;
  }

  /** A crawl page given up: its error row, replacing whatever an earlier attempt wrote. */
  async giveUpCrawlRow(ref: CrawlRowRef, result: PageResult, attempt: number): Promise<void> {
    await this.rewriteCrawlRow(ref, result, attempt);
  }

  async findAt(jobId: string, position: number): Promise<Page | null> {
    const [page] = await this.raw.$queryRaw<Page[]>`
      SELECT ${PAGE_COLUMNS} FROM page WHERE job_id = ${jobId} AND position = ${position}`;
    return page ?? null;
  }

  /** Rows of a job at the given positions (the caller orders them). */
  atPositions(workspaceId: string, jobId: string, positions: number[]): Promise<Page[]> {
    return this.raw.$queryRaw<Page[]>`
      SELECT ${PAGE_COLUMNS} FROM page
       WHERE job_id = ${jobId} AND workspace_id = ${workspaceId} AND position = ANY(${positions}::int[])`;
  }

  /** The positions of a job's rows not yet taken. */
  async queuedPositions(jobId: string): Promise<number[]> {
    const rows = await this.raw.$queryRaw<{ position: number }[]>`
      SELECT position FROM page WHERE job_id = ${jobId} AND status = 'queued' ORDER BY position`;
    return rows.map((r) => r.position);
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

  /** Whether the job has a row at or after position `after` (its bodies left unread). */
  async hasRowsFrom(jobId: string, after: number): Promise<boolean> {
    const [found] = await this.raw.$queryRaw<{ position: number }[]>`
      SELECT position FROM page WHERE job_id = ${jobId} AND position >= ${after} ORDER BY position LIMIT 1`;
    return found !== undefined;
  }

  list(jobId: string, after: number, take: number): Promise<Page[]> {
    return this.raw.$queryRaw<Page[]>`
      SELECT ${PAGE_COLUMNS} FROM page WHERE job_id = ${jobId} AND position >= ${after}
       ORDER BY position LIMIT ${take}::int`;
  }

  /** The newest read copy of a URL in the workspace younger than `since`, for maxAge. */
  async fresh(workspaceId: string, url: string, since: Date): Promise<Page | null> {
    const [page] = await this.raw.$queryRaw<Page[]>`
      SELECT ${PAGE_COLUMNS} FROM page
       WHERE workspace_id = ${workspaceId} AND url = ${url} AND status = 'done' AND verdict IN ('ok', 'thin')
         AND crawled_at >= ${since}
       ORDER BY crawled_at DESC LIMIT 1`;
    return page ?? null;
  }
}

/** The bodies kept for a stored page. */
export const storedBodies = (page: Page): Bodies => decodeBodies(page.bodies);

/** A stored page as a row of the API, with the bodies the caller asked for. */
export const toRow = (page: Page, formats: ScrapeFormat[] | 'all'): PageRow =>
  apiRow(
    page.data as unknown as RowData,
    page.status,
    page.bodies ? decodeBodies(page.bodies) : null,
    page.screenshot,
    formats,
  );

/**
 * A page just read and stored, as `toRow` would read it back: the same `storable` form the row
 * was written in, without the round trip and the bodies' decompression (a one-URL scrape's answer).
 */
export const storedRow = (result: PageResult, formats: ScrapeFormat[] | 'all'): PageRow => {
  // Through JSON as jsonb keeps it: no undefined members, dates as strings.
  const data = JSON.parse(JSON.stringify(storable(result.row))) as RowData;
  return apiRow(data, data.status, storable(result.bodies), result.screenshot ?? null, formats);
};

const apiRow = (
  data: RowData,
  status: string,
  bodies: Bodies | null,
  screenshot: Uint8Array | null,
  formats: ScrapeFormat[] | 'all',
): PageRow => {
  const row = { ...data, status: status as PageRow['status'] } as PageRow;
  // The rung-by-rung evidence is the playground's; scrape rows stay lean.
  if (formats !== 'all') delete row.attempts;
  if (bodies) {
    const want = (f: ScrapeFormat) => formats === 'all' || formats.includes(f);
    if (want('markdown') && bodies.markdown !== undefined) row.markdown = bodies.markdown;
    if (want('text') && bodies.text !== undefined) row.text = bodies.text;
    if (want('cleanHtml') && bodies.cleanHtml !== undefined) row.cleanHtml = bodies.cleanHtml;
    if (want('rawHtml') && bodies.html !== undefined) row.html = bodies.html;
    if (want('links') && bodies.links !== undefined) row.links = bodies.links;
  }
  if (screenshot && (formats === 'all' || formats.includes('screenshot'))) {
    // JPEG or PNG, as the screenshot was asked for (a PNG starts with byte 0x89).
    const type = screenshot[0] === 0x89 ? 'image/png' : 'image/jpeg';
    row.screenshot = `data:${type};base64,${Buffer.from(screenshot).toString('base64')}`;
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
    bodies: decodeBodies(page.bodies),
    ...(page.screenshot ? { screenshot: Buffer.from(page.screenshot) } : {}),
  };
};
