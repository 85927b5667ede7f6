import { DEFAULT_BATCH_WINDOW } from '../config.js';
import { JOB_COLUMNS, newId, Prisma, type Job, type PrismaClient, type RawDb } from '@tidemark/db';

export interface JobProgress {
  status: string;
  progress: { done: number; total: number; queued: number };
  creditsUsed: number;
  counts: Record<string, number>;
}

/** A job as a page left it: what its envelope shows besides what it was created with. */
export interface JobAfterPage extends JobProgress {
  stop: string | null;
  error: unknown;
  /** This page was its last: the job ended with it. */
  finishedNow: boolean;
  /**
   * A windowed batch's URLs this count let onto the work stream, as positions in its fan-out
   * order [from, to): the caller that counted publishes them (`JobService.dispatch`).
   */
  dispatch: { from: number; to: number } | null;
}

/** What a settled page counts as in its job's `counts`: its verdict, or error. */
export const countKeyOf = (row: { status: string; verdict: string | null }): string =>
  row.status === 'error' ? 'error' : (row.verdict ?? 'error');

/**
 * The workspace's open batches that can hold more than one URL on the work stream (a window over
 * 1), read through the partial index job_open_batches. A job of one URL (a one-URL scrape queued
 * on a busy replica, a batch of one) has a window of 1: it never holds more than its one message,
 * so it takes no share, and a workspace's one-URL calls in flight do not shrink its batches'.
 */
const openBatchesOf = (workspace: Prisma.Sql) => Prisma.sql`(
  SELECT count(*)::int FROM job AS open
   WHERE open.workspace_id = ${workspace} AND open.dispatch_window > 1 AND open.status IN ('queued', 'running'))`;

/**
 * How many URLs a windowed batch may keep unsettled on the work stream: its own `window`, or its
 * share of its workspace's (`workspaceWindow` over the workspace's open batches, `batches`),
 * whichever is less, and never less than one, so that no batch waits for another to end. A share
 * that shrinks as batches start is reached as pages settle (the batches over it let nothing on
 * until they are under it); one that grows is taken at the next count.
 */
const batchShare = (window: Prisma.Sql, batches: Prisma.Sql, workspaceWindow: number) =>
  Prisma.sql`LEAST(${window}, GREATEST(1, ${workspaceWindow}::int / GREATEST(1, ${batches})))`;

/**
 * Settled pages counted into their jobs: the rest of a statement whose CTE `counting` holds a row
 * per page (job_id, credits, count_key). Done, credits and counts by verdict are summed per job,
 * and a job whose last page is among them is ended; a windowed batch lets its next URLs on, up to
 * its share (`batchShare`). The jobs are locked in id order, so statements that count into the
 * same jobs wait for each other rather than deadlock. Its CTE `counted` answers each job as the
 * count left it (JobCounted; `jobsAfterCount` reads it).
 */
