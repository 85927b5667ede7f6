import type { SecretBox } from '@tidemark/secret-box';
import { stalledReason } from '@tidemark/config';
import { randomBytes } from 'node:crypto';
import type { Bus } from '@tidemark/bus';
import {
  SCRAPE_FORMATS,
  scrapeRequestSchema,
  type JobEnvelope,
  type PageRow,
  type ScrapeFormat,
  type ScrapeRequest,
} from '@tidemark/contracts';
import type { Job } from '@tidemark/db';
import { ConflictError, NotFoundError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import { z } from 'zod';
import type { PageResult } from '../ladder/ladder.service.js';
import { resolveOptions } from '../ladder/options.js';
import { countKeyOf, type JobAfterPage, type JobProgress, type JobRepository } from '../repositories/job.repository.js';
import { storedRow, toRow, type PageRepository } from '../repositories/page.repository.js';

export type JobKind = 'scrape' | 'playground';
export const jobKind = (kind: string | undefined): JobKind => (kind === 'playground' ? 'playground' : 'scrape');

/** Core-NATS broadcast when a job ends, so a ScrapeNow waiting anywhere answers at once. */
export const jobDoneSubject = (jobId: string) => `scrape.job.${jobId}.done`;
export const jobDoneMessage = z.object({ jobId: z.string(), status: z.string() });

/** The positions of a batch's URLs, host by host. */
const positionsByHost = (urls: string[]): Map<string, number[]> => {
  const byHost = new Map<string, number[]>();
  urls.forEach((u, i) => {
    const host = new URL(u).host;
    const positions = byHost.get(host);
    if (positions) positions.push(i);
    else byHost.set(host, [i]);
  });
  return byHost;
};

/** Interleaves URLs host by host, so one big host does not hold the stream ahead of the others. */
export const fanOutOrder = (urls: string[]): number[] => {
  const queues = [...positionsByHost(urls).values()];
  const order: number[] = [];
  for (let round = 0; order.length < urls.length; round++) {
    for (const q of queues) if (round < q.length) order.push(q[round]!);
  }
  return order;
};

/**
 * How many URLs of a batch wait unsettled on the work stream at once: twice what its hosts take
 * in flight (each host's politeness limit `perHost`), so a page that finishes finds the next one
 * waiting, and never more than `most`. A batch on one slow host holds a few worker turns this
 * way, not every one of them waiting for its host, and a batch started after it is not queued
 * behind its every URL.
 */
export const dispatchWindowOf = (urls: string[], perHost: number, most: number): number => {
  let window = 0;
  for (const positions of positionsByHost(urls).values()) window += Math.min(positions.length, 2 * perHost);
  return Math.max(1, Math.min(window, most));
};

/** What a batch's dispatch is bounded by (SCRAPE_BATCH_WINDOW, SCRAPE_HOST_CONCURRENCY). */
export interface BatchDispatch {
  window: number;
  hostConcurrency: number;
}

/** A job's URLs as its request keeps them (`urls`, or one `url`), in row order. */
const urlsOfRequest = (request: unknown): string[] => {
  const { urls, url } = request as { urls?: string[]; url?: string };
  return urls ?? (url ? [url] : []);
};

/** A job's URLs and their fan-out order (`fanOutOrder`), worked out once for a job read once. */
const fanOutOfJob = new WeakMap<Job, { urls: string[]; order: number[] }>();
const fanOutOf = (job: Job): { urls: string[]; order: number[] } => {
  const known = fanOutOfJob.get(job);
  if (known) return known;
  const urls = urlsOfRequest(job.request);
  const fanOut = { urls, order: fanOutOrder(urls) };
  fanOutOfJob.set(job, fanOut);
  return fanOut;
};

const sameUrls = (a: string[], b: string[]): boolean => a.length === b.length && a.every((u, i) => u === b[i]);

/** How many jobs' formats JobService keeps: a few KB, the jobs being polled at once. */
const FORMATS_REMEMBERED = 1024;

export class JobService {
  constructor(
    private readonly jobs: JobRepository,
    private readonly pages: PageRepository,
    private readonly bus: Bus,
    private readonly logger: Logger,
    /** Seals the job's webhook secret at rest (delivery opens it). */
    private readonly box: SecretBox,
    private readonly batches: BatchDispatch,
  ) {}

  /** The formats of jobs whose rows were read lately, oldest first. */
  private readonly formatsByJob = new Map<string, ScrapeFormat[]>();

  /**
   * Creates a job with a queued row per URL and puts the first of its URLs on the work stream, in
   * host-interleaved order, as many as its window (`dispatchWindowOf`) or its share of its
   * workspace's (`JobRepository.create`), whichever is less; each page counted lets the next on
   * (`dispatch`). `raw` is the request as the caller sent it: it is what the job keeps,
   * and what every worker parses again with the same schema (the parsed form does not parse
   * twice).
   */
  async start(
    workspaceId: string,
    urls: string[],
    request: ScrapeRequest,
    raw: Record<string, unknown>,
    requestId: string | null,
    kind: JobKind = 'scrape',
  ): Promise<{ job: Job; secret: string | null }> {
    const secret = request.webhook_url ? `whsec_${randomBytes(24).toString('base64')}` : null;
    const perHost = Math.min(resolveOptions(request).config.fetch.concurrency, this.batches.hostConcurrency);
    // A worker finds the URLs it lets on in the job's request: a caller whose rows are not the
    // request's URLs, in order, gets every URL on at once, as before windows.
    const windowed = sameUrls(urlsOfRequest(raw), urls);
    const job = await this.jobs.create({
      workspaceId,
      kind,
      total: urls.length,
      request: { ...raw, batch: request.urls !== undefined },
      requestId,
      secret: secret ? this.box.seal(secret) : null,
      dispatchWindow: windowed ? dispatchWindowOf(urls, perHost, this.batches.window) : 0,
    });
    await this.pages.createQueued(workspaceId, job.id, urls);
    const order = fanOutOrder(urls);
    try {
      await this.publishPages(job, urls, windowed ? order.slice(0, job.dispatched) : order);
    } catch (err) {
      // The call fails and its caller has no job to follow: the job ends now, so that nothing of
      // it is read later (the dispatch sweep would put the rest on) beside the batch sent again.
      await this.failUnqueued(job).catch((failErr: unknown) =>
        this.logger.error({ err: failErr, jobId: job.id }, 'a batch that could not be queued was not ended'),
      );
      throw err;
    }
    return { job, secret };
  }

  /**
   * Ends a batch whose start could not be queued as an error with the reason; its rows not yet
   * taken too. A page a worker took meanwhile (its message went on before the failure) is read,
   * charged and counted as any page.
   */
  private async failUnqueued(job: Job): Promise<void> {
    const reason = 'the batch could not be queued (the work stream was out of reach); nothing more of it is read';
    await this.jobs.endWithError(job.id, reason);
    const rows = await this.pages.failOpen(job.id, reason, ['queued']);
    await this.jobs.recordFailedRows(job.id, rows);
  }

  /**
   * Puts the URLs a count let on (positions [from, to) of the job's fan-out order) on the work
   * stream. A publish that fails is logged, not thrown: the page that counted is settled, and
   * the dispatch sweep (`redispatchQuiet`) puts what was not published on.
   */
  async dispatch(job: Job, range: { from: number; to: number }): Promise<void> {
    const { urls, order } = fanOutOf(job);
    try {
      await this.publishPages(job, urls, order.slice(range.from, range.to));
    } catch (err) {
      this.logger.warn({ err, jobId: job.id, range }, "a batch's next URLs were not published; the sweep will");
    }
  }

  /**
   * The dispatch sweep's step: a windowed batch that has not moved for `quietMs` gets its URLs
   * that went on and are still queued published again, under the same message ids. What a
   * worker that died between a page's count and its publish left unpublished goes on this way;
   * a message that was only slow is dropped as a duplicate within the stream's two minutes, and
   * past them is a second message whose claim finds the row taken. Answers how many it put on.
   */
  async redispatchQuiet(quietMs: number): Promise<number> {
    let published = 0;
    for (const job of await this.jobs.quietWindowed(quietMs, 50)) {
      const queued = new Set(await this.pages.queuedPositions(job.id));
      const { urls, order } = fanOutOf(job);
      const lost = order.slice(0, job.dispatched).filter((position) => queued.has(position));
      if (!lost.length) continue;
      this.logger.warn({ jobId: job.id, urls: lost.length }, 'a quiet batch gets its queued URLs published again');
      await this.publishPages(job, urls, lost);
      published += lost.length;
    }
    return published;
  }

  /** Publishes pages of a job (`urls` by position), 64 at a time (each publish waits for its ack). */
  private async publishPages(job: Job, urls: string[], positions: number[]): Promise<void> {
    for (let i = 0; i < positions.length; i += 64) {
      await Promise.all(
        positions
          .slice(i, i + 64)
          .map((position) =>
            this.bus.publishWork(
              'work.scrape.page',
              { jobId: job.id, workspaceId: job.workspaceId, position, url: urls[position]! },
              { msgId: `${job.id}:${position}` },
            ),
          ),
      );
    }
  }

  /**
   * A one-URL job whose page this replica reads at once (`ScrapeNow`): the job is running and its
   * row taken from the start, and nothing goes on the work stream. Answers the job as it is being
   * written and the write, which the page's first hold overlaps (the ladder awaits it before it
   * fetches: `PageRef.ready`). Nothing reads either before the call that creates them answers.
   */
  startTaken(
    workspaceId: string,
    url: string,
    request: ScrapeRequest,
    raw: Record<string, unknown>,
    requestId: string | null,
    kind: JobKind,
  ): { job: Job; written: Promise<void> } {
    const job = this.jobs.draftTaken({
      workspaceId,
      kind,
      request: { ...raw, batch: false },
      requestId,
      // Sealed as start() seals a batch's (a one-URL scrape's answer does not show it).
      secret: request.webhook_url ? this.box.seal(`whsec_${randomBytes(24).toString('base64')}`) : null,
    });
    // The job and its row go in together (two connections, one round trip's wait).
    const written = Promise.all([
      this.jobs.create({
        id: job.id,
        createdAt: job.createdAt,
        workspaceId,
        kind,
        total: 1,
        request: job.request as object,
        requestId,
        secret: job.secret,
        taken: true,
      }),
      this.pages.createQueued(workspaceId, job.id, [url], 'running'),
    ]).then(() => undefined);
    return { job, written };
  }

  /**
   * Waits up to `ms` for a job to end: the done broadcast answers at once; a read of the job
   * right after subscribing (and every second) covers a job that ended before we listened.
   */
  async waitForEnd(workspaceId: string, jobId: string, ms: number, kind: JobKind = 'scrape'): Promise<Job> {
    const until = Date.now() + ms;
    for (;;) {
      const left = until - Date.now();
      const done = this.bus.waitForBroadcast(jobDoneSubject(jobId), jobDoneMessage, Math.max(1, Math.min(1000, left)));
      const job = await this.get(workspaceId, jobId, kind);
      if (!['queued', 'running'].includes(job.status) || left <= 0) return job;
      if (await done) return this.get(workspaceId, jobId, kind);
    }
  }

  async get(workspaceId: string, jobId: string, kind: JobKind = 'scrape'): Promise<Job> {
    const job = await this.jobs.find(workspaceId, jobId, kind);
    if (!job) throw new NotFoundError(`${kind} job`);
    return job;
  }

  async screenshot(workspaceId: string, jobId: string, position: number, kind: JobKind): Promise<Uint8Array> {
    await this.get(workspaceId, jobId, kind);
    const jpeg = await this.pages.screenshot(jobId, position);
    if (!jpeg) throw new NotFoundError('screenshot');
    return jpeg;
  }

  /**
   * The job with its rows from position `after`: up to `limit`, and no more than an answer of
   * ANSWER_ROWS_BYTES carries (at least one row), the cursor going on from the first row left out.
   * Rows are read a few at a time, so a page of very large rows is never all in memory at once.
   */
  async envelope(job: Job, after = 0, limit = 100): Promise<JobEnvelope> {
    if (limit <= 0) return envelopeOf(job, [], (await this.pages.hasRowsFrom(job.id, after)) ? String(after) : null);
    const formats = this.formatsOf(job);
    const shown: PageRow[] = [];
    const budget = new AnswerBudget();
    let next = after;
    let more = false;
    reading: while (shown.length < limit) {
      const take = Math.min(ROWS_READ_AT_ONCE, limit - shown.length);
      // The read that can fill the answer takes one row more: whether there are more says so.
      const last = take === limit - shown.length;
      const pages = await this.pages.list(job.id, next, last ? take + 1 : take);
      for (const page of pages) {
        if (shown.length === limit) {
          more = true;
          break reading;
        }
        const row = toRow(page, formats);
        if (!budget.fits(row)) {
          more = true;
          break reading;
        }
        shown.push(row);
        next = page.position + 1;
      }
      if (pages.length < take) break;
    }
    return envelopeOf(job, shown, more ? String(next) : null);
  }

  /**
   * The envelope of a one-page job whose page this replica just read and stored: the job as its
   * page left it and the row as stored, without reading either back.
   */
  envelopeRead(job: Job, after: JobAfterPage, result: PageResult): JobEnvelope {
    const counted: Job = {
      ...job,
      status: after.status,
      progress: after.progress,
      creditsUsed: after.creditsUsed,
      counts: after.counts,
      stop: after.stop,
      error: after.error as Job['error'],
    };
    return envelopeOf(counted, [storedRow(result, this.formatsOf(job))], null);
  }

  /** The bodies a job's rows show: a playground job shows every body it kept and the evidence. */
  private formatsOf(job: Job): ScrapeFormat[] | 'all' {
    if (job.kind === 'playground') return 'all';
    // A job's request never changes, and a 500-URL batch's parse validates every URL (~0.5 ms):
    // a client polling it would pay that on every poll.
    const known = this.formatsByJob.get(job.id);
    if (known) return known;
    const formats = resolveOptions(scrapeRequestSchema.parse(stripInternal(job.request))).formats;
    this.formatsByJob.set(job.id, formats);
    if (this.formatsByJob.size > FORMATS_REMEMBERED) this.formatsByJob.delete(this.formatsByJob.keys().next().value!);
    return formats;
  }

  /**
   * Rows of any job of the workspace by position, in the order asked, with the bodies asked for
   * ("all": every one kept): no more than an answer of ANSWER_ROWS_BYTES carries (at least one
   * row). `positionsRead` says how many of the positions were read; a position with no row is
   * left out of `rows`.
   */
  async rowsAt(
    workspaceId: string,
    jobId: string,
    positions: number[],
    formats: string[],
  ): Promise<{ rows: { position: number; row: PageRow }[]; positionsRead: number }> {
    const want = formats.includes('all') ? 'all' : (formats.filter((f) => isFormat(f)) as ScrapeFormat[]);
    const rows: { position: number; row: PageRow }[] = [];
    const budget = new AnswerBudget();
    for (let from = 0; from < positions.length; from += ROWS_READ_AT_ONCE) {
      const chunk = positions.slice(from, from + ROWS_READ_AT_ONCE);
      const found = new Map((await this.pages.atPositions(workspaceId, jobId, chunk)).map((p) => [p.position, p]));
      for (const [i, position] of chunk.entries()) {
        const page = found.get(position);
        if (!page) continue;
        const row = toRow(page, want);
        if (!budget.fits(row)) return { rows, positionsRead: from + i };
        rows.push({ position, row });
      }
    }
    return { rows, positionsRead: positions.length };
  }

  async list(workspaceId: string, before: string | undefined, limit: number): Promise<Job[]> {
    return this.jobs.list(workspaceId, before, limit);
  }

  /** Cancels a job: rows not yet taken are not fetched; pages in flight finish. */
  async cancel(workspaceId: string, jobId: string): Promise<Job> {
    const job = await this.get(workspaceId, jobId);
    if (!(await this.jobs.cancel(workspaceId, jobId))) {
      if (job.status === 'cancelled') return job;
      throw new ConflictError(`the job has already ended (${job.status})`);
    }
    await this.jobs.markCancelledRows(jobId, await this.pages.cancelQueued(jobId));
    this.bus.broadcast(jobDoneSubject(jobId), { jobId, status: 'cancelled' });
    return this.get(workspaceId, jobId);
  }

  /**
   * Counts a page settled outside the page path (a row given up after its last delivery) into
   * its job; the last one ends the job and announces it.
   */
  async settled(job: Job, result: PageResult): Promise<JobAfterPage> {
    const count = { jobId: job.id, credits: result.row.credits, key: countKeyOf(result.row) };
    const after = (await this.jobs.recordPages([count])).get(job.id);
    if (!after) throw new Error(`job ${job.id} is gone: its page was not counted`);
    if (after.dispatch) await this.dispatch(job, after.dispatch);
    await this.pageSettled(job, after, 'worker');
    return after;
  }

  /**
   * What follows a page counted into its job: when it was the job's last, the job's end is
   * announced (its events and the done broadcast). `now`: a one-URL scrape, whose caller has its
   * answer and does not wait for the announcement (its events are the webhook's, not the
   * caller's); a worker awaits it.
   */
  async pageSettled(job: Job, after: JobAfterPage, mode: 'worker' | 'now'): Promise<void> {
    if (!after.finishedNow) return;
    const announcing = this.announceEnd(job, after, (after.counts.error ?? 0) === after.progress.total);
    if (mode === 'worker') await announcing;
    else announcing.catch((err: unknown) => this.logger.error({ err, jobId: job.id }, 'job end not announced'));
  }

  /**
   * The watchdog's step (every scrape worker runs it): jobs that have not moved for `stallMs`
   * end as errors with the reason, their open rows settled as errors, and are announced like any
   * job that ends. Answers how many this worker ended.
   */
  async failStalled(stallMs: number): Promise<number> {
    const reason = stalledReason(stallMs);
    const ended = await this.jobs.failStalled(stallMs, reason);
    for (const job of ended) {
      const rows = await this.pages.failOpen(job.id, `${reason} before this page was read`);
      const after = await this.jobs.recordFailedRows(job.id, rows);
      this.logger.warn({ jobId: job.id, rows }, 'stalled job failed');
      await this.announceEnd(job, after, true);
    }
    return ended.length;
  }

  /** A job ended: its events (batch.finished, scrape.completed or .failed) and the done broadcast. */
  private async announceEnd(job: Job, after: JobProgress, failed: boolean): Promise<void> {
    const request = job.request as { webhook_url?: string; batch?: boolean };
    const event = {
      jobId: job.id,
      status: after.status,
      progress: after.progress,
      creditsUsed: after.creditsUsed,
      counts: after.counts,
      webhookUrl: request.webhook_url ?? null,
    };
    try {
      if (request.batch)
        await this.bus.publishEvent(job.workspaceId, 'batch.finished', event, { msgId: `${job.id}:batch.finished` });
      const kind = failed ? 'scrape.failed' : 'scrape.completed';
      await this.bus.publishEvent(job.workspaceId, kind, event, { msgId: `${job.id}:${kind}` });
    } catch (err) {
      this.logger.error({ err, jobId: job.id }, 'job events not published');
    }
    this.bus.broadcast(jobDoneSubject(job.id), { jobId: job.id, status: after.status });
  }
}

/**
 * What the rows of one answer may weigh: half the 64 MB a caller's client takes (the gateway's
 * scrape client, the crawl's), the rest for the envelope and the encodings on the way. A batch of
 * very large pages with their raw html would otherwise pass it within a few rows.
 */
const ANSWER_ROWS_BYTES = 32 * 1024 * 1024;
/** Rows read from the database at once while an answer is filled (their bodies compressed). */
const ROWS_READ_AT_ONCE = 25;

/** A row's weight in an answer: its bodies and screenshot, and ~1 KB for the rest. */
const rowBytes = (row: PageRow): number => {
  let n = 1024;
  for (const body of [row.markdown, row.text, row.cleanHtml, row.html, row.screenshot])
    if (body) n += Buffer.byteLength(body);
  for (const link of row.links ?? []) n += Buffer.byteLength(link) + 4;
  return n;
};

/** The rows of one answer, counted in while they fit ANSWER_ROWS_BYTES (the first always does). */
class AnswerBudget {
  private bytes = 0;
  private rows = 0;

  fits(row: PageRow): boolean {
    const weight = rowBytes(row);
    if (this.rows > 0 && this.bytes + weight > ANSWER_ROWS_BYTES) return false;
    this.rows += 1;
    this.bytes += weight;
    return true;
  }
}

/** A job's envelope with the rows shown (`cursor`: where the next page of rows starts, if any). */
const envelopeOf = (job: Job, data: PageRow[], cursor: string | null): JobEnvelope => ({
  id: job.id,
  kind: job.kind,
  status: job.status as JobEnvelope['status'],
  progress: job.progress as JobEnvelope['progress'],
  creditsUsed: job.creditsUsed,
  counts: job.counts as Record<string, number>,
  data,
  next: null,
  cursor,
  stop: job.stop,
  request_id: job.requestId,
  error: job.error === null ? null : String((job.error as { message?: string }).message ?? job.error),
  createdAt: job.createdAt.toISOString(),
});

const isFormat = (f: string): f is ScrapeFormat => (SCRAPE_FORMATS as readonly string[]).includes(f);

/** The job's stored request carries bookkeeping of ours beside the user's request. */
export const stripInternal = (request: unknown): unknown => {
  const { batch: _batch, ...rest } = request as Record<string, unknown>;
  return rest;
};
