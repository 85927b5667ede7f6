// Long (~460 lines) because every statement on crawl_url lives here, most of them raw SQL run
// under the run's advisory lock; spread over files, the locking rules would be too.
import { Prisma, storable, storableText, type PrismaClient, type RawDb, type RawSql } from '@tidemark/db';

/**
 * A transaction's raw SQL: every frontier change of a run happens inside the run's lock, in a
 * transaction on node-postgres (`RawDb`), not Prisma's engine: a crawl runs one per step.
 */
export type Tx = RawSql;

export interface NewUrl {
  key: string;
  url: string;
  host: string;
  depth: number;
  foundVia: 'seed' | 'link' | 'sitemap' | 'feed';
  firstReferer: string | null;
  inSitemap: boolean;
}

export interface FrontierRow {
  url: string;
  urlKey: string;
  host: string;
  position: number;
  depth: number;
  state: string;
  foundVia: string;
  firstReferer: string | null;
  inSitemap: boolean;
  inLinks: number;
  outLinks: number | null;
  attempts: number;
  doneAt: Date | null;
  verdict: string | null;
  errorCode: string | null;
  httpStatus: number | null;
}

/** What a dispatch reads of a queued URL. */
export type Dispatchable = Pick<FrontierRow, 'url' | 'host' | 'position' | 'attempts' | 'foundVia'> & {
  /**
   * Handed out before (given back, or lost and queued again): a holder that may have fetched it
   * then may have written its row. Set by a dispatch only.
   */
  dispatchedBefore?: boolean;
};

/** How many URLs may go out in a dispatch, and where to (dispatchNext). */
export interface DispatchLimits {
  /** Most URLs out at once: of the crawl, or of the lease slot when `slot` is given. */
  maxInFlight: number;
  /** Most URLs of one host out at once, in all the crawl's slots. */
  perHost: number;
  /** Hosts waiting on a delay or Retry-After. */
  waitingHosts: string[];
  /** A leased crawl's lease slot (ADR 14), `index` of `of`: the URLs picked are marked as its. */
  slot?: { index: number; of: number };
}

/** A place in the settled pages: they are listed by (doneAt, position). */
export interface PageCursor {
  at: Date;
  position: number;
}

export interface Settled {
  /** The dispatch the result answers (see settleMany). */
  attempt: number;
  verdict: string | null;
  errorCode: string | null;
  httpStatus: number | null;
  outLinks: number;
}

/** The row's columns, qualified by `t` when a statement has other tables in scope. */
const columnsOf = (t = '') => {
  const q = t ? `${t}.` : '';
  return `${q}url, ${q}url_key AS "urlKey", ${q}host, ${q}position, ${q}depth, ${q}state, ${q}found_via AS "foundVia",
  ${q}first_referer AS "firstReferer", ${q}in_sitemap AS "inSitemap", ${q}in_links AS "inLinks", ${q}out_links AS "outLinks",
  ${q}attempts, ${q}done_at AS "doneAt", ${q}verdict, ${q}error_code AS "errorCode", ${q}http_status AS "httpStatus"`;
};
const columns = columnsOf();

/** The depth a sitemap's URLs are found at (the seed's own entry at 0): seeder.ts adds them so. */
export const SITEMAP_DEPTH = 1;

/**
 * Crawl order: breadth-first (depth, then discovery), or for sitemap_first the URLs a sitemap
 * listed (at most SITEMAP_DEPTH deep) before all others, each part breadth-first. Both are read
 * from the index (run_id, state, depth, position) as one or two ranges (see `headSql`).
 */
const CRAWL_ORDER = {
  links: 'depth, position',
  sitemap_first: `NOT (in_sitemap AND depth <= ${SITEMAP_DEPTH}), depth, position`,
} as const;

const WHOSE_TIME_HAS_COME = `(not_before IS NULL OR not_before <= (clock_timestamp() AT TIME ZONE 'utc'))`;

/**
 * The first `limit` queued URLs of run $1 whose time has come, in crawl order, when `also` holds
 * (a condition evaluated once). Each part is a range of the crawl-order index read in order with
 * no other condition, so that it can stop at the limit (dispatchNext's plan settings make sure it
 * does); sitemap_first reads the URLs a sitemap listed, then the others only if those fell short.
 */
const headSql = (order: 'links' | 'sitemap_first', also: string, limit: string, select = columns) => {
  const part = (which: string) => `SELECT ${select} FROM crawl_url
    WHERE run_id = $1 AND state = 'queued' AND ${WHOSE_TIME_HAS_COME} AND ${which} AND ${also}
    ORDER BY depth, position LIMIT ${limit}`;
  if (order === 'links') return part('true');
  const listed = `in_sitemap AND depth <= ${SITEMAP_DEPTH}`;
  return `WITH listed AS MATERIALIZED (${part(listed)})
    SELECT * FROM listed
    UNION ALL
    (${part(`NOT (${listed}) AND (SELECT count(*) FROM listed) < ${limit}`)})`;
};

