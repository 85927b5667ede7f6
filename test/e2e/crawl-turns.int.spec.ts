import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { benchSite, startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { until as pollUntil } from '../support/until.js';

/**
 * Crawls take turns at a worker's lease slots (SCRAPE_LEASE_TURN_MS): a worker that holds as many
 * leases as it may does not keep another crawl waiting until its crawls end, and the lease that
 * makes way is one of the workspace holding most of the worker's slots.
 */

/** Real-sized news pages (15-40 KB, 16-29 in-site links); `delayMs` slows a crawl of them down. */
const newsSite = (delayMs = 0) => {
  const site = benchSite(2000);
  const page = site['*'] as Extract<(typeof site)[string], (req: IncomingMessage) => unknown>;
  return delayMs ? { ...site, '*': (req: IncomingMessage) => ({ ...page(req), delayMs }) } : site;
};

/** A web of the given sites and a fleet whose one scrape worker takes turns every 1.5 s. */
const fleetTakingTurns = (sites: Record<string, ReturnType<typeof newsSite>>, leases: number) => {
  const ctx = {} as { web: TestWeb; t: TestFleet };
  beforeAll(async () => {
    ctx.web = await startTestWeb();
    for (const [host, site] of Object.entries(sites)) ctx.web.addSite(host, site);
    ctx.t = await startTestFleet({
      FETCH_HOST_MAP: ctx.web.hostMap,
      SCRAPE_LEASES: String(leases),
      SCRAPE_LEASE_TURN_MS: '1500',
    });
  }, 120_000);
  afterAll(async () => {
    await ctx.t?.stop();
    await ctx.web?.close();
  });
  return ctx;
};

const until = <T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 90_000) =>
  pollUntil(what, read, ok, { timeoutMs, everyMs: 50, shown: 300 });
const ended = (j: { status: string }) => !['queued', 'running'].includes(j.status);
const done = (j: { progress: unknown }) => (j.progress as { done?: number } | null)?.done ?? 0;
/** The crawl's (first) lease slot's generation: how many times it was queued again. */
const generation = (j: { result: unknown }) =>
  (j.result as { leases?: { generation: number }[] } | null)?.leases?.[0]?.generation ?? 0;

const workspaces = async (t: TestFleet, ...names: string[]) => {
  const made = await Promise.all(names.map((n) => t.createWorkspace(n)));
  await t.db.prisma.workspace.updateMany({
    where: { id: { in: made.map((w) => w.workspaceId) } },
    data: { plan: 'growth' },
  });
  return made;
};

const jobIn = (t: TestFleet) => (id: string) => t.db.prisma.job.findUniqueOrThrow({ where: { id } });
/** Until the crawl has settled its first pages: it holds a lease slot and fetches. */
const underWay = (t: TestFleet, id: string) =>
  until(
    'a crawl under way',
    () => jobIn(t)(id),
    (j) => done(j) >= 5,
  );

/** Starts a crawl of `host` (two pages in flight, no sitemap) with a workspace's key; its id. */
const crawlIn = (t: TestFleet, web: TestWeb) => async (key: string, host: string, limit: number) => {
  const res = await t.call('POST', '/crawl', {
    key,
    body: { url: web.url(host, '/'), limit, concurrency: 2, useSitemap: false },
  });
  expect(res.status).toBe(202);
  return res.body.id as string;
};

/** One row and one fetch a page of a crawl that ended done with `pages` pages. */
const expectWhole = async (t: TestFleet, web: TestWeb, id: string, host: string, pages: number) => {
  const job = await until('a long crawl ends', () => t.db.prisma.job.findUniqueOrThrow({ where: { id } }), ended);
  expect(job).toMatchObject({ status: 'done', progress: { done: pages, total: pages, queued: 0 }, creditsUsed: pages });
  const rows = await t.db.prisma.page.findMany({ where: { runId: job.runId! }, select: { url: true } });
  expect(rows).toHaveLength(pages);
  expect(new Set(rows.map((r) => r.url)).size).toBe(pages);
  const fetched = web.hits.filter((h) => h.host === host && h.path !== '/robots.txt').map((h) => h.path);
  expect(fetched).toHaveLength(pages);
  expect(new Set(fetched).size).toBe(pages);
  return job;
};

