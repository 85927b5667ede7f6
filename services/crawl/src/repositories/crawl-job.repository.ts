// Long (~400 lines) because it is the only file of crawl that touches job, project and run (the
// house rule: one repository per owner of a table); most of it is raw SQL for the hot path.
import {
  JOB_COLUMNS,
  newId,
  PROJECT_COLUMNS,
  storable,
  storableText,
  Prisma,
  type Job,
  type PrismaClient,
  type Project,
  type RawDb,
  type Run,
} from '@tidemark/db';
import type { ResolvedConfig } from '@tidemark/contracts';
import type { PageCursor, Tx } from './frontier.repository.js';

/** What a crawl keeps about itself beside the envelope (job.result); never shown to callers. */
export interface CrawlState {
  /** Crawls started before robots.txt moved to their run kept it here (RobotsRead). */
  robotsTxt?: string;
  robotsStatus?: number;
  /** URLs were found that the page limit left out. */
  limitReached: boolean;
  /** Links were found beyond max_depth. */
  depthReached: boolean;
  /** The run's own max_credits was reached. */
  budgetHit: boolean;
  /** The workspace's credits ran out (billing refused a page): the crawl stops. */
  creditsExhausted?: boolean;
  /** Next time each host may be sent a request (delay), epoch ms. */
  hostNextAt: Record<string, number>;
  /** crawl.page batching: when the last message went out and how many pages it covered. */
  lastPageEventAt: string;
  /** The last page the previous crawl.page message covered. */
  pageEventCursor?: PageCursor;
  /** Pages settled since the last crawl.page message. */
  pagesSinceEvent?: number;
  /** URLs the sitemaps listed (0: the site has none, so no page is "unlisted"). */
  sitemapUrls?: number;
  started: boolean;
  /** A re-crawl run: exactly these URLs, no discovery, no links followed. */
  recrawlUrls?: string[];
  /** Pages per method that read them (a run's engine breakdown). */
  engines?: Record<string, number>;
  /** What happened, oldest first (a run's log); a few lines per crawl. */
  log?: { at: string; message: string }[];
  /**
   * A crawl fetched under leases (ADR 14, CRAWL_ENGINE=leased): one entry a lease slot, its
   * current holder and when it last pulled (epoch ms). Absent on a crawl whose pages go out one
   * message each.
   */
  leases?: LeaseSlotState[];
  /** A leased crawl started before slots: its one lease (read as slot 0). */
  lease?: LeaseSlotState;
}

/** A lease slot's holder (generation, then the lease message's delivery) and its last pull. */
export interface LeaseSlotState {
  generation: number;
  delivery: number;
  pulledAt: number;
  /** Its holder let it go (a worker stopping): a newer holder may take it at once. */
  released?: boolean;
  /** The holder's own id (PullCrawlWorkRequest.holder), when it sent one. */
  holder?: string;
  /** Ids of holders of this delivery the slot has gone past: their pulls are refused. */
  past?: string[];
  /**
   * When the slot's generation was opened while another lease of the workspace waited in the
   * work queue (epoch ms): it is not published yet, and goes out when it is the workspace's
   * oldest such slot and none of the workspace's leases waits (CrawlLeases, one waiting lease a
   * workspace).
   */
  deferredAt?: number;
  /**
   * Generations in a row this slot went out again because its message left the work queue
   * before any worker took it (CrawlEngine's cut of a lost lease); a pull starts the count over.
   */
  requeued?: number;
}

/** A lease slot of one of a workspace's running crawls (CrawlJobRepository.workspaceLeases). */
export interface WorkspaceLeaseSlot {
  jobId: string;
  slot: number;
  delivery: number;
  deferredAt: number | null;
}

/** What a crawl read of the site's robots.txt at its start (status 0: no answer). */
export interface RobotsRead {
  robotsTxt: string;
  robotsStatus: number;
}

export const initialState = (): CrawlState => ({
  limitReached: false,
  depthReached: false,
  budgetHit: false,
  hostNextAt: {},
  lastPageEventAt: new Date(0).toISOString(),
  started: false,
});

export type CrawlJob = Job & { runId: string };

/**
 * Every job's lease slots, a row each (`j` the job, `l.v` the slot, `l.ord` its place from 1):
 * a `leases` that is not an array gives none.
 */