/**
 * Plan settings under which the head of the queue can only be read in order from its index. A
 * plan made so costs ~10^10 to the planner (what each plan node it may not use adds), past any
 * JIT threshold: JIT is off with them (compiling took ~0.3 s a statement).
 */
const HEAD_PLAN_SETTINGS = ['enable_seqscan', 'enable_bitmapscan', 'enable_sort', 'jit'];
const PLAN_HEAD_IN_ORDER = HEAD_PLAN_SETTINGS.map((name) => `SET LOCAL ${name} = off`).join('; ');
const PLAN_AS_SERVER_SAYS = HEAD_PLAN_SETTINGS.map((name) => `SET LOCAL ${name} TO DEFAULT`).join('; ');

/**
 * Lowers run $1's queue start (Run.queueFrom…) to the first of `rows` (a relation with depth and
 * position) in crawl order, if that comes before it: every statement that makes a URL queued
 * ends with it, so no queued URL is ever before the start (the dispatch reads from there).
 */
const lowerQueueFrom = (rows: string) => `UPDATE run r SET queue_from_depth = f.depth, queue_from_position = f.position
    FROM (SELECT depth, position FROM ${rows} ORDER BY depth, position LIMIT 1) f
   WHERE r.id = $1 AND (f.depth, f.position) < (r.queue_from_depth, r.queue_from_position)`;

/** A string as an SQL literal (standard_conforming_strings: only quotes are doubled). */
const quoteLiteral = (s: string) => `'${storableText(s).replaceAll("'", "''")}'`;

// Timestamps are UTC without a zone (Prisma's DateTime); raw SQL says so rather than trusting
// the session's time zone. done_at is clock_timestamp(), taken under the run's lock, so pages
// settle in the order their transactions commit and a cursor over done_at never skips one.

/**
 * Settles a step's pages (FrontierRepository.settleMany), prepared (libs/db PREPARED_MARK).
 * One time for the call: a CTE with a volatile function is computed once (a subquery in FROM is
 * computed again for each row a nested loop joins it to). The state is tested in a CASE, which no
 * index serves: written as `state = 'dispatched' OR (state = 'queued' AND …)`, PostgreSQL's one
 * plan for every value read every queued URL of the run through the state index (36 ms a step
 * with 70,000 queued, so a 100,000-page crawl slowed as its frontier grew) instead of each page
 * by its position.
 */
export const SETTLE_SQL = `/* prepared */ WITH step AS (SELECT clock_timestamp() AT TIME ZONE 'utc' AS at)
  UPDATE crawl_url c SET state = 'done', done_at = step.at, verdict = t.verdict,
         error_code = t.error_code, http_status = t.http_status, out_links = t.out_links
    FROM unnest($2::int[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[])
         AS t(position, verdict, error_code, http_status, out_links, attempt), step
   WHERE c.run_id = $1 AND c.position = t.position
     AND CASE c.state WHEN 'dispatched' THEN true WHEN 'queued' THEN c.attempts = t.attempt ELSE false END
   RETURNING ${columnsOf('c')}`;

/**
 * The only file of crawl that touches crawl_url: the durable frontier and link graph. Writes run
 * inside `locked`, a transaction holding the run's advisory lock, so two crawl workers sharing a
 * run never hand out one URL twice or race on positions.
 */
