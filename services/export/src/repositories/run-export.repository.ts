import { Prisma, type PrismaClient } from '@tidemark/db';
import { decodeBodiesAsync, type StoredBodies } from '@tidemark/page-store';

export interface ExportProject {
  id: string;
  name: string;
  seed: string;
}

export interface ExportRun {
  id: string;
  status: string;
}

/** A page row as stored (scrape's `page`), with what the crawl's frontier says of it. */
export interface StoredPage {
  id: string;
  url: string;
  status: string;
  httpStatus: number | null;
  verdict: string | null;
  errorCode: string | null;
  tier: string | null;
  credits: number;
  crawledAt: Date | null;
  /** The row without bodies (and without the playground's rung evidence). */
  data: Record<string, unknown>;
  /** Null when the crawl's frontier has no row for the page (a page not found by a crawl). */
  depth: number | null;
  foundVia: string | null;
  firstReferer: string | null;
  inSitemap: boolean | null;
  inLinks: number | null;
}

/** A usable page in llms order (see `LlmsPage`). */
export interface GroupedPage {
  id: string;
  url: string;
  host: string;
  segment: string;
  head: Record<string, unknown> | null;
}

export interface StoredEntry {
  id: string;
  url: string;
  kind: string;
  data: Record<string, unknown>;
  reviewed: boolean;
  reviewedAt: Date | null;
}

/** Where a keyset page starts: after this sort key. The first page starts after ''. */
export type After = string[];

/** Verdicts of a page worth reading (the spec's "usable pages" of llms). */
const USABLE = Prisma.sql`p.verdict IN ('ok', 'thin')`;

const PAGE_COLUMNS = Prisma.sql`p.id, p.url, p.status, p.http_status AS "httpStatus", p.verdict, p.error_code AS "errorCode",
  p.tier, p.credits, p.crawled_at AS "crawledAt", p.data - 'attempts' AS data, c.depth, c.found_via AS "foundVia",
  c.first_referer AS "firstReferer", c.in_sitemap AS "inSitemap", c.in_links AS "inLinks"`;

/** The crawl's frontier row of a page: same run, same position (the page's place in the crawl job). */
const WITH_GRAPH = Prisma.sql`FROM page p LEFT JOIN crawl_url c ON c.run_id = p.run_id AND c.position = p.position`;

/** Scheme, optional user info, host (without port) and first path segment of a URL, in SQL. */
const HOST_OF = (col: Prisma.Sql) =>
  Prisma.sql`lower(substring(${col} from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?([^/?#:]+)'))`;
const SEGMENT_OF = (col: Prisma.Sql) =>
  Prisma.sql`coalesce(substring(${col} from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]+/([^/?#]*)'), '')`;

/**
 * Reads projects, runs, page rows, the crawl's frontier and change records; never writes them.
 * Like the diff service (docs/architecture.md, departures), an export reads scrape's `page` and
 * crawl's `crawl_url` and diff's `change_*` tables directly: streaming a 10,000-page run's
 * bodies through two more services would move every byte twice. Every list is read in keyset
 * pages of `batch` rows, so what one export holds does not grow with the run.
 */