const LEASE_SLOTS = Prisma.sql`job j,
  jsonb_array_elements(CASE WHEN jsonb_typeof(j.result->'leases') = 'array' THEN j.result->'leases'
                            ELSE '[]'::jsonb END) WITH ORDINALITY AS l(v, ord)`;
/** A running crawl's or run's slot (the partial index job_running_crawls's predicate), not a hole. */
const RUNNING_SLOT = Prisma.sql`j.kind IN ('crawl', 'run') AND j.status = 'running' AND jsonb_typeof(l.v) = 'object'`;

/**
 * The only file of crawl that touches job, project and run. A crawl is a job (the envelope), a
 * run (its pages) and a hidden project (its config) until it is kept.
 */
export class CrawlJobRepository {
  constructor(
    private readonly prisma: PrismaClient,
    /** node-postgres for the reads every step, tick and poll of a crawl makes (see RawDb). */
    private readonly raw: RawDb,
  ) {}

  async create(data: {
    workspaceId: string;
    seed: string;
    config: ResolvedConfig;
    request: object;
    requestId: string | null;
    secret: string | null;
  }): Promise<{ job: CrawlJob; project: Project }> {
    const projectId = newId('prj');
    const runId = newId('run');
    const host = new URL(data.seed).host;
    return this.prisma.$transaction(async (tx) => {
      const project = await tx.project.create({
        data: {
          id: projectId,
          workspaceId: data.workspaceId,
          name: `Crawl of ${host}`,
          seed: data.seed,
          host,
          config: data.config as unknown as Prisma.InputJsonValue,
          ephemeral: true,
        },
      });
      await tx.run.create({
        data: { id: runId, projectId, workspaceId: data.workspaceId, status: 'queued', trigger: 'crawl' },
      });
      const job = await tx.job.create({
        data: {
          id: newId('crawl'),
          workspaceId: data.workspaceId,
          kind: 'crawl',
          status: 'queued',
          runId,
          progress: { done: 0, total: 0, queued: 0 },
          request: data.request as Prisma.InputJsonValue,
          requestId: data.requestId,
          secret: data.secret,
          result: initialState() as unknown as Prisma.InputJsonValue,
        },
      });
      return { job: job as CrawlJob, project };
    });
  }

  async find(workspaceId: string, id: string): Promise<CrawlJob | null> {
    const [job] = await this.raw.$queryRaw<CrawlJob[]>`
      SELECT ${JOB_COLUMNS} FROM job WHERE id = ${id} AND workspace_id = ${workspaceId} AND kind = 'crawl'`;
    return job ?? null;
  }

  /** A crawl's job or a project run's (the engine drives both). */
  async findById(id: string): Promise<CrawlJob | null> {
    const [job] = await this.raw.$queryRaw<CrawlJob[]>`
      SELECT ${JOB_COLUMNS} FROM job WHERE id = ${id} AND kind IN ('crawl', 'run')`;
    return job ?? null;
  }

  /**
   * Keeps the robots.txt a crawl read at its start with its run, once: the job's state, which
   * every settle step reads and writes whole, would carry it (up to 500 KB) through every step.
   */
  async saveRobots(tx: Tx, runId: string, robots: RobotsRead): Promise<void> {
    await tx.$executeRaw`
      UPDATE run SET robots_txt = ${storableText(robots.robotsTxt)}, robots_status = ${robots.robotsStatus}
       WHERE id = ${runId}`;
  }

  /** What the crawl read of robots.txt at its start (a crawl started before it moved to the run: its state). */
  async robotsOf(tx: Tx, job: CrawlJob): Promise<RobotsRead> {
    const [row] = await tx.$queryRaw<{ robotsTxt: string | null; robotsStatus: number | null }[]>`
      SELECT robots_txt AS "robotsTxt", robots_status AS "robotsStatus" FROM run WHERE id = ${job.runId}`;
    if (row && row.robotsStatus !== null) return { robotsTxt: row.robotsTxt ?? '', robotsStatus: row.robotsStatus };
    const state = (job.result ?? {}) as Partial<CrawlState>;
    return { robotsTxt: state.robotsTxt ?? '', robotsStatus: state.robotsStatus ?? 0 };
  }

