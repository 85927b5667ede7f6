// How the fleet's work is shared between jobs. Each fleet in this process, one after the other.
//
// Crawls taking turns: two crawls of two workspaces on a worker that holds one lease at a time
// (SCRAPE_LEASES=1), the second asked for just after the first: without turns
// (SCRAPE_LEASE_TURN_MS=0) it waits for the first to end; with them the two share the worker a
// turn each. Prints when each crawl's first page and its end came, the pair's pages/s with and
// without turns (the baseline, in the same run), the turns taken and what a turn cost.
//   BENCH_TURNS_PAGES (2000 a crawl), BENCH_TURNS_MS (the turn, 2000), BENCH_CRAWL_CONCURRENCY (10)
//
// A batch beside crawls: a batch job of one workspace (the scrape bench's 500 pages, 8 in flight)
// alone (the baseline) and while four crawls of another workspace run on the same worker, at the
// fleet's settings: the batch's pages/s both ways, and the crawls' meanwhile.
//   BENCH_SHARING_BATCH (500 pages), BENCH_SHARING_CRAWLS (4)
import { benchSite, startTestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { batchThroughApi } from './batch-through-api.js';
import { benchWorkspace } from './bench-workspace.js';

const PAGES = Number(process.env.BENCH_TURNS_PAGES ?? 2000);
const TURN_MS = Number(process.env.BENCH_TURNS_MS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CRAWL_CONCURRENCY ?? 10);

interface CrawlTimes {
  /** Seconds from the first crawl's start to this crawl's first page done, and to its end. */
  firstPage: number;
  end: number;
  pages: number;
  /** Times its lease slot was queued again (its last generation). */
  turns: number;
}

const crawlPair = async (hostMap: string, seeds: [string, string], turnMs: number): Promise<CrawlTimes[]> => {
  const t: TestFleet = await startTestFleet({
    FETCH_HOST_MAP: hostMap,
    CRAWL_ENGINE: 'leased',
    SCRAPE_LEASES: '1',
    SCRAPE_LEASE_TURN_MS: String(turnMs),
  });
  try {
    const workspaces = [await benchWorkspace(t), await benchWorkspace(t)];
    const t0 = performance.now();
    const ids: string[] = [];
    for (const [i, seed] of seeds.entries()) {
      const res = await t.call('POST', '/crawl', {
        key: workspaces[i]!.apiKey,
        body: { url: seed, limit: PAGES, concurrency: CONCURRENCY, useSitemap: false, respectRobots: false },
      });
      if (res.status !== 202) throw new Error(`crawl refused: ${JSON.stringify(res.body)}`);
      ids.push(res.body.id as string);
    }
    const times: (Partial<CrawlTimes> & { pages: number })[] = ids.map(() => ({ pages: 0 }));
    while (times.some((x) => x.end === undefined)) {
      const jobs = await t.db.prisma.job.findMany({ where: { id: { in: ids } } });
      const now = (performance.now() - t0) / 1000;
      for (const job of jobs) {
        const x = times[ids.indexOf(job.id)]!;
        const done = (job.progress as { done?: number } | null)?.done ?? 0;
        if (done > 0) x.firstPage ??= now;
        if (x.end === undefined && !['queued', 'running'].includes(job.status)) {
          x.end = now;
          x.pages = done;
          x.turns = (job.result as { leases?: { generation: number }[] }).leases?.[0]?.generation ?? 0;
        }
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return times as CrawlTimes[];
  } finally {
    await t.stop();
  }
};

const turns = async (): Promise<string> => {
  const web = await startTestWeb();
  web.addSite('first.test', benchSite(Math.ceil(PAGES * 1.5)));
  web.addSite('second.test', benchSite(Math.ceil(PAGES * 1.5), 20261128));
  const seeds: [string, string] = [web.url('first.test', '/'), web.url('second.test', '/')];
  const lines = [
    `two crawls of ${PAGES} pages (two workspaces, the crawl bench's site), ${CONCURRENCY} in flight each, on a worker that holds one lease (SCRAPE_LEASES=1); the second asked for right after the first`,
  ];
  try {
    // The fleets share this process, so its code warms up over the runs: a pair first, untimed,
    // then the two modes in turn, each twice (off, on, on, off).
    await crawlPair(web.hostMap, seeds, 0);
    const rows: [string, CrawlTimes[]][] = [];
    for (const turnMs of [0, TURN_MS, TURN_MS, 0])
      rows.push([
        turnMs ? `a turn every ${TURN_MS} ms` : 'turns off (baseline)',
        await crawlPair(web.hostMap, seeds, turnMs),
      ]);
    const rate = (c: CrawlTimes[]) => (c[0]!.pages + c[1]!.pages) / Math.max(c[0]!.end, c[1]!.end);
    for (const [label, c] of rows) {
      if (c.some((x) => x.pages < PAGES))
        throw new Error(`${label}: a crawl did fewer than ${PAGES} pages: ${JSON.stringify(c)}`);
      lines.push(
        `  ${label.padEnd(22)} first crawl: first page ${c[0]!.firstPage.toFixed(1)} s, ended ${c[0]!.end.toFixed(1)} s; second crawl: first page ${c[1]!.firstPage.toFixed(1)} s, ended ${c[1]!.end.toFixed(1)} s; both ${rate(c).toFixed(0)} pages/s; turns ${c[0]!.turns + c[1]!.turns}`,
      );
    }
    const mean = (cs: CrawlTimes[][], of: (c: CrawlTimes[]) => number) => cs.reduce((a, c) => a + of(c), 0) / cs.length;
    const off = rows.filter(([label]) => label.startsWith('turns off')).map(([, c]) => c);
    const on = rows.filter(([label]) => !label.startsWith('turns off')).map(([, c]) => c);
    const end = (c: CrawlTimes[]) => Math.max(c[0]!.end, c[1]!.end);
    const turns = mean(on, (c) => c[0]!.turns + c[1]!.turns);
    const lostMs = (mean(on, end) - mean(off, end)) * 1000;
    lines.push(
      `  means: the second crawl's first page ${mean(off, (c) => c[1]!.firstPage).toFixed(1)} s → ${mean(on, (c) => c[1]!.firstPage).toFixed(1)} s; the pair's rate with turns ${(mean(on, rate) / mean(off, rate)).toFixed(3)}× without; both ended ${lostMs >= 0 ? '+' : ''}${lostMs.toFixed(0)} ms later over ${turns.toFixed(1)} turns`,
    );
  } finally {
    await web.close();
  }
  return lines.join('\n');
};

const BATCH = Number(process.env.BENCH_SHARING_BATCH ?? 500);
const CRAWLS = Number(process.env.BENCH_SHARING_CRAWLS ?? 4);
const HOSTS = ['a.share.test', 'b.share.test', 'c.share.test', 'd.share.test'];

const batchRate = (t: TestFleet, apiKey: string, urls: string[]) => batchThroughApi(t.call, apiKey, urls, 2);

const batchBesideCrawls = async (): Promise<string> => {
  const web = await startTestWeb();
  for (const host of HOSTS) web.addSite(host, benchSite(BATCH));
  for (let i = 0; i < CRAWLS; i++) web.addSite(`crawl${i}.share.test`, benchSite(5000, 20261122 + i));
  const urls = (tag: string) =>
    Array.from({ length: BATCH }, (_, i) => web.url(HOSTS[i % HOSTS.length]!, `/news/${i}?${tag}`));
  const t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_ENGINE: 'leased' });
  try {
    const batcher = await benchWorkspace(t);
    const crawler = await benchWorkspace(t);
    await batchRate(t, batcher.apiKey, urls('warm-up').slice(0, 200));
    const alone = await batchRate(t, batcher.apiKey, urls('alone'));
    const ids: string[] = [];
    for (let i = 0; i < CRAWLS; i++) {
      const res = await t.call('POST', '/crawl', {
        key: crawler.apiKey,
        body: { url: web.url(`crawl${i}.share.test`, '/'), limit: 4000, concurrency: CONCURRENCY, useSitemap: false },
      });
      if (res.status !== 202) throw new Error(`crawl refused: ${JSON.stringify(res.body)}`);
      ids.push(res.body.id as string);
    }
    const crawled = async () =>
      (await t.db.prisma.job.findMany({ where: { id: { in: ids } } })).reduce(
        (n, j) => n + ((j.progress as { done?: number } | null)?.done ?? 0),
        0,
      );
    // The crawls under way before the batch starts.
    while ((await crawled()) < 200 * CRAWLS) await new Promise((r) => setTimeout(r, 50));
    const before = await crawled();
    const t0 = performance.now();
    const beside = await batchRate(t, batcher.apiKey, urls('beside'));
    const crawlRate = ((await crawled()) - before) / ((performance.now() - t0) / 1000);
    const stillRunning = await t.db.prisma.job.count({ where: { id: { in: ids }, status: 'running' } });
    for (const id of ids) await t.call('DELETE', `/crawl/${id}`, { key: crawler.apiKey });
    return [
      `a batch job of ${BATCH} pages (one workspace, 2 in flight a host, 4 hosts) alone and beside ${CRAWLS} crawls of another workspace (${CONCURRENCY} in flight each) on the fleet's one scrape worker`,
      `  alone (baseline)       ${alone.toFixed(0).padStart(5)} pages/s`,
      `  beside ${CRAWLS} crawls        ${beside.toFixed(0).padStart(5)} pages/s (${(beside / alone).toFixed(3)}× alone); the crawls meanwhile ${crawlRate.toFixed(0)} pages/s, ${stillRunning} of ${CRAWLS} still running at the batch's end`,
    ].join('\n');
  } finally {
    await t.stop();
    await web.close();
  }
};

export async function benchSharing(): Promise<string> {
  return `${await turns()}\n\n${await batchBesideCrawls()}`;
}
