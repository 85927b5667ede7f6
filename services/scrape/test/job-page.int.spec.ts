import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Job } from '@tidemark/db';
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

  const deps = (ladder: LadderService, settled: { count: number }): JobPageDeps => ({
    writes: new JobPageWrites(pages),
    ladder,
    hosts: new HostLimiter(4),
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
    expect(await pages.claimMany([{ jobId: job.id, position: 0 }]).then(([taken]) => taken === true)).toBe(true);
  });

  it("leaves a worker's row open too when its charge fails: the message's redelivery reads it again", async () => {
    const job = await jobWithRow('job_worker');
    const asked: PageRef[] = [];
    const charged = Promise.reject(new Error('billing is out of reach'));
    charged.catch(() => undefined);
    await expect(
      readJobPage(deps(ladderCharging(charged, asked), { count: 0 }), job, { position: 0, url }, async () =>
        pages.claimMany([{ jobId: job.id, position: 0 }]).then(([taken]) => taken === true),
      ),
    ).rejects.toThrow('billing is out of reach');
    expect(asked[0]).toMatchObject({ chargeBehind: true, creditPool: { id: job.id, chargesLinger: true } });
    // The redelivered message claims it, as it claims a row whose worker died mid-page.
    expect(await pages.claimMany([{ jobId: job.id, position: 0 }]).then(([taken]) => taken === true)).toBe(true);
    expect((await pages.findAt(job.id, 0))?.verdict).toBeNull();
  });
});
