import type { Bus } from '@tidemark/bus';
import { stalledReason } from '@tidemark/config';
import type { JobStatusName, MapSourceName, MapStopName, MapTotals } from '@tidemark/contracts';
import type { Job, MapUrl } from '@tidemark/db';
import { asApiError, NotFoundError, ValidationError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import { z } from 'zod';
import {
  SITEMAP_MODES,
  type DiscoveryService,
  type FileCredits,
  type FileError,
  type MapMethod,
  type RobotsSummary,
  type SitemapMode,
} from '../discovery/discovery.service.js';
import type { MapJobRepository } from '../repositories/map-job.repository.js';
import type { MapUrlRepository } from '../repositories/map-url.repository.js';

export const DEFAULT_LIMIT = 5_000;
export const MAX_LIMIT = 50_000;
const MAX_SEARCH = 200;

/** What a map job keeps of its request (and what every worker reads back). */
export const mapRequest = z.object({
  url: z.string(),
  search: z.string().nullable(),
  limit: z.number().int(),
  sitemapMode: z.enum(SITEMAP_MODES),
});
export type MapRequest = z.infer<typeof mapRequest>;

/** Checks what a caller asked (the gateway validated it too; other callers may not have). */
export const parseMapInput = (input: {
  url: string;
  search?: string;
  limit?: number;
  sitemapMode?: string;
}): MapRequest => {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new ValidationError('url: not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError('url: must be http or https');
  const limit = input.limit || DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new ValidationError(`limit: 1 to ${MAX_LIMIT}`);
  const mode = input.sitemapMode || 'auto';
  if (!(SITEMAP_MODES as readonly string[]).includes(mode))
    throw new ValidationError(`sitemapMode: one of ${SITEMAP_MODES.join(', ')}`);
  const search = input.search ? input.search.toLowerCase() : null;
  if (search && search.length > MAX_SEARCH) throw new ValidationError(`search: at most ${MAX_SEARCH} characters`);
  return { url: url.toString(), search, limit, sitemapMode: mode as SitemapMode };
};

/** Kind-specific parts of a map's answer, kept in `job.result`. */
export interface MapResult {
  totals: MapTotals;
  robots: RobotsSummary | null;
  method: MapMethod | null;
  errors: FileError[];
}

export interface MapRow {
  url: string;
  lastmod: string | null;
  changefreq: string | null;
  source: MapSourceName;
  file: string;
  section: string;
}

/**
 * A map job with a page of its rows: the spec's job envelope with map rows, plus totals,
 * robots, method and errors (the rpc sends it as a MapJob message).
 */
export interface MapJobView extends MapResult {
  id: string;
  status: JobStatusName;
  progress: { done: number; total: number; queued: number };
  creditsUsed: number;
  counts: Record<string, number>;
  rows: MapRow[];
  /** The position of the row after this page; null when the page is the last. */
  nextPosition: number | null;
  stop: MapStopName | null;
  requestId: string | null;
  error: string | null;
  createdAt: Date;
}

/** Core-NATS broadcast when a map ends, so a MapNow waiting anywhere answers at once. */
export const mapDoneSubject = (jobId: string) => `map.job.${jobId}.done`;
const mapDoneMessage = z.object({ jobId: z.string(), status: z.string() });

const EMPTY_RESULT: MapResult = {
  totals: { files: 0, urls: 0, indexes: 0, blocked: 0 },
  robots: null,
  method: null,
  errors: [],
};

const toRow = (u: MapUrl): MapRow => ({
  url: u.url,
  lastmod: u.lastmod,
  changefreq: u.changefreq,
  source: u.source as MapSourceName,
  file: u.file,
  section: u.section,
});

export class MapJobService {
  constructor(
    private readonly jobs: MapJobRepository,
    private readonly urls: MapUrlRepository,
    private readonly discovery: DiscoveryService,
    private readonly bus: Bus,
    /** Billing for one job's files, references `<jobId>:file:<n>`. */
    private readonly credits: (workspaceId: string, referencePrefix: string) => FileCredits,
    private readonly opts: { jobTimeoutMs: number },
    private readonly logger: Logger,
  ) {}

  /** Called with every map job that ended (the discovery snapshots hook in here). */
  onEnd: ((job: Job) => Promise<void>) | null = null;

  /**
   * Creates a map job and puts it on the work stream; `created` runs in between (a snapshot row
   * that must exist before the job can end).
   */
  async start(
    workspaceId: string,
    request: MapRequest,
    requestId: string | null,
    created?: (job: Job) => Promise<void>,
  ): Promise<Job> {
    const job = await this.jobs.create({ workspaceId, request, requestId });
    if (created) await created(job);
    await this.bus.publishWork('work.map.run', { jobId: job.id, workspaceId }, { msgId: job.id });
    return job;
  }

  /**
   * Waits up to `ms` for a job to end: the done broadcast answers at once; a read right after
   * subscribing (and every second) covers a job that ended before we listened.
   */
  async waitForEnd(workspaceId: string, jobId: string, ms: number): Promise<Job> {
    const until = Date.now() + ms;
    for (;;) {
      const left = until - Date.now();
      const done = this.bus.waitForBroadcast(mapDoneSubject(jobId), mapDoneMessage, Math.max(1, Math.min(1000, left)));
      const job = await this.get(workspaceId, jobId);
      if (!isRunning(job) || left <= 0) return job;
      if (await done) return this.get(workspaceId, jobId);
    }
  }

  async get(workspaceId: string, jobId: string): Promise<Job> {
    const job = await this.jobs.find(workspaceId, jobId);
    if (!job) throw new NotFoundError('map job');
    return job;
  }

  /** The job with rows from position `after`, `limit` of them (0: none). */
  async view(job: Job, after = 0, limit = 1000): Promise<MapJobView> {
    const rows = limit > 0 ? await this.urls.list(job.id, after, limit + 1) : [];
    const more = rows.length > limit;
    const shown = more ? rows.slice(0, limit) : rows;
    const result = { ...EMPTY_RESULT, ...(job.result as Partial<MapResult> | null) };
    return {
      id: job.id,
      status: job.status as JobStatusName,
      progress: job.progress as MapJobView['progress'],
      creditsUsed: job.creditsUsed,
      counts: job.counts as Record<string, number>,
      rows: shown.map(toRow),
      nextPosition: more ? shown.at(-1)!.position + 1 : null,
      stop: job.stop as MapStopName | null,
      requestId: job.requestId,
      error: job.error === null ? null : String((job.error as { message?: string }).message ?? job.error),
      createdAt: job.createdAt,
      totals: result.totals,
      robots: result.robots,
      method: result.method,
      errors: result.errors,
    };
  }

  /**
   * NATS in (`work.map.run`): reads the site and stores its rows. A redelivered job starts over
   * (rows cleared; each file's billing reference is the same, so nothing is charged twice). A
   * failure that may pass (billing or the database away) is thrown for a retry unless this was
   * the last delivery; anything else ends the job as error.
   */
  async run(jobId: string, lastDelivery: boolean): Promise<void> {
    const job = await this.jobs.findById(jobId);
    if (!job || !isRunning(job) || !(await this.jobs.take(jobId))) return;
    await this.urls.clear(jobId);
    const request = mapRequest.parse(job.request);
    let position = 0;
    let charged = 0;
    const billing = this.credits(job.workspaceId, jobId);
    const credits: FileCredits = {
      authorize: (n) => billing.authorize(n),
      charge: async (n, amount) => {
        await billing.charge(n, amount);
        charged += amount;
      },
    };
    try {
      const found = await this.discovery.discover({
        url: request.url,
        mode: request.sitemapMode,
        limit: request.limit,
        search: request.search,
        feeds: [],
        deadline: Date.now() + this.opts.jobTimeoutMs,
        includeBlocked: false,
        credits,
        onEntries: (entries) =>
          this.urls.append(
            jobId,
            entries.map((e) => ({
              position: position++,
              url: e.url,
              lastmod: e.lastmod,
              changefreq: e.changefreq,
              source: e.source,
              file: e.file,
              section: e.section,
            })),
          ),
        onProgress: (progress, totals) => this.jobs.progress(jobId, progress, { ...EMPTY_RESULT, totals }),
      });
      const result: MapResult = {
        totals: found.totals,
        robots: found.robots,
        method: found.method,
        errors: found.errors,
      };
      await this.end(job, {
        status: 'done',
        stop: found.stop,
        creditsUsed: found.creditsUsed,
        counts: { ...found.counts, errors: found.errors.length },
        progress: found.progress,
        result,
        error: null,
      });
    } catch (err) {
      const apiError = asApiError(err);
      if (apiError.retryable && !lastDelivery) throw err;
      this.logger.error({ err, jobId }, 'map failed');
      await this.end(job, {
        status: 'error',
        stop: 'error',
        creditsUsed: charged,
        counts: {},
        progress: { done: 0, total: 0, queued: 0 },
        result: EMPTY_RESULT,
        error: { code: apiError.code, message: apiError.message },
      });
    }
  }

  /**
   * The watchdog's step (every map worker runs it): a map job that has not moved for `stallMs`
   * (its work lost: a publish that never happened, a worker that died on its last delivery, a
   * last delivery whose own ending failed) ends as an error with the reason, and is announced
   * like any other end (event, discovery snapshot, a caller waiting on it). Answers how many.
   */
  async failStalled(stallMs: number): Promise<number> {
    const reason = stalledReason(stallMs);
    const ended = await this.jobs.failStalled(stallMs, reason);
    for (const job of ended) {
      this.logger.warn({ jobId: job.id }, reason);
      await this.announce(job, { status: 'error', result: EMPTY_RESULT, creditsUsed: job.creditsUsed });
    }
    return ended.length;
  }

  private async end(job: Job, data: Parameters<MapJobRepository['finish']>[1]): Promise<void> {
    if (!(await this.jobs.finish(job.id, data))) return;
    await this.announce(job, data);
  }

  /** What follows a job's end: its event, the end hook (discovery snapshots), the done broadcast. */
  private async announce(
    job: Job,
    data: { status: 'done' | 'error'; result: object; creditsUsed: number },
  ): Promise<void> {
    try {
      await this.bus.publishEvent(
        job.workspaceId,
        'map.completed',
        {
          jobId: job.id,
          status: data.status,
          totals: (data.result as MapResult).totals,
          creditsUsed: data.creditsUsed,
        },
        { msgId: `${job.id}:map.completed` },
      );
    } catch (err) {
      this.logger.error({ err, jobId: job.id }, 'map event not published');
    }
    if (this.onEnd) {
      try {
        const ended = await this.jobs.findById(job.id);
        if (ended) await this.onEnd(ended);
      } catch (err) {
        this.logger.error({ err, jobId: job.id }, 'map end hook failed');
      }
    }
    this.bus.broadcast(mapDoneSubject(job.id), { jobId: job.id, status: data.status });
  }
}

const isRunning = (job: Job) => job.status === 'queued' || job.status === 'running';
