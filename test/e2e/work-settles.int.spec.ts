import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Bus } from '@tidemark/bus';
import * as crawl from '@tidemark/crawl';
import * as scrape from '@tidemark/scrape';
import { createLogger } from '@tidemark/telemetry';
import { startTestWeb, TEST_INFRA, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { until as pollUntil } from '../support/until.js';

/**
 * Issue 12, item 10: work that fails for good settles its row and its job with a reason. The
 * failure is real and deterministic: this file's database refuses to store hostile.test's press
 * page as read (a CHECK constraint, the kind of refusal a value PostgreSQL cannot hold meets),
 * and refuses a crawl seed at /refused-seed; every delivery meets the same refusal.
 */
describe('work that always fails ends, with its reason', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  const extraApps: (crawl.CrawlApp | scrape.ScrapeApp)[] = [];

  beforeAll(async () => {
    web = await startTestWeb();
    // The paged engine: a lost dispatch (the last test) is its by construction; the leased
    // engine's page that cannot be stored is test/e2e/crawl-lease.int.spec.ts's.
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '100', CRAWL_ENGINE: 'paged' });
    const ws = await t.createWorkspace('failing');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
    await t.db.prisma.$executeRawUnsafe(
      `ALTER TABLE page ADD CONSTRAINT press_page_refused CHECK (url NOT LIKE '%/poison' OR status <> 'done')`,
    );
    await t.db.prisma.$executeRawUnsafe(
      `ALTER TABLE crawl_url ADD CONSTRAINT refused_seed CHECK (url NOT LIKE '%/refused-seed%')`,
    );
  });
  afterAll(async () => {
    for (const app of extraApps) await app.stop();
    await t.stop();
    await web.close();
  });

  const url = (path: string) => web.url('hostile.test', path);
  const until = (what: string, read: () => Promise<any>, ok: (v: any) => boolean, ms = 120_000) =>
    pollUntil(what, read, ok, { timeoutMs: ms, everyMs: 250 });
  const ended = (b: { status?: string }) => typeof b.status === 'string' && !['queued', 'running'].includes(b.status);
  const gaveUp = /^the page was read but could not be stored \(gave up after 5 tries\)$/;

  it('settles a single scrape whose row can never be stored: an error row with the reason, the job ended', async () => {
    const res = await t.call('POST', '/scrape', { key, body: { url: url('/poison'), timeout: 120 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'done',
      progress: { done: 1, total: 1, queued: 0 },
      counts: { error: 1 },
    });
    // It was read and charged (the fetch happened): the row says so, without a body.
    expect(res.body.data[0]).toMatchObject({ status: 'error', httpStatus: 200, method: 'http', credits: 1 });
    expect(res.body.data[0].reason).toMatch(gaveUp);
    expect(res.body.creditsUsed).toBe(1);
  }, 150_000);

  it('settles it inside a batch, the other pages read', async () => {
    const res = await t.call('POST', '/scrape', { key, body: { urls: [url('/p/0'), url('/poison'), url('/p/1')] } });
    expect(res.status).toBe(202);
    const job = await until(
      'the batch',
      async () => (await t.call('GET', `/scrape/${res.body.id}`, { key })).body,
      ended,
    );
    expect(job).toMatchObject({
      status: 'done',
      progress: { done: 3, total: 3, queued: 0 },
      counts: { ok: 2, error: 1 },
    });
    expect(job.data.map((r: any) => r.status)).toEqual(['done', 'error', 'done']);
    expect(job.data[1].reason).toMatch(gaveUp);
  });

  it('settles it inside a crawl without trying it again, and the crawl ends', async () => {
    const res = await t.call('POST', '/crawl', { key, body: { url: url('/'), limit: 100 } });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const job = await until(
      'the crawl',
      async () => (await t.call('GET', `/crawl/${id}?formats=&limit=100`, { key })).body,
      ended,
      180_000,
    );
    expect(job).toMatchObject({ status: 'done', stop: 'exhausted', progress: { queued: 0 } });
    expect(job.counts.error).toBe(1);
    const press = job.data.find((r: any) => new URL(r.url).pathname === '/poison');
    expect(press).toMatchObject({ status: 'error', httpStatus: 200 });
    expect(press.reason).toMatch(gaveUp);
    const row = await t.db.prisma.crawlUrl.findFirstOrThrow({
      where: { runId: job.runId, url: { endsWith: '/poison' } },
    });
    expect(row).toMatchObject({ state: 'done', attempts: 1 });
  }, 200_000);

  it('ends a crawl whose start can never be stored as an error with the reason', async () => {
    const res = await t.call('POST', '/crawl', { key, body: { url: url('/refused-seed') } });
    expect(res.status).toBe(202);
    const job = await until(
      'the crawl',
      async () => (await t.call('GET', `/crawl/${res.body.id}`, { key })).body,
      ended,
      120_000,
    );
    expect(job).toMatchObject({ status: 'error', stop: 'error' });
    expect(job.error).toMatch(/^the crawl could not start \(internal, 5 tries\)/);
  }, 150_000);

  it('counts a page whose work is lost on every dispatch as an attempt, and settles it once its tries are spent', async () => {
    // No scrape worker takes pages any more; a crawl worker that calls a dispatch lost after 1.5 s.
    await t.fleet.stopService('scrape');
    const app = await crawl.buildApp(
      crawl.loadConfig({
        ...process.env,
        ...t.env,
        MAP_GRPC_URL: t.fleet.grpc.map,
        SCRAPE_GRPC_URL: t.fleet.grpc.scrape,
        CRAWL_GRPC_LISTEN: '127.0.0.1:0',
        CRAWL_STALE_MS: '1500',
      }),
    );
    extraApps.push(app);
    await app.start();
    const res = await t.call('POST', '/crawl', { key, body: { url: url('/p/2'), useSitemap: false } });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    await until('the crawl', () => t.db.prisma.job.findUniqueOrThrow({ where: { id } }), ended, 60_000);

    // A scrape worker again (at the address the gateway calls), the lost dispatches dropped first
    // so it cannot answer them now: the crawl's page reads as what happened to it.
    const bus = await Bus.connect({
      url: TEST_INFRA.natsUrl,
      prefix: t.env.NATS_PREFIX!,
      name: 'test',
      logger: createLogger('test', 'silent'),
    });
    expect(await bus.purgeWork('work.scrape.crawl')).toBe(3);
    await bus.close();
    const scraper = await scrape.buildApp(
      scrape.loadConfig({
        ...process.env,
        ...t.env,
        BILLING_GRPC_URL: t.fleet.grpc.billing,
        SCRAPE_GRPC_LISTEN: t.fleet.grpc.scrape,
      }),
    );
    extraApps.push(scraper);
    await scraper.start();
    const job = (await t.call('GET', `/crawl/${id}`, { key })).body;
    // Nothing was read: the crawl failed, and says what happened to its one page.
    expect(job).toMatchObject({ status: 'error', stop: 'error', progress: { done: 1, total: 1, queued: 0 } });
    expect(job.counts).toEqual({ error: 1 });
    expect(job.data).toHaveLength(1);
    expect(job.data[0]).toMatchObject({ status: 'error', url: url('/p/2') });
    expect(job.data[0].reason).toMatch(/work was lost or failed \(3 tries\)/);
    const row = await t.db.prisma.crawlUrl.findFirstOrThrow({ where: { runId: job.runId } });
    expect(row).toMatchObject({ state: 'done', attempts: 3 });
    const stored = await t.db.prisma.job.findUniqueOrThrow({ where: { id } });
    expect((stored.result as { log: { message: string }[] }).log.map((l) => l.message).join('\n')).toMatch(
      /1 pages unanswered after 3 tries given up/,
    );
  }, 90_000);
});
