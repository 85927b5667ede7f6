// Two crawls of two workspaces on a worker that holds one lease at a time (SCRAPE_LEASES=1), the
// second asked for just after the first: without turns (SCRAPE_LEASE_TURN_MS=0) it waits for the
// first to end; with them the two share the worker a turn each. Prints when each crawl's first
// page and its end came, the pair's pages/s with and without turns (the baseline, in the same
// run), the turns taken and what a turn cost. Each fleet in this process, one after the other.
//   BENCH_TURNS_PAGES (2000 a crawl), BENCH_TURNS_MS (the turn, 2000), BENCH_CRAWL_CONCURRENCY (10)
import { benchSite, startTestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
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

export async function benchTurns(): Promise<string> {
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
}
