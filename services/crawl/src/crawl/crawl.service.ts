import type { SecretBox } from '@tidemark/secret-box';
import { randomBytes } from 'node:crypto';
import type { Bus } from '@tidemark/bus';
import {
  crawlRequestSchema,
  type CrawlEnvelope,
  type CrawlKeep,
  type CrawlPageRow,
  type PageRow,
} from '@tidemark/contracts';
import { NotFoundError, ValidationError } from '@tidemark/errors';
import { graphRow, lostRow } from '../frontier/graph-row.js';
import { lookupKeys } from '../frontier/normalize-url.js';
import type { CrawlJob, CrawlJobRepository, CrawlState } from '../repositories/crawl-job.repository.js';
import type { FrontierRepository, PageCursor } from '../repositories/frontier.repository.js';
import type { CrawlEngine } from './crawl-engine.js';
import { resolveCrawl } from './crawl-options.js';

/**
 * Rows read by position: those found, and how many of the positions were read (fewer than asked
 * when their bodies passed what one answer carries; the rest are to be asked for again).
 */
export interface RowsRead {
  rows: Map<number, PageRow>;
  positionsRead: number;
}

/** Page rows live with the scrape service, which wrote them. */
export interface RowsPort {
  rowsAt(workspaceId: string, jobId: string, positions: number[], formats: string[]): Promise<RowsRead>;
}

const encodeCursor = (c: PageCursor) => Buffer.from(`${new Date(c.at).getTime()}.${c.position}`).toString('base64url');
const decodeCursor = (raw: string): PageCursor => {
  const m = /^(\d{1,15})\.(\d{1,9})$/.exec(Buffer.from(raw, 'base64url').toString());
  if (!m) throw new ValidationError('query.cursor: not a cursor this API gave out');
  return { at: new Date(Number(m[1])), position: Number(m[2]) };
};

/** The crawl's answers to the gateway: start, read, one page, cancel, keep. */
export class CrawlService {
  constructor(
    private readonly jobs: CrawlJobRepository,
    private readonly frontier: FrontierRepository,
    private readonly engine: CrawlEngine,
    private readonly rows: RowsPort,
    private readonly bus: Bus,
    /** Seals the job's webhook secret at rest (delivery opens it). */
    private readonly box: SecretBox,
  ) {}

  async start(
    workspaceId: string,
    raw: Record<string, unknown>,
    requestId: string | null,
  ): Promise<{ envelope: CrawlEnvelope; secret: string | null }> {
    const parsed = crawlRequestSchema.safeParse(raw);
    if (!parsed.success)
      throw new ValidationError('crawl request does not match its schema', { issues: parsed.error.issues });
    const { config } = resolveCrawl(parsed.data);
    const secret = parsed.data.webhook ? `whsec_${randomBytes(24).toString('base64')}` : null;
    const { job } = await this.jobs.create({
      workspaceId,
      seed: parsed.data.url,
      config,
      // Kept parsed: defaults (webhook events, metadata) filled in once, as the caller saw them.
      request: parsed.data,
      requestId,
      secret: secret ? this.box.seal(secret) : null,
    });
    await this.bus.publishWork(
      'work.crawl.start',
      { jobId: job.id, workspaceId, runId: job.runId },
      { msgId: `${job.id}:start` },
    );
    return { envelope: await this.envelope(job, null, 0, []), secret };
  }

  async get(workspaceId: string, jobId: string): Promise<CrawlJob> {
    const job = await this.jobs.find(workspaceId, jobId);
    if (!job) throw new NotFoundError('crawl');
    return job;
  }

  /** The envelope with the pages settled after `cursor`, oldest first. */
  async envelope(
    job: CrawlJob,
    cursor: string | null,
    limit: number,
    formats: string[] | null,
  ): Promise<CrawlEnvelope> {
    const after = cursor ? decodeCursor(cursor) : null;
    const settled = limit > 0 ? await this.frontier.settledPage(job.runId, after, limit + 1) : [];
    let more = settled.length > limit;
    let shown = more ? settled.slice(0, limit) : settled;
    const request = crawlRequestSchema.parse(job.request);
    const wanted = formats ?? resolveCrawl(request).config.output.formats;
    const { rows, positionsRead } = shown.length
      ? await this.rows.rowsAt(
          job.workspaceId,
          job.id,
          shown.map((r) => r.position),
          wanted,
        )
      : { rows: new Map<number, PageRow>(), positionsRead: 0 };
    // Rows too heavy for one answer: the page ends where the reading stopped, the cursor after it.
    if (positionsRead < shown.length) {
      shown = shown.slice(0, positionsRead);
      more = true;
    }
    const state = job.result as unknown as CrawlState;
    const data = shown.map((f) => graphRow(rows.get(f.position) ?? lostRow(f), f, state.sitemapUrls ?? 0));
    const running = job.status === 'queued' || job.status === 'running';
    // While the crawl runs, the cursor after the last row shown is where the next pages will be.
    const last = shown.at(-1);
    const nextCursor =
      more || (running && limit > 0)
        ? last
          ? encodeCursor({ at: last.doneAt!, position: last.position })
          : cursor
        : null;
    const project = await this.jobs.projectOfRun(job.runId);
    return {
      id: job.id,
      kind: 'crawl',
      status: job.status as CrawlEnvelope['status'],
      progress: job.progress as CrawlEnvelope['progress'],
      creditsUsed: job.creditsUsed,
      counts: job.counts as Record<string, number>,
      data,
      next: null,
      cursor: nextCursor ?? null,
      stop: job.stop,
      request_id: job.requestId,
      error: job.error === null ? null : String((job.error as { message?: string }).message ?? job.error),
      createdAt: job.createdAt.toISOString(),
      projectId: project?.id ?? '',
      runId: job.runId,
    };
  }

  /** One page in full; the URL matches under either scheme, with or without a trailing slash. */
  async page(workspaceId: string, jobId: string, url: string): Promise<CrawlPageRow> {
    const job = await this.get(workspaceId, jobId);
    const keys = lookupKeys(url);
    if (!keys.length) throw new ValidationError('query.url: must be an http or https URL');
    const found = await this.frontier.findByKeys(job.runId, keys);
    if (!found || found.state !== 'done') throw new NotFoundError('page of this crawl');
    const { rows } = await this.rows.rowsAt(workspaceId, job.id, [found.position], ['all']);
    return graphRow(
      rows.get(found.position) ?? lostRow(found),
      found,
      (job.result as unknown as CrawlState).sitemapUrls ?? 0,
    );
  }

  async cancel(workspaceId: string, jobId: string): Promise<CrawlJob> {
    const job = await this.get(workspaceId, jobId);
    await this.engine.cancel(job);
    return this.get(workspaceId, jobId);
  }

  /**
   * The crawl's hidden project becomes a standing one; its run stays in place and becomes the
   * project's first change record (every page added, coverage stated), the baseline the next
   * run is compared with. A crawl kept while it runs is handed to diff when it ends.
   */
  async keep(workspaceId: string, jobId: string, keep: CrawlKeep) {
    const job = await this.get(workspaceId, jobId);
    const project = await this.jobs.projectOfRun(job.runId);
    if (!project) throw new NotFoundError('crawl');
    const kept = await this.jobs.keep(workspaceId, project.id, {
      ...(keep.name ? { name: keep.name } : {}),
      ...(keep.schedule ? { schedule: keep.schedule } : {}),
      ...(keep.retention ? { retention: keep.retention } : {}),
    });
    const now = await this.get(workspaceId, jobId);
    if (!['queued', 'running'].includes(now.status)) await this.engine.handToDiff(now);
    return kept;
  }
}
