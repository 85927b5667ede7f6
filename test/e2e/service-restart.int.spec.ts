import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as billing from '@tidemark/billing';
import * as crawl from '@tidemark/crawl';
import * as scrape from '@tidemark/scrape';
import { startTestWeb, treeSite, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { restartableAddress } from '../support/ports.js';
import { until as pollUntil } from '../support/until.js';

/** Pages of the crawled site (and its root), each slow enough that the crawl is running while billing is away. */
const PAGES = 100;
const PAGE_DELAY_MS = 60;

/** A site of `pages` pages /p/N, each answered after `delayMs`, whose fetches of /p/N are pushed to `fetches`. */
const slowTreeSite = (web: TestWeb, host: string, pages: number, delayMs: number, fetches: string[]) => {
  const tree = treeSite(pages);
  const page = tree['*'] as Extract<(typeof tree)[string], (req: IncomingMessage) => unknown>;
  web.addSite(host, {
    ...tree,
    '*': (req: IncomingMessage) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (/^\/p\/\d+$/.test(path)) fetches.push(path);
      return { ...page(req), delayMs };
    },
  });
};

/** A fleet on the test web and a workspace on the growth plan. */
const fleetWithWorkspace = async (web: TestWeb, name: string, env: Record<string, string> = {}) => {
  // The services the tests restart listen where no connection's local port can take their
  // address while they are down (restartableAddress).
  const [billingAt, crawlAt, scrapeAt] = [
    await restartableAddress(),
    await restartableAddress(),
    await restartableAddress(),
  ];
  const t = await startTestFleet({
    FETCH_HOST_MAP: web.hostMap,
    BILLING_GRPC_LISTEN: billingAt,
    BILLING_GRPC_URL: billingAt,
    CRAWL_GRPC_LISTEN: crawlAt,
    CRAWL_GRPC_URL: crawlAt,
    SCRAPE_GRPC_LISTEN: scrapeAt,
    SCRAPE_GRPC_URL: scrapeAt,
    ...env,
  });
  const ws = await t.createWorkspace(name);
  await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
  return { t, key: ws.apiKey, workspaceId: ws.workspaceId };
};

const until = <T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 120_000) =>
  pollUntil(what, read, ok, { timeoutMs: ms, everyMs: 50 });

/**
 * A service goes away in the middle of a leased crawl (a restart, a rolling upgrade) and comes
 * back at its address a few seconds later: the crawl waits it out and ends as if nothing had
 * happened. Billing: before, a few seconds of it gave each page its every try at once, settled
 * failed without a row, its links never followed. Crawl: the holder's pulls fail until it is back.
 */
