import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { until as pollUntil } from '../support/until.js';

/**
 * Issue 12, item 9: a crawl or a project run whose workspace runs out of credits stops, says
 * why, counts what it did not fetch (and fetches and bills none of it), and ends; a standing
 * project starts its next run afterwards.
 */
describe('credits that run out mid-crawl', () => {
  let web: TestWeb;
  let t: TestFleet;

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '100' });
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
  });

  /** A workspace left with `credits` on `fleet` (its welcome credits in, the rest spent). */
  const workspaceWith = async (name: string, credits: number, fleet: TestFleet = t) => {
    const ws = await fleet.createWorkspace(name);
    await fleet.call('GET', '/me', { key: ws.apiKey }); // the welcome credits (1,000)
    await fleet.db.prisma.ledgerEntry.create({
      data: {
        id: `led_${name}`,
        workspaceId: ws.workspaceId,
        kind: 'charge',
        reason: 'test',
        credits: credits - 1000,
        reference: `test:${name}`,
      },
    });
    expect((await fleet.call('GET', '/me', { key: ws.apiKey })).body.credits.remaining).toBe(credits);
    return ws;
  };
  // A free workspace may ask 60 times a minute: polls stay well under that.
  const until = (what: string, read: () => Promise<any>, ok: (v: any) => boolean, ms = 300_000) =>
    pollUntil(what, read, ok, { timeoutMs: ms, everyMs: 1500 });
  /** Still going, or not answered yet (a refused poll says nothing about the job). */
  const open = (s: unknown) => typeof s !== 'string' || s === 'queued' || s === 'running';
  const pagesFetched = (host: string, since: number) =>
    web.hits.slice(since).filter((h) => h.host === host && h.path !== '/robots.txt').length;

  it('stops a 200-page crawl at 60 credits: credits_exhausted, the rest counted unfetched, nothing more fetched or billed', async () => {
    const ws = await workspaceWith('sixty', 60);
    const hitsBefore = web.hits.length;
    const res = await t.call('POST', '/crawl', {
      key: ws.apiKey,
      body: { url: web.url('tree.test', '/'), limit: 200, concurrency: 10, useSitemap: false },
    });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const end = await until(
      'the crawl to end',
      async () => (await t.call('GET', `/crawl/${id}?formats=&limit=1000`, { key: ws.apiKey })).body,
      (b) => !open(b.status),
    );
    expect(end).toMatchObject({ status: 'done', stop: 'credits_exhausted', creditsUsed: 60 });
    const read = (end.counts.ok ?? 0) + (end.counts.thin ?? 0);
    expect(read).toBe(60);
    // Pages in flight when the credits ran out were refused by billing: rows, not fetched, 0 credits.
    const refused = end.data.filter((r: any) => r.errorCode === 'BUDGET_EXHAUSTED');
    expect(refused.every((r: any) => r.credits === 0 && r.method === null)).toBe(true);
    expect(end.counts.blocked ?? 0).toBe(refused.length);
    // Only pages already under way when the first was refused (10 in flight at most): nothing
    // starts after it, and the URLs a lease holder held but had not started are unfetched too.
    expect(refused.length).toBeLessThanOrEqual(10);
    // Everything still queued was dropped, counted, and never fetched.
    expect(end.counts.unfetched).toBeGreaterThan(0);
    expect(end.progress).toEqual({
      done: read + refused.length,
      total: read + refused.length + end.counts.unfetched,
      queued: 0,
    });
    const runId = end.runId as string;
    expect(await t.db.prisma.crawlUrl.count({ where: { runId, state: 'unfetched' } })).toBe(end.counts.unfetched);
    expect(await t.db.prisma.crawlUrl.count({ where: { runId, state: { in: ['queued', 'dispatched'] } } })).toBe(0);
    expect(pagesFetched('tree.test', hitsBefore)).toBe(60);
    expect((await t.call('GET', '/me', { key: ws.apiKey })).body.credits.remaining).toBe(0);
    // The end is for good: nothing moves afterwards.
    await new Promise((r) => setTimeout(r, 1000));
    expect(pagesFetched('tree.test', hitsBefore)).toBe(60);
    const job = await t.db.prisma.job.findUniqueOrThrow({ where: { id } });
    expect((job.result as { log: { message: string }[] }).log.map((l) => l.message).join('\n')).toMatch(
      /credits ran out/,
    );
  }, 320_000);

  /** A max_credits 30 crawl of the tree site, 10 in flight, on `fleet`; answers its end. */
  const budgetedCrawl = async (fleet: TestFleet, name: string) => {
    const ws = await workspaceWith(name, 500, fleet);
    const hitsBefore = web.hits.length;
    const res = await fleet.call('POST', '/crawl', {
      key: ws.apiKey,
      body: {
        url: web.url('tree.test', '/'),
        limit: 300,
        concurrency: 10,
        useSitemap: false,
        config: { max_credits: 30 },
      },
    });
    expect(res.status).toBe(202);
    const end = await until(
      'the crawl to end',
      async () => (await fleet.call('GET', `/crawl/${res.body.id}?formats=&limit=1`, { key: ws.apiKey })).body,
      (b) => !open(b.status),
    );
    return { end, fetched: pagesFetched('tree.test', hitsBefore) };
  };

  it("spends no more than a crawl's own max_credits: stop budget at the budget, the rest unfetched", async () => {
    const { end, fetched } = await budgetedCrawl(t, 'budget');
    // A budget, not a point to stop after: a lease holder held at most what was left to spend
    // (it spent 42 to 56 of 30 credits before, fetching what it held between two pulls).
    expect(end).toMatchObject({ status: 'done', stop: 'budget', creditsUsed: 30 });
    expect(end.counts.unfetched).toBeGreaterThan(0);
    expect(fetched).toBe(30);
  }, 320_000);

  it('keeps max_credits on the paged engine too: no more pages in flight than what is left buys', async () => {
    // The paged engine had its 10 pages in flight when the settled ones reached the budget, and
    // spent 36 to 37 of 30.
    const paged = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '100', CRAWL_ENGINE: 'paged' });
    try {
      const { end, fetched } = await budgetedCrawl(paged, 'budget-paged');
      expect(end).toMatchObject({ status: 'done', stop: 'budget', creditsUsed: 30 });
      expect(end.counts.unfetched).toBeGreaterThan(0);
      expect(fetched).toBe(30);
    } finally {
      await paged.stop();
    }
  }, 320_000);

  it('ends a scrape batch that runs out: the pages past the credits refused, unfetched and free, the job done', async () => {
    const ws = await workspaceWith('batch', 5);
    const hitsBefore = web.hits.length;
    const urls = Array.from({ length: 20 }, (_, i) => web.url('tree.test', `/p/${100 + i}`));
    const res = await t.call('POST', '/scrape', { key: ws.apiKey, body: { urls } });
    expect(res.status).toBe(202);
    const end = await until(
      'the batch to end',
      async () => (await t.call('GET', `/scrape/${res.body.id}`, { key: ws.apiKey })).body,
      (b) => !open(b.status),
    );
    expect(end).toMatchObject({ status: 'done', creditsUsed: 5, progress: { done: 20, total: 20, queued: 0 } });
    const refused = end.data.filter((r: any) => r.errorCode === 'BUDGET_EXHAUSTED');
    expect(refused).toHaveLength(15);
    expect(refused.every((r: any) => r.credits === 0 && r.method === null)).toBe(true);
    expect(pagesFetched('tree.test', hitsBefore)).toBe(5);
    expect((await t.call('GET', '/me', { key: ws.apiKey })).body.credits.remaining).toBe(0);
  }, 320_000);

  it("ends a project's run that runs out the same way, and the project starts its next run afterwards", async () => {
    const ws = await workspaceWith('project', 25);
    const made = await t.call('POST', '/projects', {
      key: ws.apiKey,
      body: { seed: web.url('tree.test', '/'), config: { useSitemap: false, max_pages: 40 } },
    });
    expect(made.status).toBe(201);
    const projectId = made.body.id as string;
    const runOf = (runId: string) =>
      until(
        'the run to end',
        async () => (await t.call('GET', `/projects/${projectId}/runs/${runId}`, { key: ws.apiKey })).body,
        (r) => !open(r.status),
      );

    const first = await t.call('POST', `/projects/${projectId}/runs`, { key: ws.apiKey });
    expect(first.status).toBe(202);
    const ranOut = await runOf(first.body.id);
    expect(ranOut).toMatchObject({ status: 'done', stop: 'credits_exhausted', creditsUsed: 25 });
    expect(ranOut.counts.unfetched).toBeGreaterThan(0);

    // Not refused with 409 for ever: the next run starts (and, with no credits, ends at once).
    const second = await t.call('POST', `/projects/${projectId}/runs`, { key: ws.apiKey });
    expect(second.status).toBe(202);
    const broke = await runOf(second.body.id);
    expect(broke).toMatchObject({ status: 'error', stop: 'credits_exhausted', creditsUsed: 0 });
    expect(broke.log.map((l: { message: string }) => l.message).join('\n')).toMatch(/credits ran out/);

    // With credits again, a run reads the site up to its limit.
    await t.db.prisma.ledgerEntry.create({
      data: {
        id: 'led_topup',
        workspaceId: ws.workspaceId,
        kind: 'grant',
        reason: 'test',
        credits: 1000,
        reference: 'test:topup',
      },
    });
    const third = await t.call('POST', `/projects/${projectId}/runs`, { key: ws.apiKey });
    expect(third.status).toBe(202);
    expect(await runOf(third.body.id)).toMatchObject({ status: 'done', stop: 'limit', creditsUsed: 40 });
  });
});
