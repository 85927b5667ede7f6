import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@tidemark/testkit';
import { JobRepository } from '../src/repositories/job.repository.js';

// A workspace's open batches share its part of the work stream (SCRAPE_WORKSPACE_WINDOW): each
// lets on at most its own window or its share, never less than one URL, and a share that grows
// as the workspace's other batches end is taken at the next count.

const WORKSPACE_WINDOW = 4;

describe("a workspace's batches share its window", () => {
  let db: TestDatabase;
  let jobs: JobRepository;

  beforeAll(async () => {
    db = await createTestDatabase();
    jobs = new JobRepository(db.prisma, db.raw, WORKSPACE_WINDOW);
    for (const id of ['ws_share_a', 'ws_share_b', 'ws_share_c'])
      await db.prisma.workspace.create({ data: { id, name: id } });
  });
  afterAll(() => db.drop());

  const batch = (workspaceId: string, total: number, dispatchWindow: number) =>
    jobs.create({ workspaceId, kind: 'scrape', total, request: {}, requestId: null, secret: null, dispatchWindow });
  const countOne = async (jobId: string) => (await jobs.recordPages([{ jobId, credits: 1, key: 'ok' }])).get(jobId)!;

  it('starts each batch on its share, lets on by shares as pages count, and grows a share as batches end', async () => {
    const first = await batch('ws_share_a', 10, 4);
    const second = await batch('ws_share_a', 10, 4);
    const third = await batch('ws_share_a', 10, 4);
    // 4 over one open batch, then over two, then over three (at least one each).
    expect([first.dispatched, second.dispatched, third.dispatched]).toEqual([4, 2, 1]);
    // Another workspace's batch is not counted against this one's.
    expect((await batch('ws_share_b', 10, 4)).dispatched).toBe(4);
    // A batch's own window still bounds it when its workspace has room.
    expect((await batch('ws_share_b', 10, 2)).dispatched).toBe(2);

    // The first is over its share now (4 unsettled, a share of 1): a page counted lets none on.
    expect(await countOne(first.id)).toMatchObject({ progress: { done: 1 }, dispatch: null });
    // The third is at its share: each page counted lets the next on.
    expect(await countOne(third.id)).toMatchObject({ progress: { done: 1 }, dispatch: { from: 1, to: 2 } });

    // The other two end: the first's share is the workspace's whole window again, taken at its
    // next count (done 2, so URLs up to 2 + 4).
    await db.prisma.job.updateMany({ where: { id: { in: [second.id, third.id] } }, data: { status: 'cancelled' } });
    expect(await countOne(first.id)).toMatchObject({ progress: { done: 2 }, dispatch: { from: 4, to: 6 } });
    const row = await db.prisma.job.findUniqueOrThrow({ where: { id: first.id } });
    expect(row.dispatched).toBe(6);
  });

  it('keeps one URL on for every batch of a workspace with more batches than its window', async () => {
    const many = [];
    for (let i = 0; i < WORKSPACE_WINDOW + 2; i++) many.push(await batch('ws_share_b', 3, 2));
    // ws_share_b has two batches open from the test above: every new one gets one URL, none 0.
    for (const job of many) expect(job.dispatched).toBe(1);
    // A count lets the next URL on (one unsettled again), so no batch waits for another to end.
    expect(await countOne(many[0]!.id)).toMatchObject({ dispatch: { from: 1, to: 2 } });
  });

  it("takes no share for a workspace's one-URL jobs", async () => {
    // One-URL scrapes queued on a busy replica: jobs of one URL, a window of 1 each. They hold at
    // most their one message: a batch started beside them keeps the workspace's whole window.
    const single = (workspaceId: string) => batch(workspaceId, 1, 1);
    for (let i = 0; i < 2 * WORKSPACE_WINDOW; i++) expect((await single('ws_share_c')).dispatched).toBe(1);
    const big = await batch('ws_share_c', 20, 8);
    expect(big.dispatched).toBe(WORKSPACE_WINDOW);
    // A second batch of more than one URL is counted: the two now share the window.
    expect((await batch('ws_share_c', 20, 8)).dispatched).toBe(WORKSPACE_WINDOW / 2);
  });
});
