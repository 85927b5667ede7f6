import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as crawl from '@tidemark/crawl';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { heapAfterGc, MB, readJsonlSlowly } from '../support/memory.js';

const workerScript = fileURLToPath(new URL('../support/crawl-worker.ts', import.meta.url));

describe('crawls at scale: 10,000 pages, and crawl workers that come and go', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let workspaceId: string;
  const children: ChildProcess[] = [];
  const extraApps: crawl.CrawlApp[] = [];

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({
      FETCH_HOST_MAP: web.hostMap,
      CRAWL_TICK_MS: '100',
      CRAWL_ACK_WAIT_MS: '3000',
      // Crawl workers come and go here at addresses of their own: a leased crawl's holder reaches
      // the crawl at one address (a Service, or every replica's), so this is the paged engine's.
      CRAWL_ENGINE: 'paged',
    });
    const ws = await t.createWorkspace('scale');
    key = ws.apiKey;
    workspaceId = ws.workspaceId;
    await t.db.prisma.workspace.update({ where: { id: workspaceId }, data: { plan: 'growth' } });
    await t.db.prisma.ledgerEntry.create({
      data: { id: 'led_scale', workspaceId, kind: 'grant', reason: 'test', credits: 100_000, reference: 'scale' },
    });
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    for (const app of extraApps) await app.stop();
    await t.stop();
    await web.close();
  });

  /** The job as stored (read from the database: the gateway's crawl service may be gone). */
  const jobOf = (id: string) => t.db.prisma.job.findUniqueOrThrow({ where: { id } });
  const progressOf = async (id: string) => (await jobOf(id)).progress as { done: number; total: number };
  const waitFor = async (what: string, ok: () => Promise<boolean>, timeoutMs: number) => {
    const until = Date.now() + timeoutMs;
    while (!(await ok())) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  /** Every page of a tree site was fetched exactly once. */
  const expectEachFetchedOnce = (host: string, pages: number) => {
    const counts = new Map<string, number>();
    for (const h of web.hits)
      if (h.host === host && h.path !== '/robots.txt' && h.path !== '/sitemap.xml')
        counts.set(h.path, (counts.get(h.path) ?? 0) + 1);
    expect(counts.size).toBe(pages);
    expect([...counts.entries()].filter(([, n]) => n !== 1)).toEqual([]);
  };
  const workerEnv = () => ({
    ...process.env,
    ...t.env,
    MAP_GRPC_URL: t.fleet.grpc.map,
    SCRAPE_GRPC_URL: t.fleet.grpc.scrape,
    CRAWL_GRPC_LISTEN: '127.0.0.1:0',
  });

  it('crawls a 10,000-page site to the end, each page once, with memory that does not grow with the site', async () => {
    const res = await t.call('POST', '/crawl', {
      key,
      body: { url: web.url('big.test', '/'), limit: 20_000, concurrency: 8, useSitemap: false },
    });
    expect(res.status).toBe(202);
    const id = res.body.id as string;

    await waitFor('2,000 pages', async () => (await progressOf(id)).done >= 2000, 600_000);
    const early = heapAfterGc();
    await waitFor('the end', async () => !['queued', 'running'].includes((await jobOf(id)).status), 900_000);
    const late = heapAfterGc();

    const end = (await t.call('GET', `/crawl/${id}?formats=&limit=1`, { key })).body;
    expect(end).toMatchObject({
      status: 'done',
      stop: 'exhausted',
      progress: { done: 10_001, total: 10_001, queued: 0 },
      creditsUsed: 10_001,
    });
    // Whole, so a failure shows every verdict.
    expect(end.counts).toEqual({ ok: 10_000, thin: 1 });
    expectEachFetchedOnce('big.test', 10_001);
    const runId = (await jobOf(id)).runId!;
    expect(await t.db.prisma.page.count({ where: { runId } })).toBe(10_001);
    expect(await t.db.prisma.crawlUrl.count({ where: { runId, state: 'done' } })).toBe(10_001);
    // The frontier and the rows live in PostgreSQL: 8,000 more pages leave the heap where it was,
    // give or take what one batch of work in flight holds.
    expect((late - early) / MB).toBeLessThan(32);

    // Asked for 1,000 rows with bodies: pages of 100, said in the answer, and next goes on in 100s.
    const page1 = (await t.call('GET', `/crawl/${id}?limit=1000`, { key })).body;
    expect(page1.limit).toBe(100);
    expect(page1.data).toHaveLength(100);
    expect(page1.next).toMatch(/[?&]limit=100(&|$)/);
    const page2 = (await fetch(page1.next, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json())) as {
      data: { url: string }[];
    };
    expect(page2.data).toHaveLength(100);
    expect(new Set([...page1.data, ...page2.data].map((r: { url: string }) => r.url)).size).toBe(200);

    // Kept as a project, its 10,001 pages export as one streamed file, read slowly: the fleet
    // holds a batch or two of it at a time, never the file.
    const kept = await t.call('POST', `/crawl/${id}/keep`, { key, body: { name: 'Big' } });
    expect(kept.status).toBe(200);
    const file = await fetch(`${t.apiUrl}/projects/${kept.body.projectId}/export?dataset=markdown`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(file.status).toBe(200);
    const { urls, bytes, rest, peak } = await readJsonlSlowly(file, { sampleBytes: 4 * MB, pauseMs: 20 });
    expect(rest).toBe('');
    expect(urls.size).toBe(10_001);
    // About 8 MB went through; a fleet that buffered the file would have held all of it.
    expect(bytes / MB).toBeGreaterThan(7);
    expect(peak).toBeLessThan(bytes / 2);
  }, 1_200_000);

  it('shares one crawl between two workers; a killed worker loses no page and none is fetched twice', async () => {
    const worker = spawn(process.execPath, ['--import', 'tsx', workerScript], {
      env: workerEnv(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(worker);
    await new Promise<void>((resolve, reject) => {
      worker.stdout!.on('data', (b: Buffer) => b.toString().includes('ready') && resolve());
      worker.once('exit', (code) => reject(new Error(`crawl worker exited with ${code}`)));
    });

    // Both workers (this process's crawl service and the child) take the crawl's results.
    const res = await t.call('POST', '/crawl', {
      key,
      body: { url: web.url('tree.test', '/'), limit: 5000, concurrency: 8, useSitemap: false },
    });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    await waitFor('300 pages', async () => (await progressOf(id)).done >= 300, 300_000);

    // This process's crawl service stops: the child carries the crawl alone.
    await t.fleet.stopService('crawl');
    const alone = (await progressOf(id)).done;
    await waitFor('the child alone', async () => (await progressOf(id)).done >= alone + 300, 300_000);

    // Killed mid-crawl: no graceful stop, its unacked results and any open step are cut off.
    worker.kill('SIGKILL');
    await new Promise((r) => worker.once('exit', r));
    const atKill = await progressOf(id);
    expect(atKill.done).toBeLessThan(2001);

    // A fresh worker picks the crawl up from the frontier in PostgreSQL.
    const app = await crawl.buildApp(crawl.loadConfig(workerEnv()));
    extraApps.push(app);
    await app.start();
    await waitFor('the end', async () => !['queued', 'running'].includes((await jobOf(id)).status), 600_000);

    const job = await jobOf(id);
    expect(job).toMatchObject({ status: 'done', stop: 'exhausted', progress: { done: 2001, total: 2001, queued: 0 } });
    expectEachFetchedOnce('tree.test', 2001);
    expect(await t.db.prisma.page.count({ where: { runId: job.runId! } })).toBe(2001);
    expect(await t.db.prisma.crawlUrl.count({ where: { runId: job.runId!, state: 'done' } })).toBe(2001);
  }, 1_200_000);
});
