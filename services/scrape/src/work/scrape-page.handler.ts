import type { GiveUpHandler, WorkHandler } from '@tidemark/bus';
import { scrapeRequestSchema } from '@tidemark/contracts';
import type { HostLimiter } from '../ladder/host-limiter.js';
import type { LadderService, PageResult } from '../ladder/ladder.service.js';
import { resolveOptions } from '../ladder/options.js';
import { stripInternal, type JobService } from '../jobs/job.service.js';
import type { JobRepository } from '../repositories/job.repository.js';
import type { PageRepository } from '../repositories/page.repository.js';
import { gaveUpResult, storing } from './give-up.js';

/**
 * NATS in: `work.scrape.page`. Waits for the host's politeness slot, then takes the row —
 * skipping it when the job was cancelled meanwhile or the row is already settled, so a
 * redelivery does nothing twice — runs the ladder, writes the row and counts it into the job.
 */
export const scrapePageHandler =
  (deps: {
    jobs: JobRepository;
    pages: PageRepository;
    jobService: JobService;
    ladder: LadderService;
    hosts: HostLimiter;
  }): WorkHandler<'work.scrape.page'> =>
  async (msg) => {
    const job = await deps.jobs.findById(msg.jobId);
    if (!job || job.status === 'cancelled') return;
    const opts = resolveOptions(scrapeRequestSchema.parse(stripInternal(job.request)));
    // The playground shows the ladder's own way up: its screenshot is the browser's, if it got there.
    if (job.kind === 'playground') opts.screenshotLeads = false;
    const result = await deps.hosts.run(
      new URL(msg.url).host,
      opts.config.fetch.concurrency,
      async (): Promise<PageResult | null> => {
        // Taken only now (the claim checks the job too): a cancel that came while we queued for
        // the host still stops this page.
        if (!(await deps.pages.claim(msg.jobId, msg.position))) return null;
        return deps.ladder.scrape(
          { workspaceId: msg.workspaceId, jobId: msg.jobId, position: msg.position, url: msg.url },
          opts,
        );
      },
    );
    if (result && (await storing(result, () => deps.pages.complete(msg.jobId, msg.position, result))))
      await deps.jobService.settled(job, result);
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