export class RunExportRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** A standing project of the workspace (a crawl's hidden project is not one). */
  project(workspaceId: string, projectId: string): Promise<ExportProject | null> {
    return this.prisma.project.findFirst({
      where: { id: projectId, workspaceId, ephemeral: false },
      select: { id: true, name: true, seed: true },
    });
  }

  run(workspaceId: string, projectId: string, runId: string): Promise<ExportRun | null> {
    return this.prisma.run.findFirst({
      where: { id: runId, projectId, workspaceId },
      select: { id: true, status: true },
    });
  }

  /** The default run: the latest finished full one (a re-crawl never stands in for the site). */
  latestFinishedRun(workspaceId: string, projectId: string): Promise<ExportRun | null> {
    return this.prisma.run.findFirst({
      where: { projectId, workspaceId, status: 'done', trigger: { not: 'recrawl' } },
      orderBy: { createdAt: 'desc' },
      select: { id: true, status: true },
    });
  }

  /** Page rows by URL (then id), `batch` after `after` ([url, id]). */
  pages(runId: string, after: After, batch: number, only: 'all' | 'usable' | 'with-bodies' | 'with-fields') {
    const filter =
      only === 'usable'
        ? Prisma.sql`AND ${USABLE}`
        : only === 'with-bodies'
          ? Prisma.sql`AND p.bodies IS NOT NULL`
          : only === 'with-fields'
            ? Prisma.sql`AND jsonb_typeof(p.data->'fields') = 'object'`
            : Prisma.empty;
    const [url = '', id = ''] = after;
    return this.prisma.$queryRaw<StoredPage[]>`
      SELECT ${PAGE_COLUMNS} ${WITH_GRAPH}
       WHERE p.run_id = ${runId} AND (p.url, p.id) > (${url}, ${id}) ${filter}
       ORDER BY p.url, p.id LIMIT ${batch}`;
  }

  /**
   * Usable pages in llms order: the site's own host first (`homeHost`, with or without www.,
   * answered as host ''), then by host, first path segment, URL. Sorted by PostgreSQL on each
   * page (no index has this order); byte order, whatever the database's collation.
   */
  groupedPages(runId: string, homeHost: string, after: After, batch: number) {
    const [host = '', segment = '', url = '', id = ''] = after;
    const bare = homeHost.toLowerCase().replace(/^www\./, '');
    return this.prisma.$queryRaw<GroupedPage[]>`
      WITH g AS (
        SELECT p.id COLLATE "C" AS id, p.url COLLATE "C" AS url, p.data->'head' AS head,
               (CASE WHEN regexp_replace(${HOST_OF(Prisma.sql`p.url`)}, '^www[.]', '') = ${bare} THEN ''
                     ELSE ${HOST_OF(Prisma.sql`p.url`)} END) COLLATE "C" AS host,
               ${SEGMENT_OF(Prisma.sql`p.url`)} COLLATE "C" AS segment
          FROM page p
         WHERE p.run_id = ${runId} AND ${USABLE})
      SELECT id, url, head, host, segment FROM g
       WHERE (host, segment, url, id) > (${host}, ${segment}, ${url}, ${id})
       ORDER BY host, segment, url, id LIMIT ${batch}`;
  }

  /**
   * The home page's head, if the page is usable: the row at one of the seed's spellings, else
   * the first seed row of the frontier (a url_list URL is a seed row too, so it comes second).
   */
  async homeHead(runId: string, seedSpellings: string[]): Promise<Record<string, unknown> | null> {
    const rows = await this.prisma.$queryRaw<{ head: Record<string, unknown> | null }[]>`
      SELECT p.data->'head' AS head ${WITH_GRAPH}
       WHERE p.run_id = ${runId} AND ${USABLE} AND (c.found_via = 'seed' OR p.url = ANY(${seedSpellings}::text[]))
       ORDER BY p.url = ANY(${seedSpellings}::text[]) DESC, p.position LIMIT 1`;
    return rows[0]?.head ?? null;
  }

  /** Stored bodies of some pages, unzipped: {markdown, text, cleanHtml, html, links}. */
  async bodies(ids: string[]): Promise<Map<string, StoredBodies>> {
    if (!ids.length) return new Map();
    const rows = await this.prisma.$queryRaw<{ id: string; bodies: Uint8Array | null }[]>`
      SELECT id, bodies FROM page WHERE id = ANY(${ids}::text[]) AND bodies IS NOT NULL`;
    const out = new Map<string, StoredBodies>();
    for (const r of rows) if (r.bodies) out.set(r.id, await decodeBodiesAsync(r.bodies));
    return out;
  }

  /** Whether the run's crawl read any sitemap URL (without one, no page is "unlisted"). */
  async hasSitemap(runId: string): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<{ found: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM crawl_url WHERE run_id = ${runId} AND in_sitemap) AS found`;
    return rows[0]?.found ?? false;
  }

  /** Every field name extracted on some page of the run, in byte order. */
  async fieldNames(runId: string): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ name: string }[]>`
      SELECT DISTINCT k.name COLLATE "C" AS name
        FROM page p, jsonb_object_keys(p.data->'fields') AS k(name)
       WHERE p.run_id = ${runId} AND jsonb_typeof(p.data->'fields') = 'object'
       ORDER BY 1`;
    return rows.map((r) => r.name);
  }

  async changeRecordOf(runId: string): Promise<string | null> {
    const record = await this.prisma.changeRecord.findUnique({ where: { runId }, select: { id: true } });
    return record?.id ?? null;
  }

  /** Entries of a change record by URL (then id), `batch` after `after` ([url, id]). */
  entries(changeId: string, after: After, batch: number) {
    const [url = '', id = ''] = after;
    return this.prisma.$queryRaw<StoredEntry[]>`
      SELECT id, url, kind, data, reviewed, reviewed_at AS "reviewedAt" FROM change_entry
       WHERE change_id = ${changeId} AND (url, id) > (${url}, ${id})
       ORDER BY url, id LIMIT ${batch}`;
  }
}
