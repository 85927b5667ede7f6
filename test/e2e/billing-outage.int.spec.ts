import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as billing from '@tidemark/billing';
import { startTestWeb, treeSite, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

/** Pages of the crawled site (and its root), each slow enough that the crawl is running while billing is away. */
const PAGES = 100;
const PAGE_DELAY_MS = 60;

/**
 * Billing goes away mid-crawl (a restart, a rolling upgrade) and comes back: a leased crawl's
 * holder waits it out. Before, a few seconds of it gave each page its every try at once: the
 * pages were settled failed without a row, and their links never followed.
 */
describe('billing out of reach for a few seconds in the middle of a crawl', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let workspaceId: string;
  let restarted: billing.BillingApp | null = null;
  /** Each /p/N fetched, in order. */
  const fetches: string[] = [];

  beforeAll(async () => {
    web = await startTestWeb();
    const tree = treeSite(PAGES);
    const page = tree['*'] as Extract<(typeof tree)[string], (req: IncomingMessage) => unknown>;
    web.addSite('outage.test', {
      ...tree,
      '*': (req: IncomingMessage) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (/^\/p\/\d+$/.test(path)) fetches.push(path);
        return { ...page(req), delayMs: PAGE_DELAY_MS };
      },
    });
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_ENGINE: 'leased' });
    const ws = await t.createWorkspace('outage');
    key = ws.apiKey;
    workspaceId = ws.workspaceId;
    await t.db.prisma.workspace.update({ where: { id: workspaceId }, data: { plan: 'growth' } });
  }, 60_000);
  afterAll(async () => {
    await restarted?.stop();
    await t?.stop();
    await web?.close();
  });

  const jobOf = (id: string) => t.db.prisma.job.findUniqueOrThrow({ where: { id } });
  const until = async <T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 90_000) => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await read();
      if (ok(v)) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 400)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('pauses the crawl while billing is away and goes on when it is back: every page read, stored and charged once', async () => {
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

    // Billing stops (its listener closes) and comes back at the same address 4 s later.
    const address = t.fleet.grpc.billing;
    await t.fleet.stopService('billing');
    const stoppedAt = fetches.length;
    await new Promise((r) => setTimeout(r, 4000));
    // Nothing was read meanwhile but what could be paid for before it went (a held block).
    const during = await jobOf(id);
    expect(during.status).toBe('running');
    expect((during.counts as Record<string, number>).error ?? 0).toBe(0);
    restarted = await billing.buildApp(billing.loadConfig({ ...process.env, ...t.env, BILLING_GRPC_LISTEN: address }));
    await restarted.start();

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
    expect(fetches.length).toBeGreaterThan(stoppedAt);
    // Every page fetched once, its row stored once, read.
    expect(fetches).toHaveLength(PAGES);
    expect(new Set(fetches).size).toBe(PAGES);
    const rows = await t.db.prisma.page.findMany({ where: { runId: job.runId! }, select: { url: true, status: true } });
    expect(rows).toHaveLength(PAGES + 1);
    expect(rows.every((r) => r.status === 'done')).toBe(true);
    // Charged once each, the pages whose charge went out while billing was away included.
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
  }, 150_000);
});