export const countingIntoJobs = (workspaceWindow: number) => Prisma.sql`
  per_key AS (
    SELECT job_id, count_key AS key, count(*)::int AS n, sum(credits)::int AS credits
      FROM counting GROUP BY job_id, count_key),
  per_job AS (
    SELECT job_id, sum(n)::int AS n, sum(credits)::int AS credits, jsonb_object_agg(key, n) AS keys
      FROM per_key GROUP BY job_id),
  before AS (
    SELECT job.id, job.status AS was, job.dispatched AS dispatched_was
      FROM job JOIN per_job ON per_job.job_id = job.id ORDER BY job.id FOR UPDATE OF job),
  counted AS (
    UPDATE job SET
      progress = jsonb_build_object(
        'done', (progress->>'done')::int + per_job.n,
        'total', (progress->>'total')::int,
        'queued', GREATEST((progress->>'queued')::int - per_job.n, 0)),
      credits_used = credits_used + per_job.credits,
      counts = counts || (SELECT jsonb_object_agg(k.key, COALESCE((job.counts->>k.key)::int, 0) + k.value::int)
                            FROM jsonb_each_text(per_job.keys) AS k),
      status = CASE
        WHEN status IN ('queued', 'running') AND (progress->>'done')::int + per_job.n >= (progress->>'total')::int THEN 'done'
        WHEN status = 'queued' THEN 'running'
        ELSE status END,
      stop = CASE
        WHEN status IN ('queued', 'running') AND (progress->>'done')::int + per_job.n >= (progress->>'total')::int THEN 'completed'
        ELSE stop END,
      dispatched = CASE
        WHEN dispatch_window > 0 AND status IN ('queued', 'running')
        THEN GREATEST(dispatched, LEAST((progress->>'total')::int,
                                        (progress->>'done')::int + per_job.n + ${batchShare(Prisma.sql`dispatch_window`, openBatchesOf(Prisma.sql`job.workspace_id`), workspaceWindow)}))
        ELSE dispatched END,
      updated_at = (now() AT TIME ZONE 'utc')
    FROM per_job, before
    WHERE job.id = per_job.job_id AND before.id = per_job.job_id
    RETURNING job.id, job.status, job.progress, job.credits_used AS "creditsUsed", job.counts, job.stop, job.error,
              before.was, before.dispatched_was AS "dispatchedWas", job.dispatched)`;

/** A job as `countingIntoJobs` left it, with its status before (`was`). */
export type JobCounted = Omit<JobAfterPage, 'finishedNow' | 'dispatch'> & {
  id: string;
  was: string;
  dispatchedWas: number;
  dispatched: number;
};

/** Each job counted into, by id; `finishedNow` for a job this count ended (one count ends a job). */
export const jobsAfterCount = (rows: JobCounted[]): Map<string, JobAfterPage> =>
  new Map(
    rows.map(({ id, was, dispatchedWas, dispatched, ...job }) => [
      id,
      {
        ...job,
        finishedNow: job.status === 'done' && was !== 'done',
        dispatch: dispatched > dispatchedWas ? { from: dispatchedWas, to: dispatched } : null,
      },
    ]),
  );

/**
 * The only file of scrape that touches job. What every scrape does (create, read, count a page in)
 * runs on node-postgres (`RawDb`): through Prisma's engine each statement cost a scrape 2-6 ms of
 * CPU (docs/performance.md); the rest stays on Prisma.
 */