describe('crawl leases take turns when crawls wait for a worker', () => {
  // One lease at a time on the fleet's one scrape worker: the long crawl fills it.
  const ctx = fleetTakingTurns({ 'long.test': newsSite(60), 'short.test': newsSite() }, 1);

  it("lets another workspace's crawl run while a long crawl holds the worker's only lease slot, and each crawls every page once", async () => {
    const { t, web } = ctx;
    const jobOf = jobIn(t);
    const [a, b] = await workspaces(t, 'long', 'short');

    const crawl = crawlIn(t, web);
    const long = await crawl(a!.apiKey, 'long.test', 240);
    // The long crawl holds the slot and is fetching before the short one is asked for.
    await underWay(t, long);
    const short = await crawl(b!.apiKey, 'short.test', 12);

    const shortJob = await until('the short crawl ends', () => jobOf(short), ended);
    // Without turns it would wait for the long crawl's end: the worker holds one lease.
    const longThen = await jobOf(long);
    expect(longThen.status).toBe('running');
    expect(shortJob).toMatchObject({ status: 'done', progress: { done: 12, total: 12, queued: 0 }, creditsUsed: 12 });

    // Handing over lost nothing and fetched nothing twice: one row a page, one fetch a page.
    const longJob = await expectWhole(t, web, long, 'long.test', 240);
    // It made way at least once: its slot was queued again (a new generation) behind the short crawl.
    expect(generation(longJob)).toBeGreaterThanOrEqual(1);
  }, 150_000);
});

describe("a worker's turns go first to the workspace that holds most of its slots", () => {
  // Three leases at a time on the fleet's one scrape worker: the long crawls fill it.
  const ctx = fleetTakingTurns(
    {
      'b-long.test': newsSite(60),
      'a-long-1.test': newsSite(60),
      'a-long-2.test': newsSite(60),
      'a-long-3.test': newsSite(60),
    },
    3,
  );

  it("rotates the crowding workspace's crawls and leaves the other workspace's crawl its slot", async () => {
    const { t, web } = ctx;
    const jobOf = jobIn(t);
    const [a, b] = await workspaces(t, 'crowding', 'alone');
    const crawl = crawlIn(t, web);

    // B's crawl takes a slot first, so it is the lease held longest at every turn's end.
    const alone = await crawl(b!.apiKey, 'b-long.test', 200);
    await underWay(t, alone);
    const crowding = [await crawl(a!.apiKey, 'a-long-1.test', 200), await crawl(a!.apiKey, 'a-long-2.test', 200)];
    for (const id of crowding) await underWay(t, id);
    // Every lease past its turn before anything waits, so any of the three could make way.
    await new Promise((r) => setTimeout(r, 1_700));
    crowding.push(await crawl(a!.apiKey, 'a-long-3.test', 200));

    // A's three crawls take turns at A's two slots: two of them have made way at least once.
    const rotated = await until(
      "A's crawls rotate",
      () => Promise.all(crowding.map(jobOf)),
      (jobs) => jobs.filter((j) => generation(j) >= 1).length >= 2 || jobs.some(ended),
    );
    expect(rotated.some(ended)).toBe(false);
    // B kept its slot throughout.
    const aloneThen = await jobOf(alone);
    expect(aloneThen.status).toBe('running');
    expect(generation(aloneThen)).toBe(0);

    // Every crawl still ends whole: one row and one fetch a page.
    await expectWhole(t, web, alone, 'b-long.test', 200);
    for (const [i, id] of crowding.entries()) await expectWhole(t, web, id, `a-long-${i + 1}.test`, 200);
  }, 240_000);
});

describe('one lease of a workspace waits in the work queue at a time', () => {
  // One lease at a time on the fleet's one scrape worker: whichever crawl holds it, the rest wait.
  const ctx = fleetTakingTurns(
    {
      'a-long-1.test': newsSite(60),
      'a-long-2.test': newsSite(60),
      'a-long-3.test': newsSite(60),
      'b-short.test': newsSite(),
    },
    1,
  );

  it("takes another workspace's crawl before the rest of a workspace's queue", async () => {
    const { t, web } = ctx;
    const jobOf = jobIn(t);
    const [a, b] = await workspaces(t, 'queues-many', 'queues-one');
    const crawl = crawlIn(t, web);

    const first = await crawl(a!.apiKey, 'a-long-1.test', 150);
    await underWay(t, first);
    // A queues two more crawls, then B one: in a first-in, first-out queue B's would wait for a
    // turn behind each of A's.
    const second = await crawl(a!.apiKey, 'a-long-2.test', 150);
    const third = await crawl(a!.apiKey, 'a-long-3.test', 150);
    const other = await crawl(b!.apiKey, 'b-short.test', 12);

    const otherJob = await until("B's crawl ends", () => jobOf(other), ended, 120_000);
    expect(otherJob).toMatchObject({ status: 'done', progress: { done: 12, total: 12, queued: 0 } });
    const firstHit = (host: string) => web.hits.findIndex((h) => h.host === host && h.path !== '/robots.txt');
    // B's crawl was fetched before A's third: A's third waited behind B's, not B's behind it.
    expect(firstHit('b-short.test')).toBeGreaterThanOrEqual(0);
    const thirdFirst = firstHit('a-long-3.test');
    expect(thirdFirst === -1 || firstHit('b-short.test') < thirdFirst).toBe(true);

    // Every one of A's crawls still ends whole, each through turns of the one slot.
    await expectWhole(t, web, first, 'a-long-1.test', 150);
    await expectWhole(t, web, second, 'a-long-2.test', 150);
    await expectWhole(t, web, third, 'a-long-3.test', 150);
  }, 240_000);
});
