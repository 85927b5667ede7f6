import { newId, type Job, type Prisma, type PrismaClient, type Project } from '@tidemark/db';
import type { ResolvedConfig } from '@tidemark/contracts';
import type { PageCursor, Tx } from './frontier.repository.js';

/** What a crawl keeps about itself beside the envelope (job.result); never shown to callers. */
export interface CrawlState {
  robotsTxt: string;
  robotsStatus: number;
  /** URLs were found that the page limit left out. */
  limitReached: boolean;
  /** Links were found beyond max_depth. */
  depthReached: boolean;
  budgetHit: boolean;
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
}

export const initialState = (): CrawlState => ({
  robotsTxt: '',
  robotsStatus: 0,
  limitReached: false,
  depthReached: false,
  budgetHit: false,
  hostNextAt: {},
  lastPageEventAt: new Date(0).toISOString(),
  started: false,
});

export type CrawlJob = Job & { runId: string };

/**
 * The only file of crawl that touches job, project and run. A crawl is a job (the envelope), a
 * run (its pages) and a hidden project (its config) until it is kept.
 */
export class CrawlJobRepository {
  constructor(private readonly prisma: PrismaClient) {}

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
    return (await this.prisma.job.findFirst({ where: { id, workspaceId, kind: 'crawl' } })) as CrawlJob | null;
  }

  async findById(id: string): Promise<CrawlJob | null> {
    return (await this.prisma.job.findFirst({ where: { id, kind: 'crawl' } })) as CrawlJob | null;
  }

  /** The job as the run's lock holder sees it (read inside the locked transaction). */
  async lockedView(tx: Tx, id: string): Promise<CrawlJob | null> {
    return (await tx.job.findUnique({ where: { id } })) as CrawlJob | null;
  }

  async projectOfRun(runId: string): Promise<Project | null> {
    const run = await this.prisma.run.findUnique({ where: { id: runId }, include: { project: true } });
    return run?.project ?? null;
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
      countKey?: string;
      stop?: string | null;
      state?: Partial<CrawlState>;
      error?: string;
    },
  ): Promise<CrawlJob> {
    const counts = { ...(job.counts as Record<string, number>) };
    if (patch.countKey) counts[patch.countKey] = (counts[patch.countKey] ?? 0) + 1;
    const state = { ...(job.result as unknown as CrawlState), ...patch.state };
    const updated = await tx.job.update({
      where: { id: job.id },
      data: {
        ...(patch.status ? { status: patch.status } : {}),
        ...(patch.progress ? { progress: patch.progress } : {}),
        ...(patch.addCredits ? { creditsUsed: { increment: patch.addCredits } } : {}),
        ...(patch.stop !== undefined ? { stop: patch.stop } : {}),
        ...(patch.error ? { error: { message: patch.error } } : {}),
        counts,
        result: state as unknown as Prisma.InputJsonValue,
      },
    });
    const run: Prisma.RunUpdateInput = {};
    if (patch.status === 'running') run.startedAt = new Date();
    if (patch.status && ['done', 'error', 'cancelled'].includes(patch.status)) run.finishedAt = new Date();
    if (patch.status) run.status = patch.status;
    if (patch.stop !== undefined) run.stop = patch.stop;
    if (patch.addCredits) run.creditsUsed = { increment: patch.addCredits };
    if (patch.countKey) run.counts = counts;
    if (Object.keys(run).length) await tx.run.update({ where: { id: job.runId }, data: run });
    return updated as CrawlJob;
  }

  /** Crawls still going, for the ticker (delays, Retry-After, crawl.page every 5 s, lost work). */
  async running(): Promise<{ id: string; runId: string }[]> {
    return (await this.prisma.job.findMany({
      where: { kind: 'crawl', status: { in: ['queued', 'running'] } },
      select: { id: true, runId: true },
    })) as { id: string; runId: string }[];
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
}