export class FrontierRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly raw: RawDb,
  ) {}

  /**
   * Runs `fn` in a transaction holding the run's lock; null when `tryOnly` and it is taken.
   * `read` (a query without parameters, e.g. CrawlJobRepository.viewQuery) runs under the lock in
   * the same round trip as BEGIN and the lock, and its rows are handed to `fn`.
   */
  async locked<T>(
    runId: string,
    fn: (tx: Tx, read: unknown[]) => Promise<T>,
    tryOnly = false,
    read?: string,
  ): Promise<T | null> {
    if (tryOnly)
      return this.raw.transaction(
        async (tx) => {
          const [row] = await tx.$queryRaw<{ ok: boolean }[]>`
            SELECT pg_try_advisory_xact_lock(hashtext('crawl:' || ${runId})) AS ok`;
          if (!row?.ok) return null;
          return fn(tx, read ? await tx.$queryRawUnsafe<unknown[]>(read) : []);
        },
        { timeoutMs: 30_000 },
      );
    // The lock goes with BEGIN (one round trip; a run id is ours, quoted as a literal anyway).
    return this.raw.transaction(fn, {
      timeoutMs: 30_000,
      first: `SELECT pg_advisory_xact_lock(hashtext('crawl:' || ${quoteLiteral(runId)}))`,
      ...(read ? { read } : {}),
    });
  }

  /** Rows in the frontier (every state): what `progress.total` counts. */
  async size(tx: Tx, runId: string): Promise<number> {
    const [row] = await tx.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM crawl_url WHERE run_id = ${runId}`;
    return row?.n ?? 0;
  }

  /**
   * Adds URLs not yet in the frontier, at most `room` of them, in the order given (their
   * positions follow the last one). Answers how many were added and how many did not fit.
   */
  async add(tx: Tx, runId: string, found: NewUrl[], room: number): Promise<{ added: number; overflow: number }> {
    if (!found.length) return { added: 0, overflow: 0 };
    // Links are spelled by the pages that carry them: cleaned of what PostgreSQL cannot hold.
    const urls = storable(found);
    const keys = urls.map((u) => u.key);
    const existing = new Set(
      (
        await tx.$queryRaw<{ k: string }[]>`
          SELECT url_key AS k FROM crawl_url WHERE run_id = ${runId} AND url_key = ANY(${keys}::text[])`
      ).map((r) => r.k),
    );
    // The first spelling of a key wins, within this call too (the seed named again in url_list,
    // /a and /a/ from two sitemaps): one row per URL.
    const fresh = urls.filter((u) => !existing.has(u.key) && existing.add(u.key));
    const taken = fresh.slice(0, Math.max(0, room));
    if (taken.length) {
      const [last] = await tx.$queryRaw<{ p: number }[]>`
        SELECT COALESCE(max(position), -1)::int AS p FROM crawl_url WHERE run_id = ${runId}`;
      const base = (last?.p ?? -1) + 1;
      await tx.$executeRaw`
        INSERT INTO crawl_url (run_id, url_key, url, host, position, depth, found_via, first_referer, in_sitemap)
        SELECT ${runId}, t.key, t.url, t.host, ${base}::int + t.ord::int - 1, t.depth, t.via, t.referer, t.sitemap
          FROM unnest(${taken.map((u) => u.key)}::text[], ${taken.map((u) => u.url)}::text[],
                      ${taken.map((u) => u.host)}::text[], ${taken.map((u) => u.depth)}::int[],
                      ${taken.map((u) => u.foundVia)}::text[], ${taken.map((u) => u.firstReferer)}::text[],
                      ${taken.map((u) => u.inSitemap)}::boolean[])
               WITH ORDINALITY AS t(key, url, host, depth, via, referer, sitemap, ord)`;
      await tx.$executeRawUnsafe(
        `WITH added AS (SELECT depth, position FROM crawl_url WHERE run_id = $1 AND position >= $2) ${lowerQueueFrom('added')}`,
        runId,
        base,
      );
    }
    return { added: taken.length, overflow: fresh.length - taken.length };
  }

  /**
   * A settle step's links in one statement: the URLs not yet in the frontier added (at most
   * `room`, in the order given, positions after the last), and every linked key's in-links
   * counted (`links`: key → how many of the settled pages link it), the new rows' counts written
   * as they are inserted. Same answer as `add` then `countInLinks`, one round trip instead of four.
   */
  async grow(
    tx: Tx,
    runId: string,
    found: NewUrl[],
    room: number,
    links: Map<string, number>,
  ): Promise<{ added: number; overflow: number }> {
    if (!found.length && !links.size) return { added: 0, overflow: 0 };
    const seen = new Set<string>();
    // The first spelling of a key wins within the call, as in `add`.
    const urls = storable(found).filter((u) => !seen.has(u.key) && seen.add(u.key));
    const [row] = await tx.$queryRawUnsafe<{ added: number; fresh: number }[]>(
      `WITH t AS (
         SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::boolean[])
                WITH ORDINALITY AS t(key, url, host, depth, via, referer, sitemap, ord)
       ), fresh AS (
         SELECT t.*, row_number() OVER (ORDER BY t.ord) AS n FROM t
          WHERE NOT EXISTS (SELECT 1 FROM crawl_url c WHERE c.run_id = $1 AND c.url_key = t.key)
       ), counts AS (
         SELECT * FROM unnest($10::text[], $11::int[]) AS l(key, n)
       ), inserted AS (
         INSERT INTO crawl_url (run_id, url_key, url, host, position, depth, found_via, first_referer, in_sitemap, in_links)
         SELECT $1, f.key, f.url, f.host,
                (SELECT COALESCE(max(position), -1) FROM crawl_url WHERE run_id = $1) + f.n::int,
                f.depth, f.via, f.referer, f.sitemap, COALESCE(l.n, 0)
           FROM fresh f LEFT JOIN counts l ON l.key = f.key WHERE f.n <= $9
         RETURNING depth, position
       ), lowered AS (
         ${lowerQueueFrom('inserted')}
       ), counted AS (
         UPDATE crawl_url c SET in_links = c.in_links + l.n FROM counts l WHERE c.run_id = $1 AND c.url_key = l.key
       )
       SELECT (SELECT count(*) FROM inserted)::int AS added, (SELECT count(*) FROM fresh)::int AS fresh`,
      runId,
      urls.map((u) => u.key),
      urls.map((u) => u.url),
      urls.map((u) => u.host),
      urls.map((u) => u.depth),
      urls.map((u) => u.foundVia),
      urls.map((u) => u.firstReferer),
      urls.map((u) => u.inSitemap),
      Math.max(0, room),
      [...links.keys()].map(storableText),
      [...links.values()],
    );
    const added = row?.added ?? 0;
    return { added, overflow: (row?.fresh ?? 0) - added };
  }

  /** Refreshes PostgreSQL's statistics of the frontier's table (FrontierStatistics says when). */
  async analyze(): Promise<void> {
    await this.raw.$executeRawUnsafe('ANALYZE crawl_url');
  }

  /** Fetched pages link to these keys (key → how many pages): each one in the frontier gains those in-links. */
  async countInLinks(tx: Tx, runId: string, links: Map<string, number>): Promise<void> {
    if (!links.size) return;
    await tx.$executeRaw`
      UPDATE crawl_url c SET in_links = c.in_links + t.n
        FROM unnest(${[...links.keys()]}::text[], ${[...links.values()]}::int[]) AS t(key, n)
       WHERE c.run_id = ${runId} AND c.url_key = t.key`;
  }

  /** Marks the sitemap's URLs that the frontier already holds as listed. */
  async markInSitemap(tx: Tx, runId: string, keys: string[]): Promise<void> {
    if (!keys.length) return;
    await tx.$executeRaw`
      UPDATE crawl_url SET in_sitemap = true WHERE run_id = ${runId} AND url_key = ANY(${keys}::text[])`;
  }

  /**
   * Settles dispatched pages in one statement. Answers the rows settled now, in no set order; a
   * page already settled (a redelivered result) is left out. The pages of one call share their
   * settle time (`done_at`: pages are listed by it, then by position), taken when the statement
   * runs: a later step's pages settle later, whatever order a statement updates its rows in. A queued row whose attempts still
   * equal the result's is settled too: a worker published its dispatch and died before the step
   * committed, so the fetch happened though the row never left the queue.
   */
  async settleMany(tx: Tx, runId: string, pages: (Settled & { position: number })[]): Promise<FrontierRow[]> {
    if (!pages.length) return [];
    // Prepared (libs/db PREPARED_MARK); the link growth and the dispatch are not: their best
    // plans depend on how many URLs a step carries (docs/performance.md, ninth round).
    return tx.$queryRawUnsafe<FrontierRow[]>(
      SETTLE_SQL,
      runId,
      pages.map((p) => p.position),
      pages.map((p) => p.verdict),
      pages.map((p) => p.errorCode),
      pages.map((p) => p.httpStatus),
      pages.map((p) => p.outLinks),
      pages.map((p) => p.attempt),
    );
  }

  /** Puts a dispatched page back in the queue, not before `notBefore` (a rate-limited retry). */
  async requeue(tx: Tx, runId: string, position: number, notBefore: Date): Promise<boolean> {
    const [row] = await tx.$queryRawUnsafe<{ n: number }[]>(
      `WITH requeued AS (
         UPDATE crawl_url SET state = 'queued', not_before = $3
          WHERE run_id = $1 AND position = $2 AND state = 'dispatched'
         RETURNING depth, position
       ), lowered AS (
         ${lowerQueueFrom('requeued')}
       )
       SELECT count(*)::int AS n FROM requeued`,
      runId,
      position,
      notBefore,
    );
    return (row?.n ?? 0) > 0;
  }

  /**
   * Dispatched pages given back unfetched (a lease let them go): queued again as they were, their
   * dispatch not counted as an attempt. Answers how many were.
   */
  async giveBack(tx: Tx, runId: string, positions: number[]): Promise<number> {
    if (!positions.length) return 0;
    const [row] = await tx.$queryRawUnsafe<{ n: number }[]>(
      `WITH requeued AS (
         UPDATE crawl_url SET state = 'queued', attempts = GREATEST(attempts - 1, 0)
          WHERE run_id = $1 AND position = ANY($2::int[]) AND state = 'dispatched'
         RETURNING depth, position
       ), lowered AS (
         ${lowerQueueFrom('requeued')}
       )
       SELECT count(*)::int AS n FROM requeued`,
      runId,
      positions,
    );
    return row?.n ?? 0;
  }

  /** Every dispatched page of a lease slot, in crawl order of discovery (what the slot's holder holds). */
  async dispatched(tx: Tx, runId: string, slot: number): Promise<Dispatchable[]> {
    return tx.$queryRawUnsafe<Dispatchable[]>(
      `SELECT url, host, position, attempts - 1 AS attempts, found_via AS "foundVia" FROM crawl_url
        WHERE run_id = $1 AND state = 'dispatched' AND COALESCE(lease_slot, 0) = $2 ORDER BY depth, position`,
      runId,
      slot,
    );
  }

  /** Pages in flight per host. */
  async inFlight(tx: Tx, runId: string): Promise<Map<string, number>> {
    const rows = await tx.$queryRaw<{ host: string; n: number }[]>`
      SELECT host, count(*)::int AS n FROM crawl_url WHERE run_id = ${runId} AND state = 'dispatched' GROUP BY host`;
    return new Map(rows.map((r) => [r.host, r.n]));
  }

  /**
   * The next queued URLs in crawl order: breadth-first (depth, then discovery) or, for
   * sitemap_first, every URL a sitemap listed before any other. Only those whose not_before has passed.
   */
  async nextQueued(tx: Tx, runId: string, order: 'links' | 'sitemap_first', take: number): Promise<FrontierRow[]> {
    return tx.$queryRawUnsafe<FrontierRow[]>(
      `SELECT ${columns} FROM (${headSql(order, 'true', '$2', '*')}) q ORDER BY ${CRAWL_ORDER[order]} LIMIT $2`,
      runId,
      take,
    );
  }

  /**
   * Hands out the next URLs in one statement (a step's statements run one after another, and the
   * crawl's pages wait on its steps): the queued URLs in crawl order that may go now — at most
   * `perHost` in flight to a host, none to a host in `waitingHosts` (a delay or Retry-After not
   * yet passed), `maxInFlight` in flight in all — are marked dispatched, their attempt counted.
   * Answers them in crawl order, each with the attempt its dispatch is (the count before this
   * one), and how many were in flight before.
   */
  async dispatchNext(
    tx: Tx,
    runId: string,
    order: 'links' | 'sitemap_first',
    limits: DispatchLimits,
  ): Promise<{ inFlight: number; picked: Dispatchable[] }> {
    // The head of the queue is read first, in crawl order, with nothing but the index's own
    // conditions and a fixed limit, so that PostgreSQL reads it from the crawl-order index and
    // stops; the hosts' politeness is applied to that window after.
    // Filtered inside the scan (a join on the hosts in flight), the plan depended on estimates
    // and, on a 100,000-URL frontier, read and sorted every queued URL of the run on each step
    // (20–40 ms; all of them when the crawl's only host was at its limit). The window holds four
    // URLs for each place the crawl can have (a host at its limit may pass some over); when no
    // place is free, it is not read at all.
    const window = Math.min(limits.maxInFlight * 4, 1000);
    // The planner may not choose otherwise: on a belief that the run holds a few rows (a row
    // count with no column statistics, after a VACUUM; statistics taken when the run was small)
    // a bitmap scan and a sort of every queued URL look as cheap as the ordered read. For this
    // statement only: the settings go back to the server's after it.
    await tx.$executeRawUnsafe(PLAN_HEAD_IN_ORDER);
    let dispatched = await this.dispatchFrom(tx, runId, order, limits, window, true);
    // Nothing may go and nothing is in flight: the queue is empty or waits on a clock, unless a
    // URL was queued before the queue's start without moving it back (a fault of this file). It
    // is read once more from the run's first URL, so that such a URL is late, never lost.
    if (!dispatched.picked.length && !dispatched.inFlight)
      dispatched = await this.dispatchFrom(tx, runId, order, limits, window, false);
    await tx.$executeRawUnsafe(PLAN_AS_SERVER_SAYS);
    return dispatched;
  }

  /**
   * dispatchNext's statement, the queue read from where it starts (`fromStart`) or from the run's
   * first URL; the start is then moved to the first URL queued (Run.queueFrom…). The start is
   * in (depth, position), before every queued URL: both of sitemap_first's parts are read from it
   * too, each being queued URLs in that order.
   */
  private async dispatchFrom(
    tx: Tx,
    runId: string,
    order: 'links' | 'sitemap_first',
    limits: DispatchLimits,
    window: number,
    fromStart: boolean,
  ): Promise<{ inFlight: number; picked: Dispatchable[] }> {
    // The index entries of every URL handed out stay before the queue until a VACUUM removes
    // them (4.4 ms a step with 90,000 handed out, on a server without autovacuum or between its
    // rounds): a read from the queue's start passes none of them.
    const atOrAfterStart = fromStart
      ? ' AND (depth, position) >= ((SELECT depth FROM start), (SELECT position FROM start))'
      : '';
    const slots = limits.slot?.of ?? 0;
    const rows = await tx.$queryRawUnsafe<(Dispatchable & { busy: number })[]>(
      `WITH h AS (
         SELECT host, count(*)::int AS n FROM crawl_url WHERE run_id = $1 AND state = 'dispatched' GROUP BY host
       ), flying AS (
         -- A lease slot's limit is on what it holds; a paged crawl's on all it has out.
         SELECT count(*)::int AS busy FROM crawl_url
          WHERE run_id = $1 AND state = 'dispatched' AND ($6::int = 0 OR COALESCE(lease_slot, 0) = $7::int)
       ), start AS (
         SELECT queue_from_depth AS depth, queue_from_position AS position FROM run WHERE id = $1
       ), head AS MATERIALIZED (
         ${headSql(order, `(SELECT busy FROM flying) < $2${atOrAfterStart}`, '$5', 'position, host, depth, in_sitemap, dispatched_at')}
       ), candidates AS (
         SELECT head.position, head.host, head.dispatched_at IS NOT NULL AS before,
                row_number() OVER (ORDER BY ${CRAWL_ORDER[order]}) AS ord FROM head
          WHERE head.host <> ALL($4::text[])
       ), picked AS (
         SELECT c.position, c.ord, c.before FROM (
           SELECT c.*, row_number() OVER (PARTITION BY c.host ORDER BY c.ord) AS nth FROM candidates c
         ) c LEFT JOIN h ON h.host = c.host
          WHERE c.nth <= $3 - COALESCE(h.n, 0)
          ORDER BY c.ord LIMIT GREATEST($2 - (SELECT busy FROM flying), 0)
       ), marked AS (
         UPDATE crawl_url u SET state = 'dispatched', dispatched_at = (clock_timestamp() AT TIME ZONE 'utc'),
                attempts = u.attempts + 1, lease_slot = CASE WHEN $6::int = 0 THEN NULL ELSE $7::int END
           FROM picked p WHERE u.run_id = $1 AND u.position = p.position
         RETURNING u.url, u.host, u.position, u.attempts - 1 AS attempts, u.found_via AS "foundVia",
                   p.before AS "dispatchedBefore", p.ord
       ), first_queued AS (
         -- The queue's first URL as the statement began (one handed out now included: the start
         -- may lag a step, never lead), waiting on a clock or not.
         SELECT depth, position FROM crawl_url WHERE run_id = $1 AND state = 'queued'${atOrAfterStart}
          ORDER BY depth, position LIMIT 1
       ), moved AS (
         UPDATE run r SET queue_from_depth = f.depth, queue_from_position = f.position
           FROM first_queued f WHERE r.id = $1 AND (f.depth, f.position) <> (r.queue_from_depth, r.queue_from_position)
       )
       SELECT flying.busy, m.url, m.host, m.position, m.attempts, m."foundVia", m."dispatchedBefore"
         FROM flying LEFT JOIN marked m ON true ORDER BY m.ord`,
      runId,
      limits.maxInFlight,
      limits.perHost,
      limits.waitingHosts,
      window,
      slots,
      limits.slot?.index ?? 0,
    );
    return {
      inFlight: rows[0]?.busy ?? 0,
      // Nothing handed out: the one row carries the count alone.
      picked: rows.filter((r) => r.url !== null).map(({ busy: _busy, ...row }) => row),
    };
  }

  /** Marks pages dispatched, their attempt counted (what `dispatchNext` does to what it hands out). */
  async markDispatched(tx: Tx, runId: string, positions: number[]): Promise<void> {
    await tx.$executeRaw`
      UPDATE crawl_url SET state = 'dispatched', dispatched_at = (clock_timestamp() AT TIME ZONE 'utc'), attempts = attempts + 1
       WHERE run_id = ${runId} AND position = ANY(${positions}::int[])`;
  }

  async at(tx: Tx, runId: string, position: number): Promise<FrontierRow | null> {
    const rows = await tx.$queryRawUnsafe<FrontierRow[]>(
      `SELECT ${columns} FROM crawl_url WHERE run_id = $1 AND position = $2`,
      runId,
      position,
    );
    return rows[0] ?? null;
  }

  /** URLs still queued or in flight. */
  async openCount(tx: Tx, runId: string): Promise<number> {
    const [row] = await tx.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM crawl_url WHERE run_id = ${runId} AND state IN ('queued', 'dispatched')`;
    return row?.n ?? 0;
  }

  /**
   * URLs that will not be fetched now (the credits ran out, or the watchdog ended a stalled
   * crawl): queued ones, and with `dispatched` those in flight too, become `unfetched`.
   */
  async dropOpen(tx: Tx, runId: string, dispatched = false): Promise<{ queued: number; dispatched: number }> {
    const rows = await tx.$queryRaw<{ queued: number; dispatched: number }[]>`
      WITH dropped AS (
        UPDATE crawl_url c SET state = 'unfetched'
          FROM crawl_url o
         WHERE c.run_id = ${runId} AND o.run_id = c.run_id AND o.position = c.position
           AND (c.state = 'queued' OR (${dispatched} AND c.state = 'dispatched'))
        RETURNING o.state AS was)
      SELECT count(*) FILTER (WHERE was = 'queued')::int AS queued,
             count(*) FILTER (WHERE was = 'dispatched')::int AS dispatched
        FROM dropped`;
    return rows[0] ?? { queued: 0, dispatched: 0 };
  }

  /** Whether a queued URL waits for a time the site named (Retry-After) that has not come yet. */
  async waitingOnSite(tx: Tx, runId: string): Promise<boolean> {
    const rows = await tx.$queryRaw<{ n: number }[]>`
      SELECT 1 AS n FROM crawl_url
       WHERE run_id = ${runId} AND state = 'queued' AND not_before > (clock_timestamp() AT TIME ZONE 'utc') LIMIT 1`;
    return rows.length > 0;
  }

  /** Stops the queue: queued URLs will not be fetched. */
  async cancelQueued(tx: Tx, runId: string): Promise<number> {
    return tx.$executeRaw`UPDATE crawl_url SET state = 'cancelled' WHERE run_id = ${runId} AND state = 'queued'`;
  }

  /** Settled pages in the order they settled, after a (doneAt, position) cursor. */
  async settledPage(runId: string, after: PageCursor | null, take: number, db: Tx = this.raw): Promise<FrontierRow[]> {
    return after
      ? db.$queryRawUnsafe<FrontierRow[]>(
          `SELECT ${columns} FROM crawl_url
            WHERE run_id = $1 AND state = 'done' AND (done_at, position) > ($2::timestamp(3), $3::int)
            ORDER BY done_at, position LIMIT $4`,
          runId,
          after.at,
          after.position,
          take,
        )
      : db.$queryRawUnsafe<FrontierRow[]>(
          `SELECT ${columns} FROM crawl_url WHERE run_id = $1 AND state = 'done' ORDER BY done_at, position LIMIT $2`,
          runId,
          take,
        );
  }

  async findByKeys(runId: string, keys: string[]): Promise<FrontierRow | null> {
    const rows = await this.prisma.$queryRawUnsafe<FrontierRow[]>(
      `SELECT ${columns} FROM crawl_url WHERE run_id = $1 AND url_key = ANY($2::text[]) ORDER BY position LIMIT 1`,
      runId,
      keys,
    );
    return rows[0] ?? null;
  }

  /** The URLs a set of runs holds, one row per normalized URL (the first run's spelling wins). */
  async knownUrls(runIds: string[]): Promise<{ url: string; depth: number; foundVia: string }[]> {
    if (!runIds.length) return [];
    return this.prisma.$queryRaw<{ url: string; depth: number; foundVia: string }[]>`
      SELECT DISTINCT ON (url_key) url, depth, found_via AS "foundVia" FROM crawl_url
       WHERE run_id = ANY(${runIds}::text[])
       ORDER BY url_key, array_position(${runIds}::text[], run_id)`;
  }

  /** The URLs of a run its sitemaps listed. */
  async sitemapUrls(runId: string): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ url: string }[]>`
      SELECT url FROM crawl_url WHERE run_id = ${runId} AND in_sitemap ORDER BY position`;
    return rows.map((r) => r.url);
  }

  /** How many URLs of a run came in by each source (seed, link, sitemap, feed). */
  async foundVia(runId: string): Promise<Record<string, number>> {
    const rows = await this.prisma.$queryRaw<{ via: string; n: number }[]>`
      SELECT found_via AS via, count(*)::int AS n FROM crawl_url WHERE run_id = ${runId} GROUP BY found_via`;
    return Object.fromEntries(rows.map((r) => [r.via, r.n]));
  }

  /** How many of these normalized keys a run holds. */
  async countKeys(runId: string, keys: string[]): Promise<number> {
    if (!keys.length) return 0;
    const [row] = await this.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM crawl_url WHERE run_id = ${runId} AND url_key = ANY(${keys}::text[])`;
    return row?.n ?? 0;
  }

  /** Dispatched pages with no answer for `olderThanMs` (their work was lost): dispatched again. */
  async stale(tx: Tx, runId: string, olderThanMs: number, slot: number | null = null): Promise<FrontierRow[]> {
    return tx.$queryRawUnsafe<FrontierRow[]>(
      `SELECT ${columns} FROM crawl_url WHERE run_id = $1 AND state = 'dispatched'
          AND dispatched_at < (clock_timestamp() AT TIME ZONE 'utc') - make_interval(secs => $2::float8 / 1000)
          AND ($3::int IS NULL OR COALESCE(lease_slot, 0) = $3::int)`,
      runId,
      olderThanMs,
      slot,
    );
  }

  // Reads for the pages of a run (src/pages). A settled row never changes, so these take no lock.
  // The ones joining `page` read scrape's rows read-only (docs/architecture.md, Pages of a run).

  /**
   * Settled rows after `afterPosition` in position order that meet `where` (built over `c`, this
   * table, and `p`, the row's page, by pages/page-query.sql.ts with every value bound).
   */
  async settledWhere(runId: string, jobId: string, where: Prisma.Sql, afterPosition: number, take: number) {
    return this.prisma.$queryRaw<FrontierRow[]>(Prisma.sql`
      SELECT ${Prisma.raw(columnsOf('c'))} FROM crawl_url c
        LEFT JOIN page p ON p.job_id = ${jobId} AND p.position = c.position
       WHERE c.run_id = ${runId} AND c.state = 'done' AND c.position > ${afterPosition}::int AND ${where}
       ORDER BY c.position LIMIT ${take}::int`);
  }

  /** Settled rows meeting `where` (over `c` alone), by normalized URL, after the key `afterKey`. */
  async settledByKey(runId: string, where: Prisma.Sql, afterKey: string | null, take: number) {
    return this.prisma.$queryRaw<FrontierRow[]>(Prisma.sql`
      SELECT ${Prisma.raw(columns)} FROM crawl_url c
       WHERE c.run_id = ${runId} AND c.state = 'done' AND ${where}
         AND (${afterKey}::text IS NULL OR c.url_key COLLATE "C" > ${afterKey}::text)
       ORDER BY c.url_key COLLATE "C" LIMIT ${take}::int`);
  }

  /** Positions of every settled row, in order. */
  async settledPositions(runId: string): Promise<number[]> {
    const rows = await this.prisma.$queryRaw<{ position: number }[]>`
      SELECT position FROM crawl_url WHERE run_id = ${runId} AND state = 'done' ORDER BY position`;
    return rows.map((r) => r.position);
  }

  /**
   * Read pages (ok, thin, cached) with what decides a dead end without their links: how many
   * links they had, and whether a URL was first found on them (then one link was in scope).
   */
  async readPages(
    runId: string,
  ): Promise<{ position: number; url: string; urlKey: string; outLinks: number | null; referer: boolean }[]> {
    return this.prisma.$queryRaw`
      SELECT c.position, c.url, c.url_key AS "urlKey", c.out_links AS "outLinks",
             c.url IN (SELECT r.first_referer FROM crawl_url r WHERE r.run_id = ${runId} AND r.first_referer IS NOT NULL)
               AS referer
        FROM crawl_url c
       WHERE c.run_id = ${runId} AND c.state = 'done' AND c.verdict IN ('ok', 'thin', 'cached')
       ORDER BY c.position`;
  }

  /**
   * Settled rows read (ok, thin, cached) and tried but not read: refused, failed or skipped, whose
   * links the graph never saw. robots rows (forbidden by the site) and pages not found are neither.
   */
  async readCounts(runId: string): Promise<{ read: number; unread: number }> {
    const [row] = await this.prisma.$queryRaw<{ read: number; unread: number }[]>`
      SELECT count(*) FILTER (WHERE verdict IN ('ok', 'thin', 'cached'))::int AS read,
             count(*) FILTER (WHERE verdict IS NULL OR verdict = 'skipped'
                                 OR (verdict = 'blocked' AND error_code IS DISTINCT FROM 'NOT_FOUND'))::int AS unread
        FROM crawl_url WHERE run_id = ${runId} AND state = 'done'`;
    return row ?? { read: 0, unread: 0 };
  }

  /** A URL (any of its keys) in the project's runs before `beforeRunId`, newest first, one per run. */
  async versionsOf(workspaceId: string, projectId: string, keys: string[], beforeRunId: string, take: number) {
    return this.prisma.$queryRaw<
      { runId: string; runStatus: string; crawledAt: Date | null; verdict: string | null; words: number | null }[]
    >`
      SELECT DISTINCT ON (r.id) r.id AS "runId", r.status AS "runStatus", p.crawled_at AS "crawledAt", c.verdict,
             (p.data->>'words')::int AS words
        FROM run r
        JOIN crawl_url c ON c.run_id = r.id AND c.url_key = ANY(${keys}::text[]) AND c.state = 'done'
        LEFT JOIN job j ON j.run_id = r.id AND j.kind IN ('crawl', 'run')
        LEFT JOIN page p ON p.job_id = j.id AND p.position = c.position
       WHERE r.workspace_id = ${workspaceId} AND r.project_id = ${projectId} AND r.id < ${beforeRunId}
       ORDER BY r.id DESC, c.position
       LIMIT ${take}::int`;
  }
}
