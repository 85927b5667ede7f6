import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Bus } from '@tidemark/bus';
import { billingV1, browserPoolV1, PAGE_ERROR_CODES, scrapeRequestSchema } from '@tidemark/contracts';
import { newId } from '@tidemark/db';
import { FetchGuard, guardedAgents } from '@tidemark/net-guard';
import { connectClient, type RpcClient } from '@tidemark/rpc';
import { SecretBox, secretBoxFor } from '@tidemark/secret-box';
import { createLogger } from '@tidemark/telemetry';
import {
  createTestDatabase,
  startTestWeb,
  TEST_INFRA,
  uniquePrefix,
  type TestDatabase,
  type TestWeb,
} from '@tidemark/testkit';
import { BatchingCredits } from '../src/billing/credits-client.js';
import { loadConfig } from '../src/config.js';
import { BrowserRung } from '../src/ladder/browser-rung.js';
import { DeploymentRungs } from '../src/ladder/deployment-rungs.js';
import { HttpRung } from '../src/ladder/http-rung.js';
import { LadderService, type PageResult } from '../src/ladder/ladder.service.js';
import { resolveOptions } from '../src/ladder/options.js';
import { RobotsCheck } from '../src/ladder/robots-check.js';
import { PageReaderPool } from '../src/reading/page-reader-pool.js';
import { PageRepository, toCachedResult } from '../src/repositories/page.repository.js';
import { startServiceProcess, type ServiceProcess } from './support/service-process.js';

/**
 * The engine ladder deciding real pages of the local test web (pages.test: one page per verdict),
 * wired as src/app.ts wires it: the guarded http rung, the page readers, robots.txt, and over
 * gRPC the real billing service (holds and charges land in its ledger) and the real browser pool
 * (Chromium), each run from its entry point as a process of its own.
 *
 * A server on 127.0.0.2 stands for the operator's internal network: FETCH_ALLOW_NETWORKS exempts
 * 127.0.0.1 alone (the test web), so the guard must keep every rung away from 127.0.0.2.
 */

const WORDS = Array.from({ length: 240 }, (_, i) => `harbour${i % 41}`).join(' ');

