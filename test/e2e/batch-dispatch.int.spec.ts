import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Bus } from '@tidemark/bus';
import { scrapeRequestSchema } from '@tidemark/contracts';
import { createLogger } from '@tidemark/telemetry';
import { bulkSite, startTestWeb, TEST_INFRA, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { buildScrapeApp } from '../support/scrape-app.js';
import { until } from '../support/until.js';

/**
 * A batch scrape's URLs go on the work stream a window at a time (SCRAPE_BATCH_WINDOW, fewer on
 * few hosts), the next as each page is counted: a batch started after another is not queued
 * behind its every URL, and a batch on one slow host does not hold every worker turn waiting for
 * its host. What a worker that died mid-dispatch left unpublished, a sweep puts on.
 */
const WINDOW = 4;

/** How long and how often the tests read a job while they wait for it. */
const POLL = { timeoutMs: 30_000, everyMs: 100 };

describe('batch scrapes share the work stream', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let workspaceId: string;
  const apps: { stop(): Promise<void> }[] = [];

  beforeAll(async () => {
    web = await startTestWeb();
    // Hosts of these tests alone, whose fetches are counted.
    for (const host of ['win1.test', 'win2.test', 'win3.test', 'lost.test', 'share1.test', 'share2.test'])
      web.addSite(host, bulkSite(host, 20));
    t = await startTestFleet({
      FETCH_HOST_MAP: web.hostMap,
      SCRAPE_BATCH_WINDOW: String(WINDOW),
      SCRAPE_REDISPATCH_QUIET_MS: '1000',
      JOB_WATCHDOG_MS: '300',
    });
    const ws = await t.createWorkspace('batches');
    key = ws.apiKey;
    workspaceId = ws.workspaceId;
    await t.db.prisma.workspace.update({ where: { id: workspaceId }, data: { plan: 'growth' } });
  });
  afterAll(async () => {
    for (const app of apps) await app.stop();
    await t.stop();
    await web.close();
  });

  type JobRead = { status: string; progress: { done: number; total: number }; counts: Record<string, number> };
  const read = async (id: string): Promise<JobRead> => (await t.call('GET', `/scrape/${id}?limit=1`, { key })).body;
  const fetchesOf = (host: string) => web.hits.filter((h) => h.host === host && h.path.startsWith('/p/')).length;

  it('finishes a batch started after one on a slow host while that one is still on its first pages', async () => {
    // One host that answers each page after 3 s, one page at a time: 24 pages take 72 s.
    const slowUrls = Array.from({ length: 24 }, (_, i) => web.url('pages.test', `/slow?fair=${i}`));
    const slow = await t.call('POST', '/scrape', { key, body: { urls: slowUrls, config: { concurrency: 1 } } });
    expect(slow.status).toBe(202);
    const quickUrls = ['b.test', 'c.test'].flatMap((h) => [1, 2, 3].map((i) => web.url(h, `/p/${i}?fair`)));
    const quick = await t.call('POST', '/scrape', { key, body: { urls: quickUrls } });
    expect(quick.status).toBe(202);

    const quickDone = await until(
      'the batch started second to end',
      () => read(quick.body.id),
      (j) => j.status === 'done',
      POLL,
    );
    expect(quickDone).toMatchObject({ progress: { done: 6, total: 6 }, counts: { ok: 6 } });
    try {
      // The slow batch has two URLs on the stream (twice its one page in flight) and is on them.
      const slowNow = await read(slow.body.id);
      expect(['queued', 'running']).toContain(slowNow.status);
      expect(slowNow.progress.done).toBeLessThanOrEqual(2);
      // Window and count read from one snapshot of the row: a page counted between two reads
      // moves both.
      const row = await t.db.prisma.job.findUniqueOrThrow({ where: { id: slow.body.id } });
      expect(row.dispatchWindow).toBe(2);
      expect(row.dispatched - (row.progress as { done: number }).done).toBeLessThanOrEqual(2);
    } finally {
      // Cancelled whatever failed above: an open slow batch would hold the workspace's window
      // the later tests start on.
      expect((await t.call('DELETE', `/scrape/${slow.body.id}`, { key })).status).toBe(200);
    }
  });

  it('puts a batch on a window at a time: never more than the window unsettled, every URL read once', async () => {
    const hosts = ['win1.test', 'win2.test', 'win3.test'];
    const urls = hosts.flatMap((h) => Array.from({ length: 14 }, (_, i) => web.url(h, `/p/${i}`)));
    const res = await t.call('POST', '/scrape', { key, body: { urls } });
    expect(res.status).toBe(202);
    let widest = 0;
    const job = await until(
      'the batch to end',
      async () => {
        const row = await t.db.prisma.job.findUniqueOrThrow({ where: { id: res.body.id } });
        const done = (row.progress as { done: number }).done;
        widest = Math.max(widest, row.dispatched - done);
        return row;
      },
      (j) => j.status === 'done',
      POLL,
    );
    expect(job).toMatchObject({ dispatched: urls.length, dispatchWindow: WINDOW, counts: { ok: urls.length } });
    expect(widest).toBeGreaterThan(0);
    expect(widest).toBeLessThanOrEqual(WINDOW);
    for (const h of hosts) expect(fetchesOf(h)).toBe(14);
  });

  /** A scrape app built, not started: it writes jobs and their first window, and takes nothing. */
  const idleScrapeApp = async (bus?: Bus) => {
    const app = await buildScrapeApp(t, bus);
    apps.push(app);
    return app;
  };
  const batchOf = (host: string, n: number) => {
    const raw = { urls: Array.from({ length: n }, (_, i) => web.url(host, `/p/${i}`)) };
    return { urls: raw.urls, request: scrapeRequestSchema.parse(raw), raw };
  };

  it('publishes again what a worker that died between a count and its publish left off', async () => {
    const app = await idleScrapeApp();
    const b = batchOf('lost.test', 10);
    const { job } = await app.jobs.start(workspaceId, b.urls, b.request, b.raw, null);
    expect(job).toMatchObject({ dispatched: WINDOW, dispatchWindow: WINDOW });
    // As a worker leaves it that died after a count let three URLs on and before it published
    // them: the job says they went on, and no message carries them.
    await t.db.prisma.job.update({ where: { id: job.id }, data: { dispatched: WINDOW + 3 } });

    const ended = await until(
      'the batch to end',
      () => t.db.prisma.job.findUniqueOrThrow({ where: { id: job.id } }),
      (j) => j.status !== 'queued' && j.status !== 'running',
      POLL,
    );
    expect(ended).toMatchObject({ status: 'done', progress: { done: 10, total: 10 }, counts: { ok: 10 } });
    expect(fetchesOf('lost.test')).toBe(10);
  });

  it("starts a workspace's second open batch on its share of the batch window (no workspace window set)", async () => {
    // SCRAPE_WORKSPACE_WINDOW is unset in this fleet: the workspace holds what one batch would
    // (SCRAPE_BATCH_WINDOW, 4), so of two batches open together the second gets half.
    const app = await idleScrapeApp();
    // The first is long enough (20 pages, 4 at a time) not to end before the second starts.
    const one = batchOf('share1.test', 20);
    const two = batchOf('share2.test', 8);
    const first = (await app.jobs.start(workspaceId, one.urls, one.request, one.raw, null)).job;
    const second = (await app.jobs.start(workspaceId, two.urls, two.request, two.raw, null)).job;
    expect(first).toMatchObject({ dispatched: WINDOW, dispatchWindow: WINDOW });
    expect(second).toMatchObject({ dispatched: WINDOW / 2, dispatchWindow: WINDOW });
    for (const [job, n] of [
      [first, 20],
      [second, 8],
    ] as const) {
      const ended = await until(
        'the batch to end',
        () => t.db.prisma.job.findUniqueOrThrow({ where: { id: job.id } }),
        (j) => j.status !== 'queued' && j.status !== 'running',
        POLL,
      );
      expect(ended).toMatchObject({ status: 'done', progress: { done: n, total: n }, counts: { ok: n } });
    }
    expect([fetchesOf('share1.test'), fetchesOf('share2.test')]).toEqual([20, 8]);
  });

  it('ends a batch whose start could not be queued, so that nothing of it is read later', async () => {
    // A bus already closed: the first publish fails, as with the work stream out of reach.
    const closed = await Bus.connect({
      url: TEST_INFRA.natsUrl,
      prefix: t.env.NATS_PREFIX!,
      name: 'closed',
      logger: createLogger('test', 'silent'),
    });
    await closed.close();
    const app = await idleScrapeApp(closed);
    const b = batchOf('a.test', 6);
    await expect(app.jobs.start(workspaceId, b.urls, b.request, b.raw, null)).rejects.toThrow();
    const job = await t.db.prisma.job.findFirstOrThrow({
      where: { workspaceId, request: { path: ['urls'], equals: b.urls } },
    });
    expect(job).toMatchObject({
      status: 'error',
      progress: { done: 6, total: 6, queued: 0 },
      counts: { error: 6 },
      error: { message: expect.stringContaining('could not be queued') },
    });
    const rows = await t.db.prisma.page.findMany({ where: { jobId: job.id } });
    expect(rows.map((r) => r.status)).toEqual(Array(6).fill('error'));
  });
});

