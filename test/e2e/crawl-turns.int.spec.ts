import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { benchSite, startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { until as pollUntil } from '../support/until.js';

/**
 * Crawls take turns at a worker's lease slots (SCRAPE_LEASE_TURN_MS): a worker that holds as many
 * leases as it may does not keep another workspace's crawl waiting until its crawls end.
 */
describe('crawl leases take turns when crawls wait for a worker', () => {
  let web: TestWeb;
  let t: TestFleet;

  beforeAll(async () => {
    web = await startTestWeb();
    // Real-sized news pages (15-40 KB, 16-29 in-site links), slow enough that the long crawl runs
    // for many turns.
    const site = benchSite(2000);
    const page = site['*'] as Extract<(typeof site)[string], (req: IncomingMessage) => unknown>;
    web.addSite('long.test', {
      ...site,
      '*': (req: IncomingMessage) => ({ ...page(req), delayMs: 60 }),
    });
    web.addSite('short.test', site);
    t = await startTestFleet({
      FETCH_HOST_MAP: web.hostMap,
      // One lease at a time on the fleet's one scrape worker: the long crawl fills it.
      SCRAPE_LEASES: '1',
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

  it("lets another workspace's crawl run while a long crawl holds the worker's only lease slot, and each crawls every page once", async () => {
    const a = await t.createWorkspace('long');
    const b = await t.createWorkspace('short');
    await t.db.prisma.workspace.updateMany({
      where: { id: { in: [a.workspaceId, b.workspaceId] } },
      data: { plan: 'growth' },
    });

    const long = await t.call('POST', '/crawl', {
      key: a.apiKey,
      body: { url: web.url('long.test', '/'), limit: 240, concurrency: 2, useSitemap: false },
    });
    expect(long.status).toBe(202);
    // The long crawl holds the slot and is fetching before the short one is asked for.
    await until(
      'the long crawl under way',
      () => jobOf(long.body.id),
      (j) => ((j.progress as { done?: number } | null)?.done ?? 0) >= 5,
    );
    const short = await t.call('POST', '/crawl', {
      key: b.apiKey,
      body: { url: web.url('short.test', '/'), limit: 12, concurrency: 2, useSitemap: false },
    });
    expect(short.status).toBe(202);

    const shortJob = await until('the short crawl ends', () => jobOf(short.body.id), ended);
    // Without turns it would wait for the long crawl's end: the worker holds one lease.
    const longThen = await jobOf(long.body.id);
    expect(longThen.status).toBe('running');
    expect(shortJob).toMatchObject({ status: 'done', progress: { done: 12, total: 12, queued: 0 }, creditsUsed: 12 });

    const longJob = await until('the long crawl ends', () => jobOf(long.body.id), ended);
    expect(longJob).toMatchObject({ status: 'done', progress: { done: 240, total: 240, queued: 0 }, creditsUsed: 240 });
    // It made way at least once: its slot was queued again (a new generation) behind the short crawl.
    const slots = (longJob.result as { leases: { generation: number }[] }).leases;
    expect(slots[0]!.generation).toBeGreaterThanOrEqual(1);
    // Handing over lost nothing and fetched nothing twice: one row a page, one fetch a page.
    const rows = await t.db.prisma.page.findMany({ where: { runId: longJob.runId! }, select: { url: true } });
    expect(rows).toHaveLength(240);
    expect(new Set(rows.map((r) => r.url)).size).toBe(240);
    const pages = web.hits.filter((h) => h.host === 'long.test' && h.path !== '/robots.txt').map((h) => h.path);
    expect(pages).toHaveLength(240);
    expect(new Set(pages).size).toBe(240);
  }, 150_000);
});