  /**
   * `lockedView` as a query without parameters, for FrontierRepository.locked's `read`: a settle
   * step reads its job in the round trip that takes the run's lock. Its rows: `fromView`.
   */
  viewQuery(id: string): string {
    return `SELECT ${JOB_COLUMNS.text} FROM job WHERE id = '${id.replaceAll("'", "''")}'`;
  }

  fromView(rows: unknown[]): CrawlJob | null {
    return (rows[0] as CrawlJob | undefined) ?? null;
  }

  /** The job as the run's lock holder sees it (read inside the locked transaction). */
  async lockedView(tx: Tx, id: string): Promise<CrawlJob | null> {
    const rows = await tx.$queryRaw<CrawlJob[]>`SELECT ${JOB_COLUMNS} FROM job WHERE id = ${id}`;
    return rows[0] ?? null;
  }

  async projectOfRun(runId: string): Promise<Project | null> {
    const [project] = await this.raw.$queryRaw<Project[]>`
      SELECT ${PROJECT_COLUMNS} FROM project WHERE id = (SELECT project_id FROM run WHERE id = ${runId})`;
    return project ?? null;
  }

  /**
   * Writes a step's changes to the job (and its run) and answers the job as it now is: the next
   * write of the same step starts from that, never from an older copy.
   */
  async update(
    tx: Tx,
    job: CrawlJob,
    patch: {
      status?: string;
      progress?: { done: number; total: number; queued: number };
      addCredits?: number;
      /** Added to the verdict counts (a batch of settled pages adds several at once). */
      addCounts?: Record<string, number>;
      stop?: string | null;
      state?: Partial<CrawlState>;
      error?: string;
    },
  ): Promise<CrawlJob> {
    const counts = { ...(job.counts as Record<string, number>) };
    for (const [key, n] of Object.entries(patch.addCounts ?? {})) counts[key] = (counts[key] ?? 0) + n;
    const state = { ...(job.result as unknown as CrawlState), ...patch.state };
    const ending = patch.status !== undefined && ['done', 'error', 'cancelled'].includes(patch.status);
    // One statement for the job and its run, in raw SQL: a crawl writes this once per step, and
    // the query compiler's per-call cost was a visible share of a crawl's CPU.
    const rows = await tx.$queryRawUnsafe<CrawlJob[]>(
      `/* prepared */ WITH updated AS (
         UPDATE job SET status = COALESCE($2, status), progress = COALESCE($3::jsonb, progress),
                credits_used = credits_used + $4, stop = CASE WHEN $5 THEN $6 ELSE stop END,
                error = COALESCE($7::jsonb, error), counts = $8::jsonb, result = $9::jsonb,
                updated_at = (now() AT TIME ZONE 'utc')
          WHERE id = $1
          RETURNING ${JOB_COLUMNS.text}
       ), run_updated AS (
         UPDATE run SET status = COALESCE($2, status), credits_used = credits_used + $4,
                stop = CASE WHEN $5 THEN $6 ELSE stop END, counts = $8::jsonb,
                started_at = CASE WHEN $2 = 'running' THEN (now() AT TIME ZONE 'utc') ELSE started_at END,
                finished_at = CASE WHEN $10 THEN (now() AT TIME ZONE 'utc') ELSE finished_at END
          WHERE id = $11
       )
       SELECT * FROM updated`,
      job.id,
      patch.status ?? null,
      patch.progress ? JSON.stringify(patch.progress) : null,
      patch.addCredits ?? 0,
      patch.stop !== undefined,
      patch.stop ?? null,
      // The state holds robots.txt and log lines that quote sites; errors may too.
      patch.error ? JSON.stringify(storable({ message: patch.error })) : null,
      JSON.stringify(counts),
      JSON.stringify(storable(state)),
      ending,
      job.runId,
    );
    return rows[0]!;
  }

