import { scrapeRequestSchema, type ScrapeRequest } from '@tidemark/contracts';
import type { Job } from '@tidemark/db';
import { asApiError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import type { HostLimiter } from '../ladder/host-limiter.js';
import type { CreditPool, LadderService, PageResult } from '../ladder/ladder.service.js';
import { resolveOptions, type LadderOptions } from '../ladder/options.js';
import type { JobAfterPage } from '../repositories/job.repository.js';
import { storing } from '../work/give-up.js';
import type { JobPageWrites } from './job-page-writes.js';
import { outlastingOutages } from './outlasting-outages.js';
import { stripInternal, type JobService } from './job.service.js';

const optionsOfJob = new WeakMap<Job, LadderOptions>();

/**
 * A scrape or playground job's page options, from the request the job keeps: parsed once for a
 * job read once (JobCache), since a batch's stored request holds every one of its URLs. `parsed`:
 * the request already parsed from what the job keeps (a one-URL scrape's, parsed as it came in).
 */
export const jobPageOptions = (job: Job, parsed?: ScrapeRequest): LadderOptions => {
  const known = optionsOfJob.get(job);
  if (known) return known;
  const opts = resolveOptions(parsed ?? scrapeRequestSchema.parse(stripInternal(job.request)));
  // The playground shows the ladder's own way up: its screenshot is the browser's, if it got there.
  if (job.kind === 'playground') opts.screenshotLeads = false;
  optionsOfJob.set(job, opts);
  return opts;
};

/** The block a workspace's one-URL scrapes draw their credits on (one per workspace and replica). */
export const ONE_URL_POOL: CreditPool = { id: 'one-url' };

export interface JobPageDeps {
  writes: JobPageWrites;
  jobService: JobService;
  ladder: LadderService;
  hosts: HostLimiter;
  logger: Logger;
  /** Aborted when the worker stops: a page waiting out an outage then goes back at once. */
  stopping?: AbortSignal;
}

/** Says, once a page, that it waits a service out. */
const paused = (deps: JobPageDeps, job: Job, page: { position: number }) => {
  let said = false;
  return (err: unknown) => {
    if (said) return;
    said = true;
    deps.logger.warn(
      { err: asApiError(err), jobId: job.id, position: page.position },
      'a service is out of reach; the page waits',
    );
  };
};

/**
 * One page of a scrape job, read and settled: what the worker of a queued page and a one-URL
 * scrape run on the replica that took the call both do. Waits for the host's politeness slot,
 * takes the row (`take`: false leaves it, e.g. the job was cancelled meanwhile), runs the ladder,
 * and once the page's charge is written, writes its row and counts it into the job in one
 * statement (the last page ends the job and announces it). Answers the page's result and the job
 * as the page left it, or null when the row was not taken or was settled meanwhile.
 *
 * A charge that fails leaves the row as the claim left it (running, nothing written or counted),
 * so the page is read and charged again as if it had not been: by its message's redelivery (a
 * worker), or by the fallback through the work stream (a one-URL scrape), both of which take open
 * rows; the charge's reference is the page's, so a charge that was written is not written twice.
 * A worker's page first waits out billing out of reach (`outlastingOutages`), its hold tried again
 * or its charge sent again, so a restart of billing does not fetch it again or fail it.
 * `now` (a one-URL scrape, whose caller waits): its settling goes at once and the job's end is
 * announced behind the answer; a worker's page waits a little to share its statement.
 */
export const readJobPage = async (
  deps: JobPageDeps,
  job: Job,
  page: { position: number; url: string },
  take: () => Promise<boolean>,
  mode: 'worker' | 'now' = 'worker',
  /** The job and row being written while the page is fetched and read (a one-URL scrape). */
  written?: Promise<void>,
): Promise<{ result: PageResult; after: JobAfterPage } | null> => {
  const opts = jobPageOptions(job);
  const read = () =>
    deps.hosts.run(new URL(page.url).host, opts.config.fetch.concurrency, async (): Promise<PageResult | null> => {
      if (!(await take())) return null;
      return deps.ladder.scrape(
        {
          workspaceId: job.workspaceId,
          jobId: job.id,
          position: page.position,
          url: page.url,
          // Drawn on a block: a batch's pages on their job's, one-URL scrapes on their workspace's
          // (this replica's): a hold is then one call and statement for many pages, off their path.
          // A batch page's charge, like a crawl page's, waits a little for others to share its call.
          creditPool: mode === 'now' ? ONE_URL_POOL : { id: job.id, chargesLinger: true },
          chargeBehind: true,
          // A batch's page, unlike a one-URL scrape's, has no caller waiting on it alone.
          bulk: mode === 'worker',
          ...(written ? { ready: written } : {}),
        },
        opts,
      );
    });
  // A worker's page waits out billing out of reach (its hold refused for an outage: nothing was
  // fetched; the host's slot is given back meanwhile); a one-URL scrape's caller is not kept
  // waiting, its page goes to the work stream instead (ScrapeNow).
  const onPause = paused(deps, job, page);
  const result = mode === 'worker' ? await outlastingOutages(read, onPause, deps.stopping) : await read();
  if (!result) return null;
  // A page the ladder answered without fetching (robots.txt, a stored copy) did not wait for it.
  if (written) await written;
  if (mode === 'worker') {
    // Its charge, the same way, sent again under the same reference (written once), with the
    // page as fetched and read: not fetched again.
    const ref = { workspaceId: job.workspaceId, jobId: job.id, position: page.position };
    await outlastingOutages(
      (tries) => (tries === 1 ? Promise.resolve(result.charged) : deps.ladder.chargeAgain(ref, result.row)),
      onPause,
      deps.stopping,
    );
  } else await result.charged;
  const settled = await storing(result, () => deps.writes.settle(job.id, page.position, result, mode === 'worker'));
  if (!settled.written) return null;
  if (settled.after.dispatch) await deps.jobService.dispatch(job, settled.after.dispatch);
  await deps.jobService.pageSettled(job, settled.after, mode);
  return { result, after: settled.after };
};