/**
 * A workspace's batches share its part of the stream (SCRAPE_WORKSPACE_WINDOW): one that posts
 * many batches holds about that many worker turns, not a window of each, and another workspace's
 * batch posted after them is read meanwhile.
 */
describe("one workspace's batches and another's", () => {
  let web: TestWeb;
  let t: TestFleet;
  let many: string;
  let other: string;

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({
      FETCH_HOST_MAP: web.hostMap,
      // Four worker turns; each batch's window is 2 here (one slow host, one page at a time).
      SCRAPE_CONCURRENCY: '4',
      SCRAPE_BATCH_WINDOW: String(WINDOW),
      SCRAPE_WORKSPACE_WINDOW: '1',
    });
    const keyOf = async (name: string) => {
      const ws = await t.createWorkspace(name);
      await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
      return ws.apiKey;
    };
    many = await keyOf('many-batches');
    other = await keyOf('one-batch');
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
  });

  it("reads another workspace's batch while one workspace's batches wait on a slow host", async () => {
    // Three batches on a host that answers each page after 3 s, one page at a time: with a
    // window of each on the stream (6) they would take every worker turn and the messages
    // ahead of the other workspace's; with one URL each (their share), three turns.
    const slow: string[] = [];
    for (const n of [1, 2, 3]) {
      const urls = Array.from({ length: 8 }, (_, i) => web.url('pages.test', `/slow?share=${n}-${i}`));
      const res = await t.call('POST', '/scrape', { key: many, body: { urls, config: { concurrency: 1 } } });
      expect(res.status).toBe(202);
      slow.push(res.body.id as string);
    }
    const quickUrls = ['b.test', 'c.test'].flatMap((h) => [1, 2, 3].map((i) => web.url(h, `/p/${i}?share`)));
    const quick = await t.call('POST', '/scrape', { key: other, body: { urls: quickUrls } });
    expect(quick.status).toBe(202);

    const quickDone = await until(
      "the other workspace's batch to end",
      async () => (await t.call('GET', `/scrape/${quick.body.id}?limit=1`, { key: other })).body,
      (j: { status: string }) => j.status === 'done',
      POLL,
    );
    expect(quickDone).toMatchObject({ progress: { done: 6, total: 6 }, counts: { ok: 6 } });
    // The slow batches are on their first pages (their host gives one every 3 s), each with at
    // most one URL unsettled on the stream.
    const rows = await t.db.prisma.job.findMany({ where: { id: { in: slow } } });
    const doneOf = (r: { progress: unknown }) => (r.progress as { done: number }).done;
    expect(rows.reduce((sum, r) => sum + doneOf(r), 0)).toBeLessThanOrEqual(1);
    for (const r of rows) {
      expect(r).toMatchObject({ status: expect.stringMatching(/^(queued|running)$/), dispatchWindow: 2 });
      expect(r.dispatched - doneOf(r)).toBeLessThanOrEqual(1);
    }
    for (const id of slow) expect((await t.call('DELETE', `/scrape/${id}`, { key: many })).status).toBe(200);
  });
});