  /** A workspace's runs and crawls that are queued or running, with their project, oldest first. */
  async activeOf(
    workspaceId: string,
    take: number,
  ): Promise<
    {
      id: string;
      kind: string;
      status: string;
      progress: { done?: number; total?: number; queued?: number };
      creditsUsed: number;
      createdAt: Date;
      runId: string;
      projectId: string;
      projectName: string;
    }[]
  > {
    return this.prisma.$queryRaw`
      SELECT j.id, j.kind, j.status, j.progress, j.credits_used AS "creditsUsed", j.created_at AS "createdAt",
             j.run_id AS "runId", p.id AS "projectId", p.name AS "projectName"
        FROM job j
        JOIN run r ON r.id = j.run_id
        JOIN project p ON p.id = r.project_id
       WHERE j.workspace_id = ${workspaceId} AND j.kind IN ('crawl', 'run') AND j.status IN ('queued', 'running')
       ORDER BY j.id
       LIMIT ${take}`;
  }

  /**
   * The lease slots of the workspace's running crawls and runs but one (`except`, the crawl whose
   * step asks: its own slots are in the step's view), read through the partial index
   * job_running_crawls.
   */
  async workspaceLeases(tx: Tx, workspaceId: string, except: string): Promise<WorkspaceLeaseSlot[]> {
    return tx.$queryRaw<WorkspaceLeaseSlot[]>`
      SELECT j.id AS "jobId", (l.ord - 1)::int AS slot,
             coalesce((l.v->>'delivery')::int, 0) AS delivery, (l.v->>'deferredAt')::float8 AS "deferredAt"
        FROM ${LEASE_SLOTS}
       WHERE ${RUNNING_SLOT} AND j.workspace_id = ${workspaceId} AND j.id <> ${except}`;
  }

  /** Whether a crawl or run of the workspace other than `except` ended within the last `ms`. */
  async endedSince(tx: Tx, workspaceId: string, except: string, ms: number): Promise<boolean> {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM job
       WHERE workspace_id = ${workspaceId} AND kind IN ('crawl', 'run') AND id <> ${except}
         AND status NOT IN ('queued', 'running')
         AND updated_at >= (now() AT TIME ZONE 'utc') - make_interval(secs => ${ms}::float8 / 1000)
       LIMIT 1`;
    return rows.length > 0;
  }

  /** The running crawl or run of the workspace with its oldest deferred lease slot, if any. */
  async oldestDeferred(workspaceId: string): Promise<{ id: string; runId: string } | null> {
    const [row] = await this.raw.$queryRaw<{ id: string; runId: string }[]>`
      SELECT j.id, j.run_id AS "runId"
        FROM ${LEASE_SLOTS}
       WHERE ${RUNNING_SLOT} AND j.workspace_id = ${workspaceId} AND l.v ? 'deferredAt'
       ORDER BY (l.v->>'deferredAt')::float8, j.id
       LIMIT 1`;
    return row ?? null;
  }

  /**
   * Takes the workspace's lease-queue lock for the step's transaction if nobody holds it (false:
   * another crawl of the workspace is deciding what to queue right now). Try only: a step never
   * waits for another crawl's, so two crawls' steps cannot deadlock on it.
   */
  async tryLockLeaseQueue(tx: Tx, workspaceId: string): Promise<boolean> {
    const [row] = await tx.$queryRaw<{ ok: boolean }[]>`
      SELECT pg_try_advisory_xact_lock(hashtext('lease-queue:' || ${workspaceId})) AS ok`;
    return row?.ok === true;
  }

  /**
   * Crawls and runs still open whose job has not moved for `stallMs` (no step wrote it): the
   * watchdog's candidates. Each is looked at again under its run's lock before anything is done.
   */
  async stalled(stallMs: number, take = 50): Promise<{ id: string; runId: string }[]> {
    return this.prisma.$queryRaw<{ id: string; runId: string }[]>`
      SELECT id, run_id AS "runId" FROM job
       WHERE kind IN ('crawl', 'run') AND status IN ('queued', 'running')
         AND updated_at < (now() AT TIME ZONE 'utc') - make_interval(secs => ${stallMs}::float8 / 1000)
       ORDER BY updated_at LIMIT ${take}::int`;
  }

  /** Whether the job (read under its run's lock) has still not moved for `stallMs`. */
  async stillStalled(tx: Tx, id: string, stallMs: number): Promise<boolean> {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM job WHERE id = ${id}
         AND updated_at < (now() AT TIME ZONE 'utc') - make_interval(secs => ${stallMs}::float8 / 1000)`;
    return rows.length > 0;
  }