describe('a service restarted in the middle of a leased crawl', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let workspaceId: string;
  let restarted: billing.BillingApp | null = null;
  let crawlAgain: crawl.CrawlApp | null = null;
  let scrapeAgain: scrape.ScrapeApp | null = null;
  /** Each /p/N fetched, in order (emptied for each test). */
  const fetches: string[] = [];

  beforeAll(async () => {
    web = await startTestWeb();
    slowTreeSite(web, 'outage.test', PAGES, PAGE_DELAY_MS, fetches);
    ({ t, key, workspaceId } = await fleetWithWorkspace(web, 'outage', { CRAWL_ENGINE: 'leased' }));
  }, 60_000);
  afterAll(async () => {
    await scrapeAgain?.stop();
    await crawlAgain?.stop();
    await restarted?.stop();
    await t?.stop();
    await web?.close();
  });

  const jobOf = (id: string) => t.db.prisma.job.findUniqueOrThrow({ where: { id } });

  /** Starts a crawl of the site and waits for 5 of its pages. */
  const crawlStarted = async () => {
    fetches.length = 0;
    const res = await t.call('POST', '/crawl', {
      key,
      body: { url: web.url('outage.test', '/'), limit: 2 * PAGES, concurrency: 2, useSitemap: false },
    });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    await until(
      'pages to settle',
      () => jobOf(id),
      (j) => (j.progress as { done: number }).done >= 5,
    );
    return id;
  };

  /** The crawl ended as if nothing had happened: every page fetched, stored and charged once. */
  const endsWhole = async (id: string) => {
    const job = await until(
      'the end',
      () => jobOf(id),
      (j) => !['queued', 'running'].includes(j.status),
    );
    expect(job).toMatchObject({
      status: 'done',
      progress: { done: PAGES + 1, total: PAGES + 1, queued: 0 },
      creditsUsed: PAGES + 1,
    });
    expect((job.counts as Record<string, number>).error ?? 0).toBe(0);
    expect(fetches).toHaveLength(PAGES);
    expect(new Set(fetches).size).toBe(PAGES);
    const rows = await t.db.prisma.page.findMany({ where: { runId: job.runId! }, select: { status: true } });
    expect(rows).toHaveLength(PAGES + 1);
    expect(rows.every((r) => r.status === 'done')).toBe(true);
    const charges = await until(
      'every charge',
      () =>
        t.db.prisma.ledgerEntry.findMany({
          where: { workspaceId, kind: 'charge', reference: { startsWith: `page:${id}:` } },
        }),
      (c) => c.length >= PAGES + 1,
    );
    expect(charges).toHaveLength(PAGES + 1);
    expect(new Set(charges.map((c) => c.reference.split(':').slice(0, 3).join(':'))).size).toBe(PAGES + 1);
    expect(charges.reduce((sum, c) => sum + Math.abs(c.credits), 0)).toBe(PAGES + 1);
    return job;
  };

  it('pauses the crawl while billing is away and goes on when it is back: every page read, stored and charged once', async () => {
    const id = await crawlStarted();
    // Billing stops (its listener closes) and comes back at the same address 4 s later.
    const address = t.fleet.grpc.billing;
    await t.fleet.stopService('billing');
    await new Promise((r) => setTimeout(r, 4000));
    // Nothing failed meanwhile: the crawl waits (what a block held before may have been read).
    const during = await jobOf(id);
    expect(during.status).toBe('running');
    expect((during.counts as Record<string, number>).error ?? 0).toBe(0);
    expect((during.progress as { done: number }).done).toBeLessThan(PAGES + 1);
    restarted = await billing.buildApp(billing.loadConfig({ ...process.env, ...t.env, BILLING_GRPC_LISTEN: address }));
    await restarted.start();
    await endsWhole(id);
  }, 150_000);

  it("waits out the crawl service's restart: the holder's pulls fail until it is back, and it keeps its slot", async () => {
    const id = await crawlStarted();
    const address = t.fleet.grpc.crawl;
    await t.fleet.stopService('crawl');
    await new Promise((r) => setTimeout(r, 4000));
    expect((await jobOf(id)).status).toBe('running');
    crawlAgain = await crawl.buildApp(
      crawl.loadConfig({
        ...process.env,
        ...t.env,
        CRAWL_GRPC_LISTEN: address,
        MAP_GRPC_URL: t.fleet.grpc.map,
        SCRAPE_GRPC_URL: t.fleet.grpc.scrape,
      }),
    );
    await crawlAgain.start();
    const job = await endsWhole(id);
    expect((job.result as { leases: unknown[] }).leases).toEqual([
      expect.objectContaining({ generation: 0, delivery: 1 }),
    ]);
  }, 150_000);

  it("waits out the scrape service's restart: the holder lets its slot go as it stops, and the next one takes it at once", async () => {
    const id = await crawlStarted();
    const address = t.fleet.grpc.scrape;
    // A graceful stop: what is in flight is finished and handed back, what waits is given back.
    await t.fleet.stopService('scrape');
    expect((await jobOf(id)).result).toMatchObject({ leases: [{ generation: 0, delivery: 1, released: true }] });
    await new Promise((r) => setTimeout(r, 2000));
    expect((await jobOf(id)).status).toBe('running');
    scrapeAgain = await scrape.buildApp(
      scrape.loadConfig({
        ...process.env,
        ...t.env,
        SCRAPE_GRPC_LISTEN: address,
        BILLING_GRPC_URL: t.fleet.grpc.billing,
        CRAWL_GRPC_URL: t.fleet.grpc.crawl,
      }),
    );
    await scrapeAgain.start();
    const job = await endsWhole(id);
    // The message it sent back went to the new worker, which took the slot (no longer let go).
    const [lease] = (job.result as { leases: { generation: number; released?: boolean }[] }).leases;
    expect(lease).toMatchObject({ generation: 0 });
    expect(lease!.released).toBeUndefined();
  }, 150_000);
});

