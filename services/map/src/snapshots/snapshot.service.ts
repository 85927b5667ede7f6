import type { Bus } from '@tidemark/bus';
import type { JobStatusName, MapTotals } from '@tidemark/contracts';
import type { DiscoverySnapshot, Job } from '@tidemark/db';
import { ApiError, NotFoundError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import type { FileError, MapMethod, RobotsSummary, SitemapMode } from '../discovery/discovery.service.js';
import type { MapJobService, MapResult, MapRow } from '../jobs/map-job.service.js';
import type { FileSummary, SnapshotRepository } from '../repositories/snapshot.repository.js';

/** URLs named in one sitemap.added / removed / updated event (the count is always whole). */
const EVENT_URLS = 100;
const MAX_FILE_EVENTS = 100;
const SNAPSHOT_LIMIT = 50_000;

/** What a finished snapshot keeps (`discovery_snapshot.summary`). */
export interface SnapshotSummary {
  status: 'done' | 'error';
  robots: RobotsSummary | null;
  totals: MapTotals | null;
  method: MapMethod | null;
  errors: FileError[];
  files: FileSummary[];
  feeds: FileSummary[];
  finishedAt: string;
}

/** Against the snapshot before (`discovery_snapshot.diff`). */
export interface SnapshotDiff {
  baseline: string;
  files: { added: string[]; removed: string[] };
  urls: Awaited<ReturnType<SnapshotRepository['urlDiff']>>;
}

/** A finished snapshot as the routes show it. */
export interface SnapshotView {
  id: string;
  createdAt: Date;
  summary: SnapshotSummary;
  diff: SnapshotDiff | null;
}

/** The map job of a snapshot, as far as it has come. */
export interface SnapshotJobView {
  id: string;
  status: JobStatusName;
  progress: { done: number; total: number; queued: number };
  creditsUsed: number;
}

/**
 * A project's discovery: snapshots of its sitemap tree. A snapshot is a map job of the project's
 * seed (billed as a map, 1 credit per file) whose rows stay; when it ends it gets a summary and
 * a diff against the snapshot before, and sitemap.* events tell what moved.
 */
export class SnapshotService {
  constructor(
    private readonly snapshots: SnapshotRepository,
    private readonly jobs: MapJobService,
    private readonly bus: Bus,
    private readonly logger: Logger,
  ) {}

  async start(workspaceId: string, projectId: string): Promise<SnapshotJobView> {
    const project = await this.snapshots.project(workspaceId, projectId);
    if (!project) throw new NotFoundError('project');
    const latest = await this.snapshots.latest(projectId);
    if (latest && latest.summary === null) {
      const job = await this.jobs.get(workspaceId, latest.jobId).catch(() => null);
      if (job && (job.status === 'queued' || job.status === 'running'))
        throw new ApiError('conflict', 'a discovery of this project is running; wait for it');
    }
    const mode = (project.config as { scope?: { sitemap_mode?: SitemapMode } }).scope?.sitemap_mode ?? 'auto';
    const job = await this.jobs.start(
      workspaceId,
      // A snapshot is of the sitemap tree: `skip` (crawl without sitemaps) still reads them here.
      { url: project.seed, search: null, limit: SNAPSHOT_LIMIT, sitemapMode: mode === 'skip' ? 'auto' : mode },
      null,
      async (created) => void (await this.snapshots.create({ workspaceId, projectId, jobId: created.id })),
    );
    return jobView(job);
  }

  /** The latest finished snapshot (null before the first) and the running one's job, if any. */
  async get(
    workspaceId: string,
    projectId: string,
  ): Promise<{ discovery: SnapshotView | null; job: SnapshotJobView | null }> {
    const project = await this.snapshots.project(workspaceId, projectId);
    if (!project) throw new NotFoundError('project');
    const latest = await this.snapshots.latest(projectId);
    let running = latest && latest.summary === null ? await this.jobs.get(workspaceId, latest.jobId) : null;
    if (running && running.status !== 'queued' && running.status !== 'running') {
      // Its job ended but the summary was not written (the end hook failed): write it now.
      await this.onJobEnd(running);
      running = null;
    }
    const done = await this.snapshots.latestDone(projectId);
    return {
      discovery: done ? present(done) : null,
      job: running ? jobView(running) : null,
    };
  }

  async entries(
    workspaceId: string,
    projectId: string,
    q: { file?: string; prefix?: string; snapshotId?: string; q?: string; cursor: number; limit: number },
  ): Promise<{
    snapshotId: string;
    rows: MapRow[];
    nextCursor: number | null;
    prefixes: { prefix: string; urls: number }[];
  }> {
    const project = await this.snapshots.project(workspaceId, projectId);
    if (!project) throw new NotFoundError('project');
    const snapshot = q.snapshotId
      ? await this.snapshots.find(workspaceId, projectId, q.snapshotId)
      : await this.snapshots.latestDone(projectId);
    if (!snapshot) throw new NotFoundError(q.snapshotId ? 'snapshot' : 'discovery (none has run yet)');
    const filter = { file: q.file, prefix: q.prefix, q: q.q };
    const rows = await this.snapshots.entries(snapshot.jobId, filter, q.cursor, q.limit + 1);
    const more = rows.length > q.limit;
    return {
      snapshotId: snapshot.id,
      rows: rows.slice(0, q.limit),
      nextCursor: more ? q.cursor + q.limit : null,
      prefixes: await this.snapshots.prefixes(snapshot.jobId, filter),
    };
  }

  /** Called when a map job ends: a snapshot's job gets its summary, diff and events. */
  async onJobEnd(job: Job): Promise<void> {
    const snapshot = await this.snapshots.byJob(job.id);
    if (!snapshot || snapshot.summary !== null) return;
    const result = (job.result ?? {}) as Partial<MapResult>;
    const files = job.status === 'done' ? await this.snapshots.files(job.id) : [];
    const summary: SnapshotSummary = {
      status: job.status === 'done' ? 'done' : 'error',
      robots: result.robots ?? null,
      totals: result.totals ?? null,
      method: result.method ?? null,
      errors: result.errors ?? [],
      files: files.filter((f) => f.source !== 'feed'),
      feeds: files.filter((f) => f.source === 'feed'),
      finishedAt: new Date().toISOString(),
    };
    const previous = summary.status === 'done' ? await this.snapshots.latestDone(snapshot.projectId) : null;
    const diff = previous && previous.id !== snapshot.id ? await this.diff(job.id, previous, summary) : null;
    await this.snapshots.finish(snapshot.id, summary, diff);
    if (diff) await this.publish(snapshot, diff);
    this.logger.info({ projectId: snapshot.projectId, snapshotId: snapshot.id }, 'discovery snapshot stored');
  }

  private async diff(jobId: string, previous: DiscoverySnapshot, summary: SnapshotSummary): Promise<SnapshotDiff> {
    const before = (previous.summary as unknown as SnapshotSummary).files.concat(
      (previous.summary as unknown as SnapshotSummary).feeds,
    );
    const now = summary.files.concat(summary.feeds);
    const names = (fs: FileSummary[]) => new Set(fs.map((f) => f.file));
    const beforeNames = names(before);
    const nowNames = names(now);
    return {
      baseline: previous.id,
      files: {
        added: now.filter((f) => !beforeNames.has(f.file)).map((f) => f.file),
        removed: before.filter((f) => !nowNames.has(f.file)).map((f) => f.file),
      },
      urls: await this.snapshots.urlDiff(jobId, previous.jobId, EVENT_URLS),
    };
  }

  private async publish(snapshot: DiscoverySnapshot, diff: SnapshotDiff) {
    const base = { projectId: snapshot.projectId, runId: null, snapshotId: snapshot.id };
    for (const [kind, files] of [
      ['sitemap.file_added', diff.files.added],
      ['sitemap.file_removed', diff.files.removed],
    ] as const)
      for (const file of files.slice(0, MAX_FILE_EVENTS))
        await this.bus.publishEvent(
          snapshot.workspaceId,
          kind,
          { ...base, file },
          {
            msgId: `${snapshot.id}:${kind}:${file}`,
          },
        );
    for (const [kind, part] of [
      ['sitemap.added', diff.urls.added],
      ['sitemap.removed', diff.urls.removed],
      ['sitemap.updated', diff.urls.updated],
    ] as const)
      if (part.count > 0)
        await this.bus.publishEvent(
          snapshot.workspaceId,
          kind,
          { ...base, count: part.count, urls: part.urls },
          {
            msgId: `${snapshot.id}:${kind}`,
          },
        );
  }
}

const jobView = (job: Job): SnapshotJobView => ({
  id: job.id,
  status: job.status as JobStatusName,
  progress: job.progress as SnapshotJobView['progress'],
  creditsUsed: job.creditsUsed,
});

// The JSON columns were written by onJobEnd (finish) from these types.
const present = (s: DiscoverySnapshot): SnapshotView => ({
  id: s.id,
  createdAt: s.createdAt,
  summary: s.summary as unknown as SnapshotSummary,
  diff: (s.diff ?? null) as unknown as SnapshotDiff | null,
});
