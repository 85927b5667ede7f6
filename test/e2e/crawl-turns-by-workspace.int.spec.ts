import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { benchSite, startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { until as pollUntil } from '../support/until.js';

/**
 * Which lease makes way at a turn's end: one of the workspace that holds most of the worker's
 * slots, not another workspace's one crawl because it was held longest.
 */
describe("a worker's turns go first to the workspace that holds most of its slots", () => {
  let web: TestWeb;
  let t: TestFleet;

  beforeAll(async () => {
    web = await startTestWeb();
    // Real-sized news pages, slow enough that the long crawls run for many turns.
    const site = benchSite(2000);
    const page = site['*'] as Extract<(typeof site)[string], (req: IncomingMessage) => unknown>;
    const slow = { ...site, '*': (req: IncomingMessage) => ({ ...page(req), delayMs: 60 }) };
    for (const host of ['b-long.test', 'a-long-1.test', 'a-long-2.test']) web.addSite(host, slow);
    web.addSite('a-short.test', site);
    t = await startTestFleet({
      FETCH_HOST_MAP: web.hostMap,
      // Three leases at a time on the fleet's one scrape worker: the three long crawls fill it.
      SCRAPE_LEASES: '3',
      SCRAPE_LEASE_TURN_MS: '1500',
    });
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    await web?.close();
  });

  const jobOf = (id: string) => t.db.prisma.job.findUniqueOrThrow({ where: { id } });
  const until = <T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 90_000) =>
    pollUntil(what, read, ok, { timeoutMs, everyMs: 50, shown: 300 });
  const ended = (j: { status: string }) => !['queued', 'running'].includes(j.status);
  const done = (j: { progress: unknown }) => (j.progress as { done?: number } | null)?.done ?? 0;
  const generation = (j: { result: unknown }) =>
    (j.result as { leases?: { generation: number }[] } | null)?.leases?.[0]?.generation ?? 0;

  it("rotates the crowding workspace's crawls and leaves the other workspace's crawl its slot", async () => {
    const a = await t.createWorkspace('crowding');
    const b = await t.createWorkspace('alone');
    await t.db.prisma.workspace.updateMany({
      where: { id: { in: [a.workspaceId, b.workspaceId] } },
      data: { plan: 'growth' },
    });
    const crawl = async (key: string, host: string, limit: number) => {
      const res = await t.call('POST', '/crawl', {
        key,
        body: { url: web.url(host, '/'), limit, concurrency: 2, useSitemap: false },
      });
      expect(res.status).toBe(202);
      return res.body.id as string;
    };

    // B's crawl takes a slot first, so it is the lease held longest at every turn's end.
    const alone = await crawl(b.apiKey, 'b-long.test', 300);
    await until(
      'B crawl under way',
      () => jobOf(alone),
      (j) => done(j) >= 5,
    );
    const crowding = [await crawl(a.apiKey, 'a-long-1.test', 300), await crawl(a.apiKey, 'a-long-2.test', 300)];
    for (const id of crowding)
      await until(
        'A crawl under way',
        () => jobOf(id),
        (j) => done(j) >= 5,
      );
    // Every lease past its turn before anything waits, so all three could make way.
    await new Promise((r) => setTimeout(r, 1_700));
    const next = await crawl(a.apiKey, 'a-short.test', 12);

    const nextJob = await until("A's next crawl ends", () => jobOf(next), ended);
    expect(nextJob).toMatchObject({ status: 'done', progress: { done: 12, total: 12, queued: 0 } });
    const aloneThen = await jobOf(alone);
    expect(aloneThen.status).toBe('running');
    // B kept its slot: one of A's two crawls made way for A's third.
    expect(generation(aloneThen)).toBe(0);
    const crowdingThen = await Promise.all(crowding.map(jobOf));
    expect(Math.max(...crowdingThen.map(generation))).toBeGreaterThanOrEqual(1);

    // Every crawl still ends whole: one row and one fetch a page.
    for (const [id, host] of [
      [alone, 'b-long.test'],
      [crowding[0]!, 'a-long-1.test'],
      [crowding[1]!, 'a-long-2.test'],
    ] as const) {
      const job = await until('a long crawl ends', () => jobOf(id), ended);
      expect(job).toMatchObject({ status: 'done', progress: { done: 300, total: 300, queued: 0 }, creditsUsed: 300 });
      const rows = await t.db.prisma.page.findMany({ where: { runId: job.runId! }, select: { url: true } });
      expect(new Set(rows.map((r) => r.url)).size).toBe(300);
      expect(rows).toHaveLength(300);
      const fetched = web.hits.filter((h) => h.host === host && h.path !== '/robots.txt').map((h) => h.path);
      expect(fetched).toHaveLength(300);
    }
  }, 180_000);
});