  /** Crawls still going, for the ticker (delays, Retry-After, crawl.page every 5 s, lost work). */
  async running(): Promise<{ id: string; runId: string }[]> {
    return this.raw.$queryRaw<{ id: string; runId: string }[]>`
      SELECT id, run_id AS "runId" FROM job WHERE kind IN ('crawl', 'run') AND status IN ('queued', 'running')`;
  }

  async keep(
    workspaceId: string,
    projectId: string,
    data: { name?: string; schedule?: string; retention?: string },
  ): Promise<Project> {
    return this.prisma.project.update({
      where: { id: projectId, workspaceId },
      data: { ...data, ephemeral: false },
    });
  }

  /** Discards unkept crawl projects older than `before`: their runs, pages, frontiers and jobs. */
  async discardEphemeral(before: Date): Promise<number> {
    const projects = await this.prisma.project.findMany({
      where: { ephemeral: true, createdAt: { lt: before } },
      select: { id: true, runs: { select: { id: true } } },
    });
    if (!projects.length) return 0;
    const runIds = projects.flatMap((p) => p.runs.map((r) => r.id));
    await this.prisma.$transaction([
      this.prisma.job.deleteMany({ where: { kind: 'crawl', runId: { in: runIds } } }),
      this.prisma.project.deleteMany({ where: { id: { in: projects.map((p) => p.id) }, ephemeral: true } }),
    ]);
    return projects.length;
  }

