import { scrapeRequestSchema } from '@tidemark/contracts';
import type { Job } from '@tidemark/db';
import type { HostLimiter } from '../ladder/host-limiter.js';
import type { LadderService, PageResult } from '../ladder/ladder.service.js';
import { resolveOptions, type LadderOptions } from '../ladder/options.js';
import type { JobAfterPage } from '../repositories/job.repository.js';
import type { PageRepository } from '../repositories/page.repository.js';
import { storing } from '../work/give-up.js';
import { stripInternal, type JobService } from './job.service.js';

/** A scrape or playground job's page options, from the request the job keeps. */
export const jobPageOptions = (job: Job): LadderOptions => {
  const opts = resolveOptions(scrapeRequestSchema.parse(stripInternal(job.request)));
  // The playground shows the ladder's own way up: its screenshot is the browser's, if it got there.
  if (job.kind === 'playground') opts.screenshotLeads = false;
  return opts;
};

export interface JobPageDeps {
  pages: PageRepository;
  jobService: JobService;
  ladder: LadderService;
  hosts: HostLimiter;
}

/**
 * One page of a scrape job, read and settled: what the worker of a queued page and a one-URL
 * scrape run on the replica that took the call both do. Waits for the host's politeness slot,
 * takes the row (`take`: false leaves it, e.g. the job was cancelled meanwhile), runs the ladder,
 * writes the row and counts it into the job (the last page ends the job and announces it).
 * Answers the page's result and the job as the page left it, or null when the row was not taken
 * or was settled meanwhile. `announce` as JobService.settled takes it.
 */
export const readJobPage = async (
  deps: JobPageDeps,
  job: Job,
  page: { position: number; url: string },
  take: () => Promise<boolean>,
  announce: 'wait' | 'behind' = 'wait',
): Promise<{ result: PageResult; after: JobAfterPage } | null> => {
  const opts = jobPageOptions(job);
  const result = await deps.hosts.run(
    new URL(page.url).host,
    opts.config.fetch.concurrency,
    async (): Promise<PageResult | null> => {
      if (!(await take())) return null;
      return deps.ladder.scrape(
        { workspaceId: job.workspaceId, jobId: job.id, position: page.position, url: page.url },
        opts,
      );
    },
  );
  if (!result || !(await storing(result, () => deps.pages.complete(job.id, page.position, result)))) return null;
  return { result, after: await deps.jobService.settled(job, result, announce) };
};
