import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { crawlRequestSchema } from '@tidemark/contracts';
import { createPrismaClient, createRawDb, newId, type PrismaClient, type RawDb } from '@tidemark/db';
import { createTestDatabase, type TestDatabase } from '@tidemark/testkit';
import { resolveCrawl } from '../src/crawl/crawl-options.js';
import { CrawlJobRepository, type LeaseSlotState } from '../src/repositories/crawl-job.repository.js';

/**
 * The reads behind "one lease of a workspace waits in the work queue at a time" (CrawlLeases) on
 * a real PostgreSQL: a workspace's running crawls' lease slots, its oldest deferred slot, and the
 * workspace's try-only lock.
 */
describe('a workspace lease queue, as the crawl service reads it', () => {
  let db: TestDatabase;
  let prisma: PrismaClient;
  let raw: RawDb;
  let jobs: CrawlJobRepository;
  const workspaceId = newId('ws');
  const otherWorkspace = newId('ws');

  beforeAll(async () => {
    db = await createTestDatabase();
    prisma = createPrismaClient(db.url, 2);
    raw = createRawDb(db.url, 3);
    for (const id of [workspaceId, otherWorkspace]) await prisma.workspace.create({ data: { id, name: id } });
    jobs = new CrawlJobRepository(prisma, raw);
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await raw?.end();
    await db?.drop();
  });

  /** A crawl made as the crawl service makes one, then given a status and lease slots as stored. */
  const crawl = async (ws: string, status: string, leases: unknown) => {
    const request = crawlRequestSchema.parse({ url: 'http://site.test/' });
    const { job } = await jobs.create({
      workspaceId: ws,
      seed: 'http://site.test/',
      config: resolveCrawl(request).config,
      request,
      requestId: null,
      secret: null,
    });
    await raw.$executeRaw`
      UPDATE job SET status = ${status}, result = jsonb_set(result, '{leases}', ${JSON.stringify(leases)}::jsonb)
       WHERE id = ${job.id}`;
    return job;
  };
  const slot = (over: Partial<LeaseSlotState>): LeaseSlotState => ({
    generation: 0,
    delivery: 0,
    pulledAt: 1,
    ...over,
  });

  it("reads the running crawls' slots of the workspace (not another workspace's, not ended ones, not holes)", async () => {
    const held = await crawl(workspaceId, 'running', [slot({ delivery: 3 }), null, slot({ deferredAt: 2_000 })]);
    const queued = await crawl(workspaceId, 'running', [slot({})]);
    await crawl(workspaceId, 'done', [slot({})]);
    await crawl(workspaceId, 'running', { not: 'an array' });
    await crawl(otherWorkspace, 'running', [slot({})]);

    const read = await raw.transaction((tx) => jobs.workspaceLeases(tx, workspaceId, 'none'));
    expect(read.sort((a, b) => a.jobId.localeCompare(b.jobId) || a.slot - b.slot)).toEqual(
      [
        { jobId: held.id, slot: 0, delivery: 3, deferredAt: null },
        { jobId: held.id, slot: 2, delivery: 0, deferredAt: 2_000 },
        { jobId: queued.id, slot: 0, delivery: 0, deferredAt: null },
      ].sort((a, b) => a.jobId.localeCompare(b.jobId) || a.slot - b.slot),
    );
    // The asking crawl's own slots are left out (the step has them in its view).
    const without = await raw.transaction((tx) => jobs.workspaceLeases(tx, workspaceId, queued.id));
    expect(without.map((s) => s.jobId)).toEqual([held.id, held.id]);
  });

  it("finds the workspace's oldest deferred slot among its running crawls", async () => {
    const ws = newId('ws');
    await prisma.workspace.create({ data: { id: ws, name: ws } });
    expect(await jobs.oldestDeferred(ws)).toBeNull();
    await crawl(ws, 'running', [slot({ delivery: 1 }), slot({ deferredAt: 5_000 })]);
    const older = await crawl(ws, 'running', [slot({ deferredAt: 4_000 })]);
    await crawl(ws, 'cancelled', [slot({ deferredAt: 1_000 })]);
    expect(await jobs.oldestDeferred(ws)).toEqual({ id: older.id, runId: older.runId });
  });

  it("tells whether another crawl of the workspace ended within a time (the watchdog's spared deferral)", async () => {
    const ws = newId('ws');
    await prisma.workspace.create({ data: { id: ws, name: ws } });
    const asking = await crawl(ws, 'running', [slot({ deferredAt: 1_000 })]);
    const endedIn = (ms: number) => raw.transaction((tx) => jobs.endedSince(tx, ws, asking.id, ms));
    await crawl(ws, 'running', [slot({})]);
    await crawl(otherWorkspace, 'error', [slot({})]);
    expect(await endedIn(60_000)).toBe(false);
    const ended = await crawl(ws, 'error', [slot({})]);
    expect(await endedIn(60_000)).toBe(true);
    await raw.$executeRaw`UPDATE job SET updated_at = updated_at - interval '2 minutes' WHERE id = ${ended.id}`;
    expect(await endedIn(60_000)).toBe(false);
    // The asking crawl's own end is not another's.
    await raw.$executeRaw`UPDATE job SET status = 'error' WHERE id = ${asking.id}`;
    expect(await endedIn(60_000)).toBe(false);
  });

  it('lets one transaction at a time hold a workspace queue lock, without waiting for it', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let first!: boolean;
    let taken!: () => void;
    const tookIt = new Promise<void>((r) => (taken = r));
    const holder = raw.transaction(async (tx) => {
      first = await jobs.tryLockLeaseQueue(tx, workspaceId);
      taken();
      await held;
    });
    await tookIt;
    expect(first).toBe(true);
    // Another transaction is refused at once, for that workspace only.
    expect(await raw.transaction((tx) => jobs.tryLockLeaseQueue(tx, workspaceId))).toBe(false);
    expect(await raw.transaction((tx) => jobs.tryLockLeaseQueue(tx, otherWorkspace))).toBe(true);
    release();
    await holder;
    // Its commit let it go.
    expect(await raw.transaction((tx) => jobs.tryLockLeaseQueue(tx, workspaceId))).toBe(true);
  });
});
