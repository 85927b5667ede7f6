import { describe, expect, it } from '@jest/globals';
import type { Bus } from '@tidemark/bus';
import { scrapeRequestSchema } from '@tidemark/contracts';
import type { Job } from '@tidemark/db';
import { createLogger } from '@tidemark/telemetry';
import type { JobPageDeps } from '../src/jobs/job-page.js';
import type { JobService } from '../src/jobs/job.service.js';
import { ScrapeNow } from '../src/jobs/scrape-now.js';
import type { JobPageWrites } from '../src/jobs/job-page-writes.js';
import { HostLimiter } from '../src/ladder/host-limiter.js';
import type { LadderService, PageRef } from '../src/ladder/ladder.service.js';

// A one-URL scrape whose job cannot be written fails its call. Its wait for the caller's time
// must end with it: a timer left running would hold the process for the whole timeout.
describe('ScrapeNow: a call whose job cannot be written', () => {
  const url = 'https://tides.test/table';
  const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

  it('fails with the write’s error and leaves no timer behind', async () => {
    const failure = new Error('the job could not be written');
    const job = { id: 'job_unwritten', workspaceId: 'ws', kind: 'scrape', request: { url } } as unknown as Job;
    const jobService = {
      startTaken: () => {
        const written = Promise.reject(failure);
        written.catch(() => undefined);
        return { job, written };
      },
    } as unknown as JobService;
    // The ladder as it behaves: it waits for what must stand before it fetches.
    const ladder = { scrape: async (page: PageRef) => page.ready } as unknown as LadderService;
    const now = new ScrapeNow(
      {
        jobService,
        ladder,
        writes: {} as JobPageWrites,
        hosts: new HostLimiter(4),
        bus: {} as Bus,
        logger: createLogger('test', 'silent'),
      } satisfies JobPageDeps & { bus: Bus; logger: ReturnType<typeof createLogger> },
      4,
    );
    const before = timeouts();
    const request = scrapeRequestSchema.parse({ url });
    await expect(now.run('ws', url, request, { url }, null, 'scrape', 60_000)).rejects.toBe(failure);
    expect(timeouts()).toBe(before);
  });
});
