import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Job } from '@tidemark/db';
import { UnavailableError } from '@tidemark/errors';
import { createLogger } from '@tidemark/telemetry';
import { createTestDatabase, type TestDatabase } from '@tidemark/testkit';
import { ONE_URL_POOL, readJobPage, type JobPageDeps } from '../src/jobs/job-page.js';
import { JobPageWrites } from '../src/jobs/job-page-writes.js';
import type { JobService } from '../src/jobs/job.service.js';
import { HostLimiter } from '../src/ladder/host-limiter.js';
import type { LadderService, PageRef } from '../src/ladder/ladder.service.js';
import { PageRepository, storedBodies } from '../src/repositories/page.repository.js';
import { readResult } from './support/read-result.js';

// A page of a scrape job writes its row and its count once billing has written the page's
// charge. The charge is what makes the row true: one that fails must leave the page open as its
// claim left it, so the fallback through the work stream (which claims open rows only) reads and
// charges it.

describe('a page of a job read now: its row and its charge written side by side', () => {
  let db: TestDatabase;
  let pages: PageRepository;
  const url = 'https://tides.test/table';

  beforeAll(async () => {
    db = await createTestDatabase();
    pages = new PageRepository(db.prisma, db.raw);
    await db.prisma.workspace.create({ data: { id: 'ws_now', name: 'now' } });
  });
  afterAll(() => db.drop());

  const jobWithRow = async (id: string): Promise<Job> => {
    const job = await db.prisma.job.create({
      data: {
        id,
        workspaceId: 'ws_now',
        kind: 'scrape',
        status: 'running',
        progress: { done: 0, total: 1, queued: 1 },
        request: { url },
      },
    });
    await pages.createQueued('ws_now', id, [url], 'running');
    return job;
  };

  /** The ladder as the one-URL path gets it: the page read, its charge still being written. */
  const ladderCharging = (charged: Promise<void>, asked: PageRef[]) =>
    ({
      scrape: async (page: PageRef) => {
        asked.push(page);
        return { ...readResult(page.url, 300), charged };
      },
    }) as unknown as LadderService;

  /**
   * The ladder with billing out of reach: the page read, its charge refused as unavailable, and
   * sent again (`chargeAgain`, recorded) refused as well the first `refusedAgain` times.
   */
  const ladderBillingAway = (refusedAgain: number, asked: PageRef[] = []) => {
    const charged = Promise.reject(new UnavailableError('billing is unavailable'));
    charged.catch(() => undefined);
    const sentAgain: { ref: unknown; credits: number }[] = [];
    const ladder = Object.assign(ladderCharging(charged, asked), {
      chargeAgain: async (ref: unknown, row: { credits: number }) => {
        sentAgain.push({ ref, credits: row.credits });
        if (sentAgain.length <= refusedAgain) throw new UnavailableError('billing is unavailable');
      },
    }) as unknown as LadderService;
    return { ladder, sentAgain };
  };

  const deps = (ladder: LadderService, settled: { count: number }): JobPageDeps => ({
    writes: new JobPageWrites(pages),
    ladder,
    hosts: new HostLimiter(4),
    logger: createLogger('test', 'silent'),
    jobService: {
      pageSettled: async () => {
        settled.count += 1;
      },
    } as unknown as JobService,
  });

  it('writes the row and counts it once the charge is written, the charge left running by the ladder', async () => {
    const job = await jobWithRow('job_now_ok');
    const asked: PageRef[] = [];
    const settled = { count: 0 };
    let chargeDone!: () => void;
    const charged = new Promise<void>((resolve) => (chargeDone = resolve));
    const reading = readJobPage(
      deps(ladderCharging(charged, asked), settled),
      job,
      { position: 0, url },
      async () => true,
      'now',
    );
    // While the charge is out, nothing of the page is written.
    await new Promise((r) => setTimeout(r, 100));
    expect((await pages.findAt(job.id, 0))?.status).toBe('running');
    expect(settled.count).toBe(0);
    chargeDone();
    const read = await reading;
    // Drawn on the workspace's block for one-URL scrapes, not a hold of its own.
    expect(asked[0]).toMatchObject({ chargeBehind: true, jobId: job.id, creditPool: ONE_URL_POOL });
    expect(read?.after).toMatchObject({ status: 'done', progress: { done: 1, total: 1 }, finishedNow: true });
    expect((await pages.findAt(job.id, 0))?.status).toBe('done');
    expect(settled.count).toBe(1);
  });

  it('leaves the row as its claim left it when the charge fails, and fails the page for its fallback', async () => {
    const job = await jobWithRow('job_now_unbilled');
    const settled = { count: 0 };
    const charged = Promise.reject(new Error('billing is out of reach'));
    charged.catch(() => undefined);
    await expect(
      readJobPage(deps(ladderCharging(charged, []), settled), job, { position: 0, url }, async () => true, 'now'),
    ).rejects.toThrow('billing is out of reach');
    const row = await pages.findAt(job.id, 0);
    expect(row).toMatchObject({ status: 'running', verdict: null, credits: 0, bodies: null, crawledAt: null });
    expect(storedBodies(row!)).toEqual({});
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id: job.id } })).progress).toMatchObject({ done: 0 });
    expect(settled.count).toBe(0);
    // Open: the work stream's worker can take it, as it takes any open row.
    expect(
      await pages.claimMany([{ jobId: job.id, position: 0, reclaim: true }]).then(([taken]) => taken === true),
    ).toBe(true);
  });

  it("leaves a worker's row open too when its charge fails for another reason than an outage: the message's redelivery reads it again", async () => {
    const job = await jobWithRow('job_worker');
    const asked: PageRef[] = [];
    const charged = Promise.reject(new Error('billing is out of reach'));
    charged.catch(() => undefined);
    await expect(
      readJobPage(deps(ladderCharging(charged, asked), { count: 0 }), job, { position: 0, url }, async () =>
        pages.claimMany([{ jobId: job.id, position: 0, reclaim: true }]).then(([taken]) => taken === true),
      ),
    ).rejects.toThrow('billing is out of reach');
    expect(asked[0]).toMatchObject({ chargeBehind: true, creditPool: { id: job.id, chargesLinger: true } });
    // The redelivered message claims it, as it claims a row whose worker died mid-page.
    expect(
      await pages.claimMany([{ jobId: job.id, position: 0, reclaim: true }]).then(([taken]) => taken === true),
    ).toBe(true);
    expect((await pages.findAt(job.id, 0))?.verdict).toBeNull();
  });

  it("waits out billing out of reach for a worker's page: its charge sent again, the page not fetched again", async () => {
    const job = await jobWithRow('job_worker_outage');
    const asked: PageRef[] = [];
    const { ladder, sentAgain } = ladderBillingAway(1, asked);
    const settled = { count: 0 };
    const read = await readJobPage(deps(ladder, settled), job, { position: 0, url }, async () =>
      pages.claimMany([{ jobId: job.id, position: 0, reclaim: true }]).then(([taken]) => taken === true),
    );
    expect(asked).toHaveLength(1);
    const ref = { workspaceId: 'ws_now', jobId: job.id, position: 0 };
    expect(sentAgain).toEqual([
      { ref, credits: read!.result.row.credits },
      { ref, credits: read!.result.row.credits },
    ]);
    expect(read!.after).toMatchObject({ status: 'done', progress: { done: 1, total: 1, queued: 0 } });
    expect(await pages.findAt(job.id, 0)).toMatchObject({ status: 'done' });
    expect(settled.count).toBe(1);
  });

  it("waits out a hold refused because billing is out of reach: the worker's page is read once billing answers", async () => {
    const job = await jobWithRow('job_worker_hold_outage');
    const asked: PageRef[] = [];
    const reading = ladderCharging(Promise.resolve(), asked);
    const ladder = {
      scrape: async (page: PageRef) => {
        if (asked.length === 0) {
          asked.push(page);
          throw new UnavailableError('billing is unavailable');
        }
        return (reading as unknown as { scrape: (p: PageRef) => Promise<unknown> }).scrape(page);
      },
    } as unknown as LadderService;
    const settled = { count: 0 };
    const read = await readJobPage(deps(ladder, settled), job, { position: 0, url }, async () =>
      pages.claimMany([{ jobId: job.id, position: 0, reclaim: true }]).then(([taken]) => taken === true),
    );
    expect(asked).toHaveLength(2);
    expect(read!.after).toMatchObject({ status: 'done' });
    expect(settled.count).toBe(1);
  });

  it("does not keep a one-URL scrape's caller waiting out an outage: its page fails for the work stream at once", async () => {
    const job = await jobWithRow('job_now_outage');
    const { ladder, sentAgain } = ladderBillingAway(0);
    await expect(
      readJobPage(deps(ladder, { count: 0 }), job, { position: 0, url }, async () => true, 'now'),
    ).rejects.toThrow('billing is unavailable');
    expect(sentAgain).toEqual([]);
    expect(await pages.findAt(job.id, 0)).toMatchObject({ status: 'running', verdict: null });
  });

  it('lets a worker stop while its page waits out an outage: the page fails at once, its row left open for the redelivery', async () => {
    const job = await jobWithRow('job_worker_stops');
    const { ladder, sentAgain } = ladderBillingAway(Infinity);
    const stopping = new AbortController();
    const reading = readJobPage(
      { ...deps(ladder, { count: 0 }), stopping: stopping.signal },
      job,
      { position: 0, url },
      async () => pages.claimMany([{ jobId: job.id, position: 0, reclaim: true }]).then(([taken]) => taken === true),
    );
    // It waits (0.5 s, sends the charge again, then 1 s, …) until the worker stops.
    while (sentAgain.length === 0) await new Promise((r) => setTimeout(r, 20));
    stopping.abort();
    await expect(reading).rejects.toThrow('billing is unavailable');
    expect(sentAgain).toHaveLength(1);
    expect(await pages.findAt(job.id, 0)).toMatchObject({ status: 'running', verdict: null });
  });
});
