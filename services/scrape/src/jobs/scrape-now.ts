import type { Bus } from '@tidemark/bus';
import type { JobEnvelope, ScrapeRequest } from '@tidemark/contracts';
import type { Job } from '@tidemark/db';
import type { Logger } from '@tidemark/telemetry';
import { jobPageOptions, readJobPage, type JobPageDeps } from './job-page.js';
import { jobKind, type JobKind, type JobService } from './job.service.js';

/**
 * `ScrapeNow`, one URL answered within the caller's wait: a call that wants its answer now, so
 * the replica that took it reads the page itself (the job and its row written as taken, no hop
 * through the work stream and back), up to `slots` pages at once. With every slot busy the page
 * is queued like a batch's and the call waits for whichever worker reads it.
 *
 * What the work stream gave is kept: a page whose reading fails here (billing out of reach, its
 * row not written) goes to the stream with its retries and give-up; a replica that dies mid-page
 * leaves a running job the stalled-job watchdog ends with a reason (docs/decisions.md).
 */
export class ScrapeNow {
  private inFlight = 0;

  constructor(
    private readonly deps: JobPageDeps & { bus: Bus; logger: Logger },
    private readonly slots: number,
  ) {}

  async run(
    workspaceId: string,
    url: string,
    request: ScrapeRequest,
    raw: Record<string, unknown>,
    requestId: string | null,
    kind: JobKind,
    waitMs: number,
  ): Promise<JobEnvelope> {
    const jobs = this.deps.jobService;
    if (this.inFlight >= this.slots) {
      const { job } = await jobs.start(workspaceId, [url], request, raw, requestId, kind);
      return jobs.envelope(await jobs.waitForEnd(workspaceId, job.id, waitMs, kind));
    }
    const until = Date.now() + waitMs;
    this.inFlight++;
    let started: ReturnType<JobService['startTaken']>;
    try {
      started = jobs.startTaken(workspaceId, url, request, raw, requestId, kind);
    } catch (err) {
      this.inFlight--;
      throw err;
    }
    const { job, written } = started;
    // The job keeps the request as it came (`raw`), which the call has parsed already.
    jobPageOptions(job, request);
    const reading = this.read(job, url, written).finally(() => this.inFlight--);
    let timer: NodeJS.Timeout | undefined;
    let outcome: Awaited<typeof reading> | 'waiting';
    try {
      outcome = await Promise.race([
        reading,
        new Promise<'waiting'>((resolve) => (timer = setTimeout(() => resolve('waiting'), waitMs))),
      ]);
    } finally {
      // Also when the reading fails (its job could not be written): no timer outlives the call.
      clearTimeout(timer);
    }
    // Read here: the answer is what was just stored. Queued: a worker reads it, and the call
    // waits out its time. Still reading when the caller's time is up: the job as it stands.
    if (outcome === 'queued')
      return jobs.envelope(await jobs.waitForEnd(workspaceId, job.id, Math.max(0, until - Date.now()), kind));
    if (outcome === 'waiting') {
      // The caller's time can be up before its job is written (a playground read answers at once).
      await written;
      return jobs.envelope(await jobs.get(workspaceId, job.id, kind));
    }
    return outcome;
  }

  /**
   * Reads the page here (its envelope); on a failure, hands it to the work stream ('queued').
   * A job that could not be written fails the call: nothing stands for the stream to read.
   */
  private async read(job: Job, url: string, written: Promise<void>): Promise<JobEnvelope | 'queued'> {
    const writeFailure = written.then(
      () => null,
      (err: unknown) => err,
    );
    try {
      const read = await readJobPage(this.deps, job, { position: 0, url }, async () => true, 'now', written);
      const jobs = this.deps.jobService;
      // Not settled by this read (cancelled meanwhile): the job as it stands.
      return read
        ? jobs.envelopeRead(job, read.after, read.result)
        : jobs.envelope(await jobs.get(job.workspaceId, job.id, jobKind(job.kind)));
    } catch (err) {
      const notWritten = await writeFailure;
      if (notWritten) throw notWritten;
      this.deps.logger.warn({ err, jobId: job.id }, 'a one-URL scrape failed here; its page goes to the work stream');
      try {
        await this.deps.bus.publishWork(
          'work.scrape.page',
          { jobId: job.id, workspaceId: job.workspaceId, position: 0, url },
          { msgId: `${job.id}:0` },
        );
      } catch (publishErr) {
        // Nothing else will read it: the stalled-job watchdog ends the job with its reason.
        this.deps.logger.error({ err: publishErr, jobId: job.id }, 'a one-URL scrape could not be queued either');
      }
      return 'queued';
    }
  }
}