/**
 * Billing goes away for longer than a batch page's five deliveries used to outlast (1 + 2 + 4 + 8
 * s of backoff: the pages then failed for good, each fetched up to five times): a worker's page
 * now waits it out (outlastingOutages), with what it has fetched and read.
 */
describe('a batch scrape while billing restarts', () => {
  const BATCH = 30;
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let workspaceId: string;
  let restarted: billing.BillingApp | null = null;
  const fetches: string[] = [];

  beforeAll(async () => {
    web = await startTestWeb();
    slowTreeSite(web, 'batch-outage.test', BATCH, 150, fetches);
    ({ t, key, workspaceId } = await fleetWithWorkspace(web, 'batch-outage'));
  }, 60_000);
  afterAll(async () => {
    await restarted?.stop();
    await t?.stop();
    await web?.close();
  });

  it('waits billing out past the old redeliveries: every page read, fetched, stored and charged once', async () => {
    const urls = Array.from({ length: BATCH }, (_, i) => web.url('batch-outage.test', `/p/${i}`));
    const res = await t.call('POST', '/scrape', { key, body: { urls, config: { fetch: { concurrency: 2 } } } });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const jobOf = () => t.db.prisma.job.findUniqueOrThrow({ where: { id } });
    await until('pages to settle', jobOf, (j) => (j.progress as { done: number }).done >= 3);
    const address = t.fleet.grpc.billing;
    await t.fleet.stopService('billing');
    // Longer than the old ladder of redeliveries (~15 s).
    await new Promise((r) => setTimeout(r, 20_000));
    const during = await jobOf();
    expect(during.status).toBe('running');
    expect((during.counts as Record<string, number>).error ?? 0).toBe(0);
    restarted = await billing.buildApp(billing.loadConfig({ ...process.env, ...t.env, BILLING_GRPC_LISTEN: address }));
    await restarted.start();
    const job = await until('the end', jobOf, (j) => !['queued', 'running'].includes(j.status));
    expect(job).toMatchObject({
      status: 'done',
      progress: { done: BATCH, total: BATCH, queued: 0 },
      creditsUsed: BATCH,
    });
    expect(job.counts).toMatchObject({ ok: BATCH });
    const rows = await t.db.prisma.page.findMany({ where: { jobId: id }, select: { status: true, verdict: true } });
    expect(rows).toHaveLength(BATCH);
    expect(rows.every((r) => r.status === 'done' && r.verdict === 'ok')).toBe(true);
    // Each page fetched once: a page whose charge failed was not fetched again for it.
    expect(fetches).toHaveLength(BATCH);
    expect(new Set(fetches).size).toBe(BATCH);
    const charges = await until(
      'every charge',
      () =>
        t.db.prisma.ledgerEntry.findMany({
          where: { workspaceId, kind: 'charge', reference: { startsWith: `page:${id}:` } },
        }),
      (c) => c.length >= BATCH,
    );
    expect(charges).toHaveLength(BATCH);
    expect(charges.reduce((sum, c) => sum + Math.abs(c.credits), 0)).toBe(BATCH);
  }, 180_000);
});
