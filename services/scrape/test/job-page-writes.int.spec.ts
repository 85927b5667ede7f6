import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@tidemark/testkit';
import { JobPageWrites } from '../src/jobs/job-page-writes.js';
import { JobRepository } from '../src/repositories/job.repository.js';
import { PageRepository, storedBodies } from '../src/repositories/page.repository.js';
import { readResult } from './support/read-result.js';

// A batch's pages take, write and count their rows through shared statements: what settles
// together goes in one round trip, and a page's row and its count are one statement. Each must
// still do per row what one-row statements did: a cancelled row or job stays as it is, a job
// ends once, its counts add up, a page written is counted and a page not written is not.

describe("a scrape job's rows taken, written and counted several at a time", () => {
  let db: TestDatabase;
  let jobs: JobRepository;
  let pages: PageRepository;
  const urlsOf = (n: number) => Array.from({ length: n }, (_, i) => `https://tides.test/harbour/${i}`);

  beforeAll(async () => {
    db = await createTestDatabase();
    jobs = new JobRepository(db.prisma, db.raw);
    pages = new PageRepository(db.prisma, db.raw);
    await db.prisma.workspace.create({ data: { id: 'ws_writes', name: 'writes' } });
  });
  afterAll(() => db.drop());

  const batch = async (id: string, n: number, status = 'running') => {
    await db.prisma.job.create({
      data: {
        id,
        workspaceId: 'ws_writes',
        kind: 'scrape',
        status,
        progress: { done: 0, total: n, queued: n },
        request: { urls: urlsOf(n), batch: true },
      },
    });
    await pages.createQueued('ws_writes', id, urlsOf(n));
  };
  const statusOf = async (jobId: string, position: number) =>
    (await db.prisma.page.findFirstOrThrow({ where: { jobId, position } })).status;

  it('takes open rows of jobs not cancelled, answering per row in order', async () => {
    await batch('job_w_claim', 4);
    await batch('job_w_claim_cancelled', 1, 'cancelled');
    await db.prisma.page.updateMany({ where: { jobId: 'job_w_claim', position: 1 }, data: { status: 'done' } });
    await db.prisma.page.updateMany({ where: { jobId: 'job_w_claim', position: 2 }, data: { status: 'running' } });
    // A first delivery takes a queued row only: a row running is another message's.
    expect(await pages.claimMany([{ jobId: 'job_w_claim', position: 2, reclaim: false }])).toEqual([false]);
    const taken = await pages.claimMany([
      { jobId: 'job_w_claim', position: 3, reclaim: true },
      { jobId: 'job_w_claim', position: 1, reclaim: true },
      { jobId: 'job_w_claim_cancelled', position: 0, reclaim: true },
      { jobId: 'job_w_claim', position: 2, reclaim: true },
      { jobId: 'job_w_claim', position: 0, reclaim: false },
    ]);
    // A settled row and a cancelled job's row are left; a row a dead worker left running is taken
    // by its message's redelivery.
    expect(taken).toEqual([true, false, false, true, true]);
    expect(await statusOf('job_w_claim', 1)).toBe('done');
    expect(await statusOf('job_w_claim_cancelled', 0)).toBe('queued');
    expect(await statusOf('job_w_claim', 3)).toBe('running');
  });

  it('writes and counts several pages of several jobs in one statement, and leaves a cancelled row', async () => {
    await batch('job_w_settle_a', 3);
    await batch('job_w_settle_b', 2);
    for (const [jobId, n] of [
      ['job_w_settle_a', 3],
      ['job_w_settle_b', 2],
    ] as const)
      await pages.claimMany(Array.from({ length: n }, (_, position) => ({ jobId, position, reclaim: true })));
    await db.prisma.page.updateMany({ where: { jobId: 'job_w_settle_a', position: 1 }, data: { status: 'cancelled' } });
    const urls = urlsOf(3);
    const failed = readResult(urls[0]!, 0);
    failed.row = { ...failed.row, status: 'error', verdict: 'blocked', credits: 0 };
    const settled = await pages.settleMany([
      { jobId: 'job_w_settle_a', position: 2, result: readResult(urls[2]!, 12) },
      { jobId: 'job_w_settle_b', position: 0, result: readResult(urls[0]!, 3) },
      { jobId: 'job_w_settle_a', position: 0, result: readResult(urls[0]!, 10) },
      { jobId: 'job_w_settle_a', position: 1, result: readResult(urls[1]!, 11) },
      { jobId: 'job_w_settle_b', position: 1, result: failed },
    ]);
    expect(settled.written).toEqual([true, true, true, false, true]);
    const rows = await db.prisma.page.findMany({ where: { jobId: 'job_w_settle_a' }, orderBy: { position: 'asc' } });
    expect(rows.map((r) => [r.status, r.verdict, r.httpStatus, r.credits])).toEqual([
      ['done', 'ok', 200, 1],
      ['cancelled', null, null, 0],
      ['done', 'ok', 200, 1],
    ]);
    expect(storedBodies(rows[0]!).markdown).toBe(`# ${urls[0]}\n\n${'tide '.repeat(10)}`);
    expect(storedBodies(rows[2]!).markdown).toBe(`# ${urls[2]}\n\n${'tide '.repeat(12)}`);
    expect((rows[2]!.data as { words: number }).words).toBe(12);
    expect(rows[0]!.crawledAt).toBeInstanceOf(Date);
    // Only the rows written are counted: job a's cancelled page is not (the cancel counts it).
    expect(settled.jobs.get('job_w_settle_a')).toMatchObject({
      status: 'running',
      progress: { done: 2, total: 3, queued: 1 },
      creditsUsed: 2,
      counts: { ok: 2 },
      finishedNow: false,
    });
    expect(settled.jobs.get('job_w_settle_b')).toMatchObject({
      status: 'done',
      stop: 'completed',
      progress: { done: 2, total: 2, queued: 0 },
      creditsUsed: 1,
      counts: { ok: 1, error: 1 },
      finishedNow: true,
    });
    // Settled again (a redelivery): nothing is written and nothing counted twice.
    const again = await pages.settleMany([{ jobId: 'job_w_settle_b', position: 0, result: readResult(urls[0]!, 3) }]);
    expect(again.written).toEqual([false]);
    expect(again.jobs.size).toBe(0);
    expect((await jobs.findById('job_w_settle_b'))?.progress).toEqual({ done: 2, total: 2, queued: 0 });
  });

  it("counts pages of several jobs in one statement: sums, counts by verdict, and each job's end once", async () => {
    await batch('job_w_count_a', 3);
    await batch('job_w_count_b', 2);
    const after = await jobs.recordPages([
      { jobId: 'job_w_count_a', credits: 1, key: 'ok' },
      { jobId: 'job_w_count_b', credits: 5, key: 'ok' },
      { jobId: 'job_w_count_a', credits: 0, key: 'error' },
      { jobId: 'job_w_count_a', credits: 2, key: 'ok' },
    ]);
    expect(after.get('job_w_count_a')).toMatchObject({
      status: 'done',
      stop: 'completed',
      progress: { done: 3, total: 3, queued: 0 },
      creditsUsed: 3,
      counts: { ok: 2, error: 1 },
      finishedNow: true,
    });
    expect(after.get('job_w_count_b')).toMatchObject({
      status: 'running',
      progress: { done: 1, total: 2, queued: 1 },
      creditsUsed: 5,
      counts: { ok: 1 },
      finishedNow: false,
    });
    // A later count adds to what is there and ends job b; job a, ended already, is not ended again.
    const later = await jobs.recordPages([
      { jobId: 'job_w_count_b', credits: 1, key: 'blocked' },
      { jobId: 'job_w_count_a', credits: 0, key: 'ok' },
    ]);
    expect(later.get('job_w_count_b')).toMatchObject({
      status: 'done',
      counts: { ok: 1, blocked: 1 },
      finishedNow: true,
    });
    expect(later.get('job_w_count_a')).toMatchObject({
      status: 'done',
      counts: { ok: 3, error: 1 },
      finishedNow: false,
    });
  });

  it('sends the pages that come together in one statement: a batch page waits for company, a one-URL page goes at once', async () => {
    await batch('job_w_shared', 6);
    const statements: number[] = [];
    const counted = new (class extends PageRepository {
      override settleMany(items: Parameters<PageRepository['settleMany']>[0]) {
        statements.push(items.length);
        return super.settleMany(items);
      }
    })(db.prisma, db.raw);
    const writes = new JobPageWrites(counted);
    const urls = urlsOf(6);
    await pages.claimMany(urls.map((_, position) => ({ jobId: 'job_w_shared', position, reclaim: true })));
    const settle = (position: number, behind: boolean) =>
      writes.settle('job_w_shared', position, readResult(urls[position]!, 5), behind);

    const first = await Promise.all([0, 1, 2].map((p) => settle(p, true)));
    expect(statements).toEqual([3]);
    expect(first.map((s) => s.written)).toEqual([true, true, true]);
    // Not behind: each goes at once while fewer than two statements are out; the third waits
    // for one of them (it would go with any others that came meanwhile).
    const second = await Promise.all([3, 4, 5].map((p) => settle(p, false)));
    expect(statements).toEqual([3, 1, 1, 1]);
    // The job's end is one page's: whichever statement counted last (two were out at once).
    expect(second.filter((s) => s.written && s.after.finishedNow)).toHaveLength(1);
    expect(await db.prisma.page.count({ where: { jobId: 'job_w_shared', status: 'done' } })).toBe(6);
  });

  it('ends a job once when several of its pages settle in one statement, by the last of them', async () => {
    await batch('job_w_last', 3);
    await pages.claimMany([0, 1, 2].map((position) => ({ jobId: 'job_w_last', position, reclaim: true })));
    const writes = new JobPageWrites(pages);
    const urls = urlsOf(3);
    const settled = await Promise.all(
      [0, 1, 2].map((p) => writes.settle('job_w_last', p, readResult(urls[p]!, 5), true)),
    );
    expect(settled.map((s) => s.written && s.after.finishedNow)).toEqual([false, false, true]);
    expect(settled.map((s) => s.written && s.after.status)).toEqual(['done', 'done', 'done']);
  });

  it('fails only the page PostgreSQL refuses, not the pages that shared its statement', async () => {
    // A refusal as real as the one a value PostgreSQL cannot hold meets: a CHECK on one URL.
    await db.prisma.$executeRawUnsafe(
      `ALTER TABLE page ADD CONSTRAINT harbour_poison_refused CHECK (url NOT LIKE '%/poison' OR status <> 'done')`,
    );
    const urls = ['https://tides.test/a', 'https://tides.test/poison', 'https://tides.test/b'];
    await db.prisma.job.create({
      data: {
        id: 'job_w_poison',
        workspaceId: 'ws_writes',
        kind: 'scrape',
        status: 'running',
        progress: { done: 0, total: 3, queued: 3 },
        request: { urls },
      },
    });
    await pages.createQueued('ws_writes', 'job_w_poison', urls, 'running');
    const writes = new JobPageWrites(pages);
    const outcomes = await Promise.allSettled(
      urls.map((url, position) => writes.settle('job_w_poison', position, readResult(url, 5), true)),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(Error);
    const rows = await db.prisma.page.findMany({ where: { jobId: 'job_w_poison' }, orderBy: { position: 'asc' } });
    expect(rows.map((r) => r.status)).toEqual(['done', 'running', 'done']);
    // The refused page is not counted: its row and its count stand or fall together.
    expect((await jobs.findById('job_w_poison'))?.progress).toEqual({ done: 2, total: 3, queued: 1 });
  });
});