export class JobRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly raw: RawDb,
    /** SCRAPE_WORKSPACE_WINDOW: what one workspace's batches keep on the work stream in all. */
    private readonly workspaceWindow = DEFAULT_BATCH_WINDOW,
  ) {}

  async create(data: {
    /** Given when the job's rows are written beside it, in the same moment (a one-URL scrape). */
    id?: string;
    workspaceId: string;
    kind: string;
    total: number;
    request: object;
    requestId: string | null;
    secret: string | null;
    /** Its pages are taken by the service that creates it (a one-URL scrape read at once): running, none queued. */
    taken?: boolean;
    /** Given with `id` by `draftTaken`, whose job is in use before its row is written. */
    createdAt?: Date;
    /**
     * A batch's window (`Job.dispatchWindow`): its first URLs go on at once, as many as its
     * window or its share of its workspace's (`batchShare`), whichever is less.
     */
    dispatchWindow?: number;
  }): Promise<Job> {
    const progress = { done: 0, total: data.total, queued: data.taken ? 0 : data.total };
    const window = data.dispatchWindow ?? 0;
    // A windowed batch starts on its share, counting itself among its workspace's open batches.
    const dispatched =
      window > 0
        ? Prisma.sql`LEAST(${data.total}::int, ${batchShare(
            Prisma.sql`${window}::int`,
            Prisma.sql`1 + ${openBatchesOf(Prisma.sql`${data.workspaceId}`)}`,
            this.workspaceWindow,
          )})`
        : Prisma.sql`0`;
    const createdAt = data.createdAt
      ? Prisma.sql`(${data.createdAt.toISOString()}::timestamptz AT TIME ZONE 'utc')`
      : Prisma.sql`(now() AT TIME ZONE 'utc')`;
    const [job] = await this.raw.$queryRaw<Job[]>`
      INSERT INTO job (id, workspace_id, kind, status, progress, request, request_id, secret, dispatched, dispatch_window,
                       created_at, updated_at)
      VALUES (${data.id ?? newId('job')}, ${data.workspaceId}, ${data.kind}, ${data.taken ? 'running' : 'queued'},
              ${JSON.stringify(progress)}::jsonb,
              ${JSON.stringify(data.request)}::jsonb, ${data.requestId}, ${data.secret},
              ${dispatched},
              ${window}::int, ${createdAt}, ${createdAt})
      RETURNING ${JOB_COLUMNS}`;
    return job!;
  }

  /**
   * A one-page job taken by the service creating it, as `create` will write it (`taken`, with
   * this id and time): a one-URL scrape reads its page while the job is being written.
   */
  draftTaken(data: {
    workspaceId: string;
    kind: string;
    request: object;
    requestId: string | null;
    secret: string | null;
  }): Job {
    const createdAt = new Date();
    return {
      id: newId('job'),
      workspaceId: data.workspaceId,
      kind: data.kind,
      status: 'running',
      progress: { done: 0, total: 1, queued: 0 },
      creditsUsed: 0,
      counts: {},
      stop: null,
      error: null,
      requestId: data.requestId,
      // As the jsonb column gives it back (undefined members dropped).
      request: JSON.parse(JSON.stringify(data.request)) as Job['request'],
      secret: data.secret,
      runId: null,
      result: null,
      dispatched: 0,
      dispatchWindow: 0,
      createdAt,
      updatedAt: createdAt,
    };
  }

  async find(workspaceId: string, id: string, kind = 'scrape'): Promise<Job | null> {
    const [job] = await this.raw.$queryRaw<Job[]>`
      SELECT ${JOB_COLUMNS} FROM job WHERE id = ${id} AND workspace_id = ${workspaceId} AND kind = ${kind}`;
    return job ?? null;
  }

  async findById(id: string): Promise<Job | null> {
    const [job] = await this.raw.$queryRaw<Job[]>`SELECT ${JOB_COLUMNS} FROM job WHERE id = ${id}`;
    return job ?? null;
  }

  list(workspaceId: string, before: string | undefined, take: number, kind = 'scrape'): Promise<Job[]> {
    return this.prisma.job.findMany({
      where: { workspaceId, kind, ...(before ? { id: { lt: before } } : {}) },
      orderBy: { id: 'desc' },
      take,
    });
  }

  /** A workspace's jobs of these kinds that are queued or running, oldest first. */
  active(workspaceId: string, kinds: string[], take: number): Promise<Job[]> {
    return this.prisma.job.findMany({
      where: { workspaceId, kind: { in: kinds }, status: { in: ['queued', 'running'] } },
      orderBy: { id: 'asc' },
      take,
    });
  }

  /**
   * Counts settled pages into their jobs in one statement (pages that settled together share a
   * round trip), finishing each job whose last page is among them; answers each job after the
   * update, by id (`countingIntoJobs`).
   */
  async recordPages(pages: { jobId: string; credits: number; key: string }[]): Promise<Map<string, JobAfterPage>> {
    if (!pages.length) return new Map();
    const rows = await this.raw.$queryRaw<JobCounted[]>`
      /* prepared */
      WITH counting AS (
        SELECT * FROM unnest(${pages.map((p) => p.jobId)}::text[], ${pages.map((p) => p.credits)}::int[],
                             ${pages.map((p) => p.key)}::text[]) AS u(job_id, credits, count_key)),
      ${countingIntoJobs(this.workspaceWindow)}
      SELECT * FROM counted`;
    return jobsAfterCount(rows);
  }

  /**
   * The watchdog's step: scrape and playground jobs still open whose row has not moved for
   * `stallMs` end as errors with `reason`, in one statement. The rows are taken FOR UPDATE SKIP
   * LOCKED and must still be open, so of two watchdogs only one ends a job (a job a page is
   * being counted into is locked: it is moving). Answers the jobs ended.
   */
  async failStalled(stallMs: number, reason: string, take = 50): Promise<Job[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      UPDATE job SET status = 'error', stop = 'error', error = jsonb_build_object('message', ${reason}::text),
             updated_at = (now() AT TIME ZONE 'utc')
       WHERE id IN (
         SELECT id FROM job
          WHERE kind IN ('scrape', 'playground') AND status IN ('queued', 'running')
            AND updated_at < (now() AT TIME ZONE 'utc') - make_interval(secs => ${stallMs}::float8 / 1000)
          ORDER BY updated_at LIMIT ${take}::int
          FOR UPDATE SKIP LOCKED)
      RETURNING id`;
    if (!rows.length) return [];
    return this.prisma.job.findMany({ where: { id: { in: rows.map((r) => r.id) } } });
  }

  /**
   * Windowed batches still open whose row has not moved for `quietMs` (the dispatch sweep's),
   * with URLs on the stream not yet counted, the quietest first.
   */
  async quietWindowed(quietMs: number, take: number): Promise<Job[]> {
    return this.raw.$queryRaw<Job[]>`
      SELECT ${JOB_COLUMNS} FROM job
       WHERE kind IN ('scrape', 'playground') AND status IN ('queued', 'running') AND dispatch_window > 0
         AND dispatched > (progress->>'done')::int
         AND updated_at < (now() AT TIME ZONE 'utc') - make_interval(secs => ${quietMs}::float8 / 1000)
       ORDER BY updated_at LIMIT ${take}::int`;
  }

  /** Ends a job still open as an error with `reason`. */
  async endWithError(id: string, reason: string): Promise<void> {
    await this.raw.$executeRaw`
      UPDATE job SET status = 'error', stop = 'error', error = jsonb_build_object('message', ${reason}::text),
             updated_at = (now() AT TIME ZONE 'utc')
       WHERE id = ${id} AND status IN ('queued', 'running')`;
  }

  /** Counts rows the watchdog settled as errors into their (ended) job. */
  async recordFailedRows(jobId: string, rows: number): Promise<JobProgress> {
    const [after] = await this.prisma.$queryRaw<JobProgress[]>`
      UPDATE job SET progress = jsonb_build_object(
          'done', (progress->>'done')::int + ${rows}::int,
          'total', (progress->>'total')::int,
          'queued', GREATEST((progress->>'queued')::int - ${rows}::int, 0)),
        counts = CASE WHEN ${rows}::int > 0
                 THEN counts || jsonb_build_object('error', COALESCE((counts->>'error')::int, 0) + ${rows}::int)
                 ELSE counts END
      WHERE id = ${jobId}
      RETURNING status, progress, credits_used AS "creditsUsed", counts`;
    return after!;
  }

  /** Cancels a queued or running job; false when it had already ended. */
  async cancel(workspaceId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.job.updateMany({
      where: { id, workspaceId, status: { in: ['queued', 'running'] } },
      data: { status: 'cancelled', stop: 'cancelled' },
    });
    return count > 0;
  }

  async markCancelledRows(jobId: string, cancelledRows: number): Promise<void> {
    if (cancelledRows === 0) return;
    await this.prisma.$executeRaw`
      UPDATE job SET progress = jsonb_build_object(
          'done', (progress->>'done')::int,
          'total', (progress->>'total')::int,
          'queued', GREATEST((progress->>'queued')::int - ${cancelledRows}, 0)),
        counts = counts || jsonb_build_object('cancelled', COALESCE((counts->>'cancelled')::int, 0) + ${cancelledRows}),
        updated_at = (now() AT TIME ZONE 'utc')
      WHERE id = ${jobId}`;
  }
}