  /**
   * Starts a run of a standing project: the run and its job (kind `run`, the project's seed and
   * saved config as its request) under the project's lock, so two callers (or two schedulers)
   * never start two. `busy` while one of its runs is queued or running; null when the project
   * is not the workspace's (or is a crawl's hidden one).
   */
  async createRun(
    workspaceId: string,
    projectId: string,
    trigger: string,
    db: Prisma.TransactionClient | null = null,
    recrawlUrls: string[] | null = null,
  ): Promise<{ job: CrawlJob; run: Run } | 'busy' | null> {
    const go = async (tx: Prisma.TransactionClient) => {
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext('project:' || ${projectId}))::text`;
      const project = await tx.project.findFirst({ where: { id: projectId, workspaceId, ephemeral: false } });
      if (!project) return null;
      if ((await tx.run.count({ where: { projectId, status: { in: ['queued', 'running'] } } })) > 0) return 'busy';
      const run = await tx.run.create({
        data: { id: newId('run'), projectId, workspaceId, status: 'queued', trigger },
      });
      const job = await tx.job.create({
        data: {
          id: newId('job'),
          workspaceId,
          kind: 'run',
          status: 'queued',
          runId: run.id,
          progress: { done: 0, total: 0, queued: 0 },
          request: { url: project.seed, config: project.config } as Prisma.InputJsonValue,
          result: { ...initialState(), ...(recrawlUrls ? { recrawlUrls } : {}) } as unknown as Prisma.InputJsonValue,
        },
      });
      return { job: job as CrawlJob, run };
    };
    return db ? go(db) : this.prisma.$transaction(go, { timeout: 30_000 });
  }

  async findProject(workspaceId: string, projectId: string): Promise<Project | null> {
    return this.prisma.project.findFirst({ where: { id: projectId, workspaceId, ephemeral: false } });
  }

  /**
   * The runs whose URLs a project knows: its latest finished full run and the run going now
   * (either may be missing), in that order.
   */
  async knownRuns(projectId: string): Promise<{ finished: string | null; running: string | null }> {
    const [finished, running] = await Promise.all([
      this.prisma.run.findFirst({
        where: { projectId, status: 'done', trigger: { not: 'recrawl' } },
        orderBy: { createdAt: 'desc' },
        select: { id: true },
      }),
      this.prisma.run.findFirst({
        where: { projectId, status: { in: ['queued', 'running'] } },
        select: { id: true },
      }),
    ]);
    return { finished: finished?.id ?? null, running: running?.id ?? null };
  }

  async findRun(workspaceId: string, projectId: string, runId: string): Promise<Run | null> {
    return this.prisma.run.findFirst({ where: { id: runId, workspaceId, projectId } });
  }

  async projectVisible(workspaceId: string, projectId: string): Promise<boolean> {
    return (await this.prisma.project.count({ where: { id: projectId, workspaceId, ephemeral: false } })) > 0;
  }

  /** The jobs that drive these runs (a crawl's or a project run's), by run. */
  async jobsOfRuns(runIds: string[], tx: Prisma.TransactionClient = this.prisma): Promise<Map<string, CrawlJob>> {
    const jobs = (await tx.job.findMany({
      where: { runId: { in: runIds }, kind: { in: ['crawl', 'run'] } },
    })) as CrawlJob[];
    return new Map(jobs.map((j) => [j.runId, j]));
  }

  /**
   * A project's runs (newest first, before a cursor) with the jobs that drive them, read in one
   * snapshot. A job's last step ends the job and its run in one statement; two reads outside a
   * snapshot could see the job done and the run not yet finished (no finishedAt).
   */
  async runsWithJobs(
    workspaceId: string,
    projectId: string,
    page: { runId: string } | { take: number; before?: string },
  ): Promise<{ run: Run; job: CrawlJob | null }[]> {
    return this.prisma.$transaction(
      async (tx) => {
        const runs =
          'runId' in page
            ? await tx.run.findMany({ where: { id: page.runId, workspaceId, projectId } })
            : await tx.run.findMany({
                where: { workspaceId, projectId, ...(page.before ? { id: { lt: page.before } } : {}) },
                orderBy: { id: 'desc' },
                take: page.take,
              });
        const jobs = runs.length
          ? await this.jobsOfRuns(
              runs.map((r) => r.id),
              tx,
            )
          : new Map<string, CrawlJob>();
        return runs.map((run) => ({ run, job: jobs.get(run.id) ?? null }));
      },
      { isolationLevel: 'RepeatableRead' },
    );
  }

  /**
   * The scheduler's step: standing projects on a daily or weekly schedule whose last run began
   * a period ago or more (or that never ran) each get a run. Projects are taken FOR UPDATE SKIP
   * LOCKED, so two schedulers split them, and the run starts under the project's lock, so none
   * starts twice. Answers the runs started.
   */
  async startDueRuns(take: number): Promise<{ job: CrawlJob; run: Run }[]> {
    return this.prisma.$transaction(
      async (tx) => {
        const due = await tx.$queryRaw<{ id: string; workspace_id: string }[]>`
          SELECT p.id, p.workspace_id FROM project p
           WHERE p.ephemeral = false AND p.schedule IN ('daily', 'weekly')
             AND NOT EXISTS (
               SELECT 1 FROM run r WHERE r.project_id = p.id
                  AND r.created_at > (now() AT TIME ZONE 'utc')
                      - CASE p.schedule WHEN 'daily' THEN interval '1 day' ELSE interval '7 days' END)
           ORDER BY p.id LIMIT ${take}
           FOR UPDATE OF p SKIP LOCKED`;
        const started: { job: CrawlJob; run: Run }[] = [];
        for (const p of due) {
          const made = await this.createRun(p.workspace_id, p.id, 'schedule', tx);
          if (made && made !== 'busy') started.push(made);
        }
        return started;
      },
      { timeout: 60_000 },
    );
  }

  /**
   * Retention: finished runs of standing projects older than the project's retention go, with
   * their jobs, frontiers and pages (the foreign keys cascade); a project's latest finished run
   * stays whatever its age (it is the baseline the next run is compared with).
   */
  async pruneRuns(): Promise<number> {
    return this.prisma.$transaction(async (tx) => {
      const doomed = await tx.$queryRaw<{ id: string }[]>`
        SELECT r.id FROM run r JOIN project p ON p.id = r.project_id
         WHERE p.ephemeral = false AND p.retention ~ '^[0-9]+d$'
           AND r.status IN ('done', 'error', 'cancelled')
           AND r.finished_at < (now() AT TIME ZONE 'utc')
               - make_interval(days => substring(p.retention from '^([0-9]+)d$')::int)
           AND r.id <> (SELECT r2.id FROM run r2
                         WHERE r2.project_id = p.id AND r2.status = 'done' AND r2.trigger <> 'recrawl'
                         ORDER BY r2.finished_at DESC NULLS LAST LIMIT 1)`;
      if (!doomed.length) return 0;
      const ids = doomed.map((d) => d.id);
      await tx.job.deleteMany({ where: { runId: { in: ids } } });
      await tx.run.deleteMany({ where: { id: { in: ids } } });
      return ids.length;
    });
  }
}