describe('LadderService', () => {
  let web: TestWeb;
  let internal: { port: number; hits: string[]; server: Server };
  let db: TestDatabase;
  const prefix = uniquePrefix();
  let billingProcess: ServiceProcess;
  let poolProcess: ServiceProcess;
  let billing: RpcClient<billingV1.BillingServiceClient>;
  let pool: RpcClient<browserPoolV1.BrowserPoolServiceClient>;
  let deadPool: RpcClient<browserPoolV1.BrowserPoolServiceClient>;
  let reader: PageReaderPool;
  let agents: ReturnType<typeof guardedAgents>;
  /** The ladder as the scrape service builds it. */
  let ladder: LadderService;
  /** The same ladder whose browser pool cannot be reached. */
  let ladderWithoutBrowser: LadderService;
  const box = secretBoxFor(undefined, () => undefined);
  const workspaceId = newId('ws');

  beforeAll(async () => {
    web = await startTestWeb();
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<html><body><p>internal only. ${WORDS}</p></body></html>`);
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.2', ok));
    internal = { port: (server.address() as AddressInfo).port, hits, server };
    web.addSite('ladder.test', {
      '/to-inside': { status: 302, headers: { location: `http://127.0.0.2:${internal.port}/secret` }, body: '' },
      '/echo': (req) => ({
        type: 'text/html; charset=utf-8',
        body: `<!doctype html><html lang="en"><head><title>Echo</title></head><body><main><article><h1>Echo</h1>
<p>token: ${String(req.headers['x-token'] ?? 'none')}</p><p>${WORDS}</p></article></main></body></html>`,
      }),
      '/busy': () => ({
        status: 429,
        headers: { 'retry-after': new Date(Date.now() + 120_000).toUTCString() },
        type: 'text/html',
        body: '<html><head><title>Too many requests</title></head><body><h1>Slow down</h1></body></html>',
      }),
    });
    const fetchEnv = {
      FETCH_ALLOW_NETWORKS: '127.0.0.1/32',
      FETCH_HOST_MAP: `inside.test=127.0.0.2:${internal.port},${web.hostMap}`,
    };

    db = await createTestDatabase();
    await db.prisma.workspace.create({ data: { id: workspaceId, name: 'ladder' } });
    [billingProcess, poolProcess] = await Promise.all([
      startServiceProcess('billing', {
        DATABASE_URL: db.url,
        NATS_URL: TEST_INFRA.natsUrl,
        NATS_PREFIX: prefix,
        BILLING_GRPC_LISTEN: '127.0.0.1:0',
      }),
      startServiceProcess('browser-pool', {
        ...fetchEnv,
        BROWSER_POOL_GRPC_LISTEN: '127.0.0.1:0',
        BROWSER_POOL_BROWSERS: '1',
        BROWSER_POOL_TABS_PER_BROWSER: '2',
      }),
    ]);

    const cfg = loadConfig({ ...fetchEnv, SCRAPE_READ_THREADS: '1', LOG_LEVEL: 'silent' });
    const logger = createLogger('ladder-test', process.env.TEST_LOG_LEVEL ?? 'silent');
    agents = guardedAgents(new FetchGuard({ allowNetworks: cfg.FETCH_ALLOW_NETWORKS, hostMap: cfg.FETCH_HOST_MAP }));
    const http = new HttpRung(agents, cfg.SCRAPE_USER_AGENT, cfg.SCRAPE_MAX_BODY_BYTES);
    billing = connectClient(billingV1.BillingServiceClient, billingProcess.grpcUrl, 'billing');
    pool = connectClient(browserPoolV1.BrowserPoolServiceClient, poolProcess.grpcUrl, 'browser pool', {
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
    });
    // Nothing listens on port 1: the browser tier is down.
    deadPool = connectClient(browserPoolV1.BrowserPoolServiceClient, '127.0.0.1:1', 'browser pool');
    reader = new PageReaderPool({ threads: 1, budgetMs: cfg.SCRAPE_READ_BUDGET_MS, logger });
    const pages = new PageRepository(db.prisma, db.raw);
    const build = (browser: RpcClient<browserPoolV1.BrowserPoolServiceClient>) =>
      new LadderService(
        http,
        new BrowserRung(browser, cfg.SCRAPE_MAX_BODY_BYTES),
        new BatchingCredits(billing, 'page', logger),
        {
          fresh: async (ws, url, since) => {
            const page = await pages.fresh(ws, url, since);
            return page ? toCachedResult(page) : null;
          },
        },
        reader,
        new RobotsCheck(http, cfg.SCRAPE_USER_AGENT),
        logger,
        (sealed) => box.open(sealed),
        new DeploymentRungs(browser, logger),
      );
    ladder = build(pool);
    ladderWithoutBrowser = build(deadPool);
    // Billing's first call opens its database connections: on a loaded 2-core machine (a CI run)
    // that outlasted the 5 s a hold may wait, and the first test failed on an unready service.
    await billing.call('balance', { workspaceId }, 60_000);
  }, 180_000);

  afterAll(async () => {
    billing?.close();
    pool?.close();
    deadPool?.close();
    await reader?.close();
    agents?.http.destroy();
    agents?.https.destroy();
    await Promise.all([billingProcess?.stop(), poolProcess?.stop()]);
    const bus = await Bus.connect({
      url: TEST_INFRA.natsUrl,
      prefix,
      name: 'cleanup',
      logger: createLogger('cleanup', 'silent'),
    });
    await bus.destroyStreams();
    await bus.close();
    await db?.drop();
    await new Promise((ok) => internal?.server.close(ok));
    await web?.close();
  }, 60_000);

  interface Scraped extends PageResult {
    /** What billing wrote for this page: [rung, credits] per ledger entry (a charge is negative). */
    ledger: [string, number][];
    /** Holds billing still keeps for this page (every one must be charged or released). */
    holds: number;
  }

  /** One page through the ladder, as a scrape job's page 0 (request as POST /v1/scrape takes it). */
  const scrape = async (
    url: string,
    request: Record<string, unknown> = {},
    opts: { via?: LadderService; workspace?: string } = {},
  ): Promise<Scraped> => {
    const ws = opts.workspace ?? workspaceId;
    const jobId = newId('job');
    const options = resolveOptions(scrapeRequestSchema.parse({ url, ...request }));
    const result = await (opts.via ?? ladder).scrape({ workspaceId: ws, jobId, position: 0, url }, options);
    const reference = { startsWith: `page:${jobId}:0:` };
    const entries = await db.prisma.ledgerEntry.findMany({ where: { workspaceId: ws, reference } });
    return {
      ...result,
      ledger: entries.map((e) => [e.reference.split(':').at(-1)!, e.credits]),
      holds: await db.prisma.creditHold.count({ where: { workspaceId: ws, reference } }),
    };
  };

  const page = (path: string) => web.url('pages.test', path);
  /** Requests the test web answered for a path (the browser's included). */
  const fetches = (host: string, path: string) => web.hits.filter((h) => h.host === host && h.path === path).length;
  const rungs = (r: PageResult) => r.row.attempts!.map((a) => [a.rung, a.httpStatus, a.errorCode]);

  it('reads an ordinary page on the http rung, charged its price once', async () => {
    const before = fetches('pages.test', '/article');
    const r = await scrape(page('/article'), { formats: 'markdown,links' });
    expect(r.row).toMatchObject({
      status: 'done',
      verdict: 'ok',
      errorCode: 'OK',
      method: 'http',
      tier: 'http',
      climbedTo: 'http',
      credits: 1,
      billedAs: null,
      httpStatus: 200,
      finalUrl: page('/article'),
      reason: 'read',
    });
    expect(rungs(r)).toEqual([['http', 200, 'OK']]);
    expect(r.bodies.markdown).toContain('How tides work');
    expect(r.bodies.links).toEqual(expect.arrayContaining([web.url('pages.test', '/articles/')]));
    expect(r.ledger).toEqual([['http', -1]]);
    expect(r.holds).toBe(0);
    expect(fetches('pages.test', '/article') - before).toBe(1);
  });

  it('answers a crawl page with its charge on its way; charged again from its row, nothing changes', async () => {
    const jobId = newId('job');
    const options = resolveOptions(scrapeRequestSchema.parse({ url: page('/article'), formats: 'markdown' }));
    const ledger = () =>
      db.prisma.ledgerEntry.findMany({ where: { workspaceId, reference: { startsWith: `page:${jobId}:` } } });
    // One after another, each answered before its charge is written (they linger for company).
    const results: PageResult[] = [];
    for (const position of [0, 1, 2])
      results.push(
        await ladder.scrape(
          {
            workspaceId,
            jobId,
            position,
            url: page('/article'),
            creditPool: { id: jobId, chargesLinger: true },
            chargeBehind: true,
          },
          options,
        ),
      );
    expect(results.map((r) => [r.row.verdict, r.row.credits])).toEqual([
      ['ok', 1],
      ['ok', 1],
      ['ok', 1],
    ]);
    expect(results.every((r) => r.charged instanceof Promise)).toBe(true);
    await Promise.all(results.map((r) => r.charged));
    const charged = (await ledger()).map((e) => [e.reference, e.credits]).sort();
    expect(charged).toEqual([0, 1, 2].map((p) => [`page:${jobId}:${p}:http`, -1]));
    // A redelivered page whose worker died after its row was written is charged from the row:
    // by the same reference, so a charge that was written stays the only one.
    await ladder.chargeAgain({ workspaceId, jobId, position: 1 }, results[1]!.row);
    expect((await ledger()).length).toBe(3);
    // One that had not been charged is.
    await ladder.chargeAgain({ workspaceId, jobId, position: 7 }, results[1]!.row);
    expect((await ledger()).map((e) => e.reference).sort()).toContain(`page:${jobId}:7:http`);
    expect(
      (
        await db.prisma.ledgerEntry.aggregate({
          where: { workspaceId, reference: { startsWith: `page:${jobId}:` } },
          _sum: { credits: true },
        })
      )._sum.credits,
    ).toBe(-4);
  });

  describe('an app shell', () => {
    it('climbs to the browser, which reads it: charged the browser price alone', async () => {
      const before = fetches('pages.test', '/app');
      const r = await scrape(page('/app'), { formats: 'markdown' });
      expect(r.row).toMatchObject({
        status: 'done',
        verdict: 'ok',
        errorCode: 'OK',
        method: 'browser',
        tier: 'browser',
        climbedTo: 'browser',
        credits: 5,
        billedAs: null,
        httpStatus: 200,
      });
      expect(rungs(r)).toEqual([
        ['http', 200, 'SHELL'],
        ['browser', 200, 'OK'],
      ]);
      expect(r.row.signals).toContain('render confirmed');
      expect(r.bodies.markdown).toContain('Rendered');
      // The http hold is released (nothing charged for it); the page costs the browser's 5.
      expect(r.ledger).toEqual([['browser', -5]]);
      expect(r.holds).toBe(0);
      expect(fetches('pages.test', '/app') - before).toBe(2);
    });

    it('stops at maxTier http with TIER_LIMIT, keeping what http read; the browser is not asked', async () => {
      const before = fetches('pages.test', '/app');
      const r = await scrape(page('/app'), { config: { maxTier: 'http' } });
      expect(r.row).toMatchObject({
        status: 'done',
        verdict: 'blocked',
        errorCode: 'TIER_LIMIT',
        method: 'http',
        climbedTo: 'http',
        credits: 1,
      });
      expect(r.row.reason).toContain(PAGE_ERROR_CODES.SHELL);
      expect(r.row.reason).toMatch(/; the browser rung would be needed; maxTier is http$/);
      expect(r.row.signals).toEqual(expect.arrayContaining(['app shell', 'no script']));
      expect(rungs(r)).toEqual([['http', 200, 'SHELL']]);
      expect(r.ledger).toEqual([['http', -1]]);
      expect(r.holds).toBe(0);
      expect(fetches('pages.test', '/app') - before).toBe(1);
    });

    it('stops at maxCredits below the browser price with BUDGET_EXHAUSTED; no browser hold is taken', async () => {
      const before = fetches('pages.test', '/app');
      const r = await scrape(page('/app'), { maxCredits: 2 });
      expect(r.row).toMatchObject({
        verdict: 'blocked',
        errorCode: 'BUDGET_EXHAUSTED',
        method: 'http',
        climbedTo: 'http',
        credits: 1,
      });
      expect(r.row.reason).toContain(PAGE_ERROR_CODES.SHELL);
      expect(r.row.reason).toMatch(/; the browser rung costs 5 credits; maxCredits is 2$/);
      expect(r.creditsExhausted).toBeUndefined();
      expect(r.ledger).toEqual([['http', -1]]);
      expect(r.holds).toBe(0);
      expect(fetches('pages.test', '/app') - before).toBe(1);
    });

    it("stops with BUDGET_EXHAUSTED when billing refuses the browser rung: the workspace's credits ran out", async () => {
      const poor = newId('ws');
      await db.prisma.workspace.create({ data: { id: poor, name: 'poor' } });
      // The welcome credits in (1000), then all but 3 spent.
      await billing.call('balance', { workspaceId: poor });
      await db.prisma.ledgerEntry.create({
        data: { id: newId('led'), workspaceId: poor, kind: 'charge', reason: 'test', credits: -997, reference: 'test' },
      });
      const before = fetches('pages.test', '/app');
      const r = await scrape(page('/app'), {}, { workspace: poor });
      expect(r.row).toMatchObject({
        verdict: 'blocked',
        errorCode: 'BUDGET_EXHAUSTED',
        method: 'http',
        climbedTo: 'http',
        credits: 1,
      });
      expect(r.row.reason).toMatch(/the browser rung costs 5 credits; 5 credits needed, 2 left/);
      expect(r.creditsExhausted).toBe(true);
      expect(r.ledger).toEqual([['http', -1]]);
      expect(r.holds).toBe(0);
      expect(fetches('pages.test', '/app') - before).toBe(1);
      expect((await billing.call('balance', { workspaceId: poor })).remaining).toBe(2);
    });

    it('keeps what http read when the browser pool cannot be reached, and says so', async () => {
      const r = await scrape(page('/app'), {}, { via: ladderWithoutBrowser });
      expect(r.row).toMatchObject({
        verdict: 'blocked',
        errorCode: 'SHELL',
        method: 'http',
        climbedTo: 'http',
        credits: 1,
      });
      expect(r.row.warnings).toContain('browser tier unavailable');
      expect(r.ledger).toEqual([['http', -1]]);
      expect(r.holds).toBe(0);
    });
  });

  describe('a page that starts at the browser (render_js always)', () => {
    it('is read over http instead when the browser pool cannot be reached', async () => {
      const r = await scrape(page('/article'), { config: { render_js: 'always' } }, { via: ladderWithoutBrowser });
      expect(r.row).toMatchObject({ verdict: 'ok', errorCode: 'OK', method: 'http', climbedTo: 'http', credits: 1 });
      expect(r.row.warnings).toContain('browser tier unavailable');
      expect(r.ledger).toEqual([['http', -1]]);
      expect(r.holds).toBe(0);
    });

    it('is not fetched at all when maxCredits cannot pay for the browser', async () => {
      const before = fetches('pages.test', '/article');
      const r = await scrape(page('/article'), { config: { render_js: 'always' }, maxCredits: 2 });
      expect(r.row).toMatchObject({
        status: 'done',
        verdict: 'blocked',
        errorCode: 'BUDGET_EXHAUSTED',
        method: null,
        climbedTo: null,
        credits: 0,
        reason: 'the browser rung costs 5 credits; maxCredits is 2',
      });
      expect(r.row.attempts).toEqual([]);
      expect(r.ledger).toEqual([]);
      expect(r.holds).toBe(0);
      expect(fetches('pages.test', '/article') - before).toBe(0);
    });
  });

  describe('a challenge page (403)', () => {
    it('climbs to the browser, which finds the challenge widget: CAPTCHA, charged the browser price', async () => {
      // The pool has no BROWSER_EXITS: browser+exit is no rung of this deployment, so the page
      // keeps what stood in its way (no TIER_LIMIT).
      const r = await scrape(page('/challenge'));
      expect(r.row).toMatchObject({
        verdict: 'blocked',
        errorCode: 'CAPTCHA',
        method: 'browser',
        climbedTo: 'browser',
        httpStatus: 403,
        widget: 'turnstile',
        solved: 'none',
        credits: 5,
      });
      expect(rungs(r)).toEqual([
        ['http', 403, 'BLOCKED'],
        ['browser', 403, 'CAPTCHA'],
      ]);
      expect(r.row.attempts![0]!.signals).toContain('challenge');
      expect(r.ledger).toEqual([['browser', -5]]);
      expect(r.holds).toBe(0);
    });

    it('stops at maxTier http with TIER_LIMIT, blocked on the http rung', async () => {
      const r = await scrape(page('/challenge'), { config: { maxTier: 'http' } });
      expect(r.row).toMatchObject({
        verdict: 'blocked',
        errorCode: 'TIER_LIMIT',
        method: 'http',
        climbedTo: 'http',
        httpStatus: 403,
        credits: 1,
      });
      expect(r.row.reason).toMatch(/; the browser rung would be needed; maxTier is http$/);
      expect(r.ledger).toEqual([['http', -1]]);
    });

    it('reads as BLOCKED on the http rung when the browser tier is down', async () => {
      const r = await scrape(page('/challenge'), {}, { via: ladderWithoutBrowser });
      expect(r.row).toMatchObject({
        verdict: 'blocked',
        errorCode: 'BLOCKED',
        method: 'http',
        httpStatus: 403,
        credits: 1,
      });
      expect(r.row.warnings).toContain('browser tier unavailable');
      expect(r.ledger).toEqual([['http', -1]]);
    });
  });

  describe('a page that does not climb', () => {
    it('answers a 429 with RATE_LIMITED and the seconds Retry-After names, on the http rung alone', async () => {
      const r = await scrape(page('/rate-limited'));
      expect(r.row).toMatchObject({
        verdict: 'blocked',
        errorCode: 'RATE_LIMITED',
        method: 'http',
        climbedTo: 'http',
        httpStatus: 429,
        retryAfter: 30,
        credits: 1,
      });
      expect(r.ledger).toEqual([['http', -1]]);
    });

    it('reads a Retry-After given as a date as the seconds left until then', async () => {
      const r = await scrape(web.url('ladder.test', '/busy'));
      expect(r.row).toMatchObject({ errorCode: 'RATE_LIMITED', method: 'http', climbedTo: 'http' });
      expect(r.row.retryAfter).toBeGreaterThan(60);
      expect(r.row.retryAfter).toBeLessThanOrEqual(121);
    });

    it.each([
      ['/missing', 404, 'http 404'],
      ['/gone', 410, 'http 410'],
      ['/soft-404', 200, 'soft 404'],
    ])('answers %s with NOT_FOUND (status %s, signal %s), charged as an http read', async (path, status, signal) => {
      const r = await scrape(page(path));
      expect([path, r.row.verdict, r.row.errorCode, r.row.method, r.row.climbedTo, r.row.httpStatus]).toEqual([
        path,
        'blocked',
        'NOT_FOUND',
        'http',
        'http',
        status,
      ]);
      expect(r.row.signals).toContain(signal);
      expect(r.ledger).toEqual([['http', -1]]);
    });
  });

  describe('an address the fetch guard refuses', () => {
    it.each([
      ['the address itself', () => `http://127.0.0.2:${internal.port}/secret`],
      ['a name that resolves to it', () => `http://inside.test:${internal.port}/secret`],
      ['a redirect to it', () => web.url('ladder.test', '/to-inside')],
    ])('answers NETWORK at no cost for %s, and nothing reaches it', async (_what, url) => {
      const r = await scrape(url());
      expect(r.row).toMatchObject({
        status: 'error',
        verdict: 'blocked',
        errorCode: 'NETWORK',
        climbedTo: 'http',
        credits: 0,
      });
      expect(r.row.reason).toContain('refused by the fetch guard');
      expect(r.bodies).toEqual({});
      expect(r.ledger).toEqual([]);
      expect(r.holds).toBe(0);
      expect(internal.hits).toEqual([]);
    });

    it('answers NETWORK at no cost from the browser rung too', async () => {
      const r = await scrape(`http://127.0.0.2:${internal.port}/secret`, { config: { render_js: 'always' } });
      expect(r.row).toMatchObject({
        status: 'error',
        errorCode: 'NETWORK',
        climbedTo: 'browser',
        credits: 0,
      });
      expect(r.ledger).toEqual([]);
      expect(r.holds).toBe(0);
      expect(internal.hits).toEqual([]);
    });
  });

  describe('before any rung', () => {
    it('leaves a page robots.txt forbids unfetched and unbilled when the scrape asks to respect it', async () => {
      const before = fetches('news.test', '/private/plans');
      const r = await scrape(web.url('news.test', '/private/plans'), { config: { respectRobots: true } });
      expect(r.row).toMatchObject({ status: 'done', verdict: 'robots', credits: 0, method: null });
      expect(r.ledger).toEqual([]);
      expect(fetches('news.test', '/private/plans') - before).toBe(0);
      // Without the ask, a one-URL scrape fetches it.
      expect((await scrape(web.url('news.test', '/private/plans'))).row.method).toBe('http');
    });

    it('opens sealed fetch.headers for the rungs alone, and refuses headers sealed under another key', async () => {
      const sealed = box.seal('tok-4117');
      const r = await scrape(web.url('ladder.test', '/echo'), {
        formats: 'markdown',
        config: { headers: { 'x-token': sealed } },
      });
      expect(r.row).toMatchObject({ verdict: 'ok', method: 'http' });
      expect(r.bodies.markdown).toContain('token: tok-4117');
      expect(JSON.stringify(r.row)).not.toContain('tok-4117');

      const before = fetches('ladder.test', '/echo');
      const foreign = new SecretBox(randomBytes(32)).seal('tok-4117');
      const refused = await scrape(web.url('ladder.test', '/echo'), { config: { headers: { 'x-token': foreign } } });
      expect(refused.row).toMatchObject({ status: 'error', credits: 0, method: null });
      expect(refused.row.reason).toMatch(/fetch\.headers .* could not be opened/);
      expect(refused.ledger).toEqual([]);
      expect(fetches('ladder.test', '/echo') - before).toBe(0);
    });
  });
});
