import type { GiveUpHandler, WorkHandler } from '@tidemark/bus';
import type { JobCache } from '../jobs/job-cache.js';
import type { JobService } from '../jobs/job.service.js';
import { readJobPage, type JobPageDeps } from '../jobs/job-page.js';
import type { JobRepository } from '../repositories/job.repository.js';
import type { PageRepository } from '../repositories/page.repository.js';
import { gaveUpResult } from './give-up.js';

/**
 * NATS in: `work.scrape.page`. Reads one page of a job (`readJobPage`): the row is taken only
 * once the host's politeness slot is free — skipped when the job was cancelled meanwhile or the
 * row is already settled, so a redelivery does nothing twice. The job is read once per replica
 * (`JobCache`), not once a page.
 */
export const scrapePageHandler =
  (deps: JobPageDeps & { jobCache: JobCache }): WorkHandler<'work.scrape.page'> =>
  async (msg, ctx) => {
    const job = await deps.jobCache.get(msg.jobId);
    if (!job || job.status === 'cancelled') return;
    // The claim checks the job too: a cancel that came while we queued for the host still stops
    // this page, whatever the cached job says. A row left running is taken again by a redelivery
    // (its worker died), or by a one-URL scrape's page sent here (its row was running from the
    // start; such a job has no window); a windowed batch's first delivery takes a queued row only.
    const reclaim = ctx.deliveryCount > 1 || job.dispatchWindow === 0;
    const read = await readJobPage(deps, job, msg, () => deps.writes.claim(msg.jobId, msg.position, reclaim));
    if (read?.after.finishedNow) deps.jobCache.forget(job.id);
  };

/**
 * `work.scrape.page` given up after its last redelivery (or at once, for a failure that cannot
 * pass): the row gets status error and the reason, and is counted into its job like any other,
 * so the job ends.
 */
export const scrapePageGiveUp =
  (deps: { jobs: JobRepository; pages: PageRepository; jobService: JobService }): GiveUpHandler<'work.scrape.page'> =>
  async (msg, ctx) => {
    const job = await deps.jobs.findById(msg.jobId);
    if (!job) return;
    const result = gaveUpResult(msg.url, ctx);
    if (await deps.pages.giveUp(msg.jobId, msg.position, result)) await deps.jobService.settled(job, result);
  };
