// GET /v1/me/usage and GET /v1/me/monitor through the fleet: usage from scrape's page rows and
// billing's ledger, the monitor from the crawl and scrape services, JetStream's consumer info,
// the processes on the bus and the browser pool.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { openApiChecker } from '../support/openapi.js';

describe('GET /v1/me/usage and /v1/me/monitor', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let otherKey: string;
  let check: ReturnType<typeof openApiChecker>;
  const today = new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50' });
    key = (await t.createWorkspace('usage')).apiKey;
    otherKey = (await t.createWorkspace('other')).apiKey;
    check = openApiChecker((await t.call('GET', '/docs/openapi.json')).body);
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
  });

  it('counts pages fetched today beside the credits they cost, and this month', async () => {
    const before = await t.call('GET', '/me/usage', { key });
    expect(before.status).toBe(200);
    check.conforms('/me/usage', 'get', before);
    expect(before.body.days).toHaveLength(30);
    expect(before.body.days.at(-1)).toMatchObject({ day: today, pages: 0, creditsUsed: 0, creditsGranted: 1000 });
    expect(before.body.credits).toEqual({ granted: 1000, used: 0, remaining: 1000 });

    // Three pages read, one refused by the site (still a fetch), one map of a sitemap file.
    for (const path of ['/article', '/table', '/forbidden'])
      expect((await t.call('POST', '/scrape', { key, body: { url: web.url('pages.test', path) } })).status).toBe(200);
    expect((await t.call('POST', '/map', { key, body: { url: web.url('news.test', '/') } })).status).toBe(200);

    const after = await t.call('GET', '/me/usage', { key });
    check.conforms('/me/usage', 'get', after);
    const day = after.body.days.at(-1);
    expect(day).toMatchObject({ day: today, pages: 3, browserPages: 0, blockedPages: 1 });
    // Credits charged: the pages' (on their rows) and the sitemap file's.
    expect(day.usedByReason.page).toBe(day.pageCredits);
    expect(day.usedByReason.map).toBeGreaterThanOrEqual(1);
    expect(day.creditsUsed).toBe(day.pageCredits + day.usedByReason.map);
    expect(after.body.month).toMatchObject({ pages: 3, creditsUsed: day.creditsUsed });
    expect(after.body.month.start).toBe(`${today.slice(0, 8)}01`);
    expect(after.body.credits.used).toBe(day.creditsUsed);
    // Days before today are there, empty.
    expect(after.body.days.slice(0, 29).every((d: { pages: number }) => d.pages === 0)).toBe(true);

    // Another workspace sees its own (nothing).
    const other = await t.call('GET', '/me/usage', { key: otherKey });
    expect(other.body.month).toMatchObject({ pages: 0, creditsUsed: 0 });
  });

  it('shows a running crawl with its progress, the lanes, the workers and the browser pool', async () => {
    // A slow crawl (one page a second) stays running while we look.
    const crawl = await t.call('POST', '/crawl', {
      key,
      body: { url: web.url('tree.test', '/'), limit: 30, delay: 1 },
    });
    expect(crawl.status).toBe(202);
    let seen: any;
    for (let i = 0; i < 100 && !seen; i++) {
      const res = await t.call('GET', '/me/monitor', { key });
      expect(res.status).toBe(200);
      seen = res.body.work.find(
        (w: { id: string; progress: { done: number } }) => w.id === crawl.body.id && w.progress.done >= 2,
      )
        ? res.body
        : undefined;
      if (!seen) await new Promise((r) => setTimeout(r, 200));
    }
    check.conforms('/me/monitor', 'get', { status: 200, body: seen });
    const item = seen.work.find((w: { id: string }) => w.id === crawl.body.id);
    expect(item).toMatchObject({
      kind: 'crawl',
      status: 'running',
      projectId: crawl.body.projectId,
      runId: crawl.body.runId,
    });
    expect(item.progress.done).toBeGreaterThanOrEqual(2);

    // The lanes are the WORK stream's durable consumers, as JetStream counts them.
    const lanes = seen.lanes.map((l: { durable: string }) => l.durable);
    expect(lanes).toEqual(expect.arrayContaining(['crawl-start', 'map-run', 'scrape-crawl', 'scrape-page']));
    expect(seen.lanes.find((l: { durable: string }) => l.durable === 'scrape-crawl').subject).toBe('work.scrape.crawl');
    // Every service of the fleet answered, with the lanes it takes.
    const services = new Set(seen.workers.map((w: { service: string }) => w.service));
    for (const s of ['gateway', 'scrape', 'crawl', 'map', 'billing', 'diff', 'delivery'])
      expect(services.has(s)).toBe(true);
    const scrape = seen.workers.find((w: { service: string }) => w.service === 'scrape');
    expect(scrape.consumers.map((c: { durable: string }) => c.durable)).toEqual(
      expect.arrayContaining(['scrape-page', 'scrape-crawl']),
    );
    // This fleet runs without Chromium: the pool says it did not answer.
    expect(seen.browserPool).toEqual({ available: false, reason: expect.any(String) });

    // Another workspace sees none of this workspace's work.
    const other = await t.call('GET', '/me/monitor', { key: otherKey });
    expect(other.body.work).toEqual([]);
    // A key limited to another project does not see the crawl's run.
    const elsewhere = await t.call('POST', '/projects', { key, body: { seed: web.url('news.test', '/') } });
    const limited = await t.createKey(key, { scopes: ['read'], projects: [elsewhere.body.id] });
    const narrow = await t.call('GET', '/me/monitor', { key: limited });
    expect(narrow.body.work.find((w: { id: string }) => w.id === crawl.body.id)).toBeUndefined();

    expect((await t.call('DELETE', `/crawl/${crawl.body.id}`, { key })).status).toBe(200);
  });

  it('reports the browser pool when one runs', async () => {
    // The pool's own status, through a fleet that has Chromium.
    const withPool = await startTestFleet({ FLEET_BROWSER_POOL: '1' });
    try {
      const k = (await withPool.createWorkspace('pool')).apiKey;
      // The pool answers within 2 s once up; a machine busy with other tests may need a moment
      // after start-up (until then the route says the pool did not answer, or the whole view
      // times out on a service still starting).
      let res = await withPool.call('GET', '/me/monitor', { key: k });
      for (let i = 0; i < 40 && !res.body.browserPool?.available; i++) {
        await new Promise((r) => setTimeout(r, 500));
        res = await withPool.call('GET', '/me/monitor', { key: k });
      }
      expect(res.status).toBe(200);
      expect(res.body.browserPool).toMatchObject({ available: true, queued: 0, tabsPerBrowser: 4 });
      expect(res.body.browserPool.browsers).toEqual([
        { id: 0, up: true, inFlight: 0, renders: 0, idleLanes: expect.any(Number) },
      ]);
    } finally {
      await withPool.stop();
    }
  }, 120_000);
});
