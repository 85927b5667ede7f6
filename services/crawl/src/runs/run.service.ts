import type { Bus } from '@tidemark/bus';
import {
  jobStatusEnum,
  runTriggerEnum,
  type crawlV1,
  type JobStatusName,
  type RunTriggerName,
} from '@tidemark/contracts';
import type { Run } from '@tidemark/db';
import { ApiError, NotFoundError, ValidationError } from '@tidemark/errors';
import type { CrawlEngine } from '../crawl/crawl-engine.js';
import { normalizeUrl } from '../frontier/normalize-url.js';
import { CrawlScope } from '../frontier/scope.js';
import type { CrawlJob, CrawlJobRepository, CrawlState } from '../repositories/crawl-job.repository.js';

const MAX_RUNS_PAGE = 100;
const MAX_RECRAWL_URLS = 1000;

/**
 * A standing project's runs: started by hand, by POST /projects/run or by the scheduler, crawled
 * by the same engine as a crawl job (the project's seed and saved config are the request).
 */
export class RunService {
  constructor(
    private readonly jobs: CrawlJobRepository,
    private readonly engine: CrawlEngine,
    private readonly bus: Bus,
  ) {}

  async start(workspaceId: string, projectId: string, trigger: string): Promise<crawlV1.Run> {
    if (!['manual', 'api', 'schedule'].includes(trigger)) throw new ValidationError('trigger: manual, api or schedule');
    const made = await this.jobs.createRun(workspaceId, projectId, trigger);
    if (made === null) throw new NotFoundError('project');
    if (made === 'busy')
      throw new ApiError('conflict', 'a run of this project is queued or running; cancel it or wait');
    await this.queue(made.job);
    return toRecord(made.run, made.job);
  }

  /**
   * POST /projects/{id}/pages/recrawl: a run of its own that fetches exactly these URLs now,
   * follows no link and reads no sitemap; its record compares them with the last full run, and
   * it never stands in for the site (the next full run is compared with the full run before).
   */
  async recrawl(workspaceId: string, projectId: string, urls: string[]): Promise<crawlV1.Run> {
    const project = await this.jobs.findProject(workspaceId, projectId);
    if (!project) throw new NotFoundError('project');
    if (!urls.length || urls.length > MAX_RECRAWL_URLS)
      throw new ValidationError(`body.urls: 1 to ${MAX_RECRAWL_URLS} URLs`);
    const config = project.config as { scope?: { allow_subdomains?: boolean } };
    const scope = new CrawlScope(project.seed, {
      include_paths: [],
      exclude_paths: [],
      allow_subdomains: config.scope?.allow_subdomains ?? false,
      max_depth: null,
    });
    const keys = new Set<string>();
    const listed: string[] = [];
    urls.forEach((raw, i) => {
      const key = normalizeUrl(raw);
      if (!key || !/^https?:/.test(raw)) throw new ValidationError(`body.urls[${i}]: not an http or https URL`);
      if (scope.check(new URL(key), 0) === 'other_host')
        throw new ValidationError(`body.urls[${i}]: not on this project's site (${project.host})`);
      if (!keys.has(key)) listed.push(raw);
      keys.add(key);
    });
    const made = await this.jobs.createRun(workspaceId, projectId, 'recrawl', null, listed);
    if (made === null) throw new NotFoundError('project');
    if (made === 'busy')
      throw new ApiError('conflict', 'a run of this project is queued or running; cancel it or wait');
    await this.queue(made.job);
    return toRecord(made.run, made.job);
  }

  async list(
    workspaceId: string,
    projectId: string,
    limit: number,
    cursor: string | null,
  ): Promise<{ runs: crawlV1.Run[]; next: string | null }> {
    if (!(await this.jobs.projectVisible(workspaceId, projectId))) throw new NotFoundError('project');
    const take = Math.min(Math.max(limit || 25, 1), MAX_RUNS_PAGE);
    const runs = await this.jobs.runsWithJobs(workspaceId, projectId, { take: take + 1, before: cursor ?? undefined });
    const shown = runs.slice(0, take);
    return {
      runs: shown.map(({ run, job }) => toRecord(run, job)),
      next: runs.length > take ? shown.at(-1)!.run.id : null,
    };
  }

  async get(workspaceId: string, projectId: string, runId: string): Promise<crawlV1.Run> {
    const { run, job } = await this.find(workspaceId, projectId, runId);
    return toRecord(run, job);
  }

  async cancel(workspaceId: string, projectId: string, runId: string): Promise<crawlV1.Run> {
    const { job } = await this.find(workspaceId, projectId, runId);
    if (job) await this.engine.cancel(job);
    return this.get(workspaceId, projectId, runId);
  }

  /** The scheduler's step (every crawl worker runs it; they split the due projects). */
  async startDue(): Promise<number> {
    const started = await this.jobs.startDueRuns(50);
    for (const { job } of started) await this.queue(job);
    return started.length;
  }

  pruneRuns(): Promise<number> {
    return this.jobs.pruneRuns();
  }

  private async find(
    workspaceId: string,
    projectId: string,
    runId: string,
  ): Promise<{ run: Run; job: CrawlJob | null }> {
    const [found] = await this.jobs.runsWithJobs(workspaceId, projectId, { runId });
    if (!found) throw new NotFoundError('run');
    return found;
  }

  private queue(job: CrawlJob): Promise<void> {
    return this.bus.publishWork(
      'work.crawl.start',
      { jobId: job.id, workspaceId: job.workspaceId, runId: job.runId },
      { msgId: `${job.id}:start` },
    );
  }
}

/** The run as it crosses the wire (runSchema is its REST shape); absent fields are REST's nulls. */
const toRecord = (run: Run, job: CrawlJob | null): crawlV1.Run => {
  const state = (job?.result ?? {}) as Partial<CrawlState>;
  return {
    id: run.id,
    projectId: run.projectId,
    status: jobStatusEnum.toProto((job?.status ?? run.status) as JobStatusName),
    trigger: runTriggerEnum.toProto(run.trigger as RunTriggerName),
    progress: (job?.progress as crawlV1.Run['progress']) ?? { done: 0, total: 0, queued: 0 },
    counts: (job?.counts ?? run.counts) as Record<string, number>,
    creditsUsed: job?.creditsUsed ?? run.creditsUsed,
    stop: job?.stop ?? run.stop ?? undefined,
    engines: state.engines ?? {},
    log: state.log ?? [],
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString(),
    finishedAt: run.finishedAt?.toISOString(),
  };
};
