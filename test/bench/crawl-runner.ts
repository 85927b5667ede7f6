// One side of the crawl bench in its own process, so its peak memory is its own:
//   node --import tsx crawl-runner.ts <crawlee|tidemark|floor> <seed> <limit> <concurrency> [warm-up]
// prints one JSON line {pages, seconds, maxRssMb, warmUp}. The test web runs in the parent. With a
// warm-up of N pages, each side crawls N + limit pages in one crawl, and the clock runs from its
// N-th page to the crawl's end: both sides measured as services that have run a while (their code
// compiled by V8's optimiser, their pools and caches filled), the first N pages' rate reported
// beside as the cold figure. One crawl, not a warm-up crawl and a second one: a second
// CheerioCrawler in the same process ran at half its speed every other time (80 against 170
// pages/s, its core idle), which made Crawlee look slower than it is. Without a warm-up the clock
// runs from the crawl's start (Crawlee's crawler.run, our POST /v1/crawl) to its end; start-up is
// outside both.
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { startTestFleet } from '../support/fleet.js';
import { benchWorkspace } from './bench-workspace.js';

const [mode, seed, limitArg, concurrencyArg, warmUpArg] = process.argv.slice(2);
const limit = Number(limitArg);
const warmUpPages = Number(warmUpArg ?? 0);
/** The warm-up crawl's pages and seconds (the cold figure), when there was one. */
let warmUp: { pages: number; seconds: number } | null = null;
const samples = process.env.BENCH_CRAWL_SAMPLES;
const concurrency = Number(concurrencyArg);

let t0 = 0;
let cpu0 = process.cpuUsage();
/** Write and read syscalls of this process (sockets, pipes, eventfds): what a page costs the kernel. */
const syscalls = () => {
  const io = readFileSync('/proc/self/io', 'utf8');
  const n = (k: string) => Number(new RegExp(`${k}: (\\d+)`).exec(io)?.[1] ?? 0);
  return { w: n('syscw'), r: n('syscr') };
};
let io0 = { w: 0, r: 0 };
/**
 * CPU seconds spent so far by the servers both sides lean on differently (PostgreSQL's processes
 * and NATS; the fleet stores through them, Crawlee does not), read from /proc: a page's whole cost
 * is the side's own CPU plus theirs. Backends that exited during the crawl are not counted.
 */
const serverCpu = (): number => {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (name !== 'postgres' && name !== 'nats-server') continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // the process ended between the listing and the read
    }
  }
  return ticks / 100; // USER_HZ
};
let server0 = 0;
/**
 * CPU ticks of this process's threads: the event loop, then the others by id (Node names its
 * reading threads, V8's and libuv's pools all "node"; the busiest besides the loop is the reader).
 */
const threadCpu = (): Map<string, number> => {
  const byName = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name =
        tid === String(process.pid)
          ? 'event loop'
          : `${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}#${tid}`;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byName.set(name, (byName.get(name) ?? 0) + Number(fields[11]) + Number(fields[12]));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return byName;
};
let threads0 = new Map<string, number>();
/** Taken when the crawl is seen ended, before the fleet stops (its stop is not the crawl's time). */
let end:
  | { at: number; cpu: NodeJS.CpuUsage; io: { w: number; r: number }; serverCpu: number; threads: Map<string, number> }
  | undefined;
const ended = () =>
  (end = {
    at: performance.now(),
    cpu: process.cpuUsage(cpu0),
    io: syscalls(),
    serverCpu: serverCpu() - server0,
    threads: threadCpu(),
  });

const startClock = () => {
  t0 = performance.now();
  cpu0 = process.cpuUsage();
  io0 = syscalls();
  server0 = serverCpu();
  threads0 = threadCpu();
};

const crawlee = async (): Promise<number> => {
  const { CheerioCrawler, Configuration } = await import('crawlee');
  const config = new Configuration({ persistStorage: false, purgeOnStart: true });
  let pages = 0;
  const at = performance.now();
  const crawler = new CheerioCrawler(
    {
      minConcurrency: concurrency,
      maxConcurrency: concurrency,
      maxRequestsPerCrawl: warmUpPages + limit,
      maxRequestRetries: 0,
      requestHandler: async ({ enqueueLinks }) => {
        pages += 1;
        if (pages === warmUpPages) {
          warmUp = { pages, seconds: (performance.now() - at) / 1000 };
          startClock();
        }
        await enqueueLinks({ strategy: 'same-hostname' });
      },
    },
    config,
  );
  if (warmUpPages === 0) startClock();
  await crawler.run([seed!]);
  ended();
  return pages - warmUpPages;
};

const tidemark = async (): Promise<number> => {
  const t = await startTestFleet({
    FETCH_ALLOW_NETWORKS: '127.0.0.0/8',
    SCRAPE_CONCURRENCY: String(concurrency * 2),
    // BENCH_READ_THREADS: the scrape service's reading threads (default: one per core but one).
    ...(process.env.BENCH_READ_THREADS ? { SCRAPE_READ_THREADS: process.env.BENCH_READ_THREADS } : {}),
    // BENCH_FLEET_ENV='{"CRAWL_SETTLE_LINGER_MS":"0"}': any of the fleet's settings, for an A/B.
    ...(process.env.BENCH_FLEET_ENV ? (JSON.parse(process.env.BENCH_FLEET_ENV) as Record<string, string>) : {}),
  });
  try {
    const ws = await benchWorkspace(t);
    const at = performance.now();
    const res = await t.call('POST', '/crawl', {
      key: ws.apiKey,
      body: { url: seed, limit: warmUpPages + limit, concurrency, useSitemap: false, respectRobots: false },
    });
    if (res.status !== 202) throw new Error(`crawl refused: ${JSON.stringify(res.body)}`);
    let doneAtClock = 0;
    let timing = warmUpPages === 0;
    if (timing) startClock();
    let sampledAt = 0;
    for (;;) {
      const body = (await t.call('GET', `/crawl/${res.body.id}?formats=&limit=1`, { key: ws.apiKey })).body;
      if (!body.progress) throw new Error(`crawl read failed: ${JSON.stringify(body)}`);
      const done = body.progress.done as number;
      if (!timing && done >= warmUpPages) {
        warmUp = { pages: done, seconds: (performance.now() - at) / 1000 };
        doneAtClock = done;
        timing = true;
        startClock();
      }
      // BENCH_CRAWL_SAMPLES=<file>: a line a second of {s, done, rssMb} (the long crawl bench).
      if (timing && samples && performance.now() - sampledAt >= 1000) {
        sampledAt = performance.now();
        const rssMb = Math.round(process.memoryUsage.rss() / 2 ** 20);
        appendFileSync(samples, `${JSON.stringify({ s: (sampledAt - t0) / 1000, done, rssMb })}\n`);
      }
      if (!['queued', 'running'].includes(body.status)) {
        ended();
        return done - doneAtClock;
      }
      // Often near the warm-up's end, so the clock starts close to its page.
      await new Promise((r) => setTimeout(r, timing ? 100 : 20));
    }
  } finally {
    await t.stop();
  }
};

/**
 * The floor: what any design must spend on a page of this crawl, in one process with nothing
 * around the work itself. got fetches (the fleet's own client) at the same concurrency, the
 * fleet's reading threads (one per core) do what the scrape service's reading does
 * (floor-reader.worker.ts), and the frontier is a Set in memory: no gateway, bus, database,
 * ledger, politeness or progress. Its rate is a ceiling for the fleet on this machine, not a
 * competitor: a crawl that stores its rows, bills them and survives a worker's death costs more.
 */
const floor = async (): Promise<number> => {
  const { default: got } = await import('got');
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const boot = new URL('../../libs/thread-pool/src/worker-boot.mjs', import.meta.url);
  const entry = new URL('./floor-reader.worker.ts', import.meta.url).href;
  const pending = new Map<number, (links: string[]) => void>();
  const idle: Worker[] = [];
  const waiting: (() => void)[] = [];
  const threads = await Promise.all(
    Array.from({ length: Math.max(1, availableParallelism()) }, async () => {
      const w = new Worker(boot, { workerData: { entry }, execArgv: [] });
      await new Promise<void>((ready) =>
        w.on('message', (m: { ready?: true; id: number; links: string[] }) => {
          if (m.ready) return ready();
          pending.get(m.id)!(m.links);
          pending.delete(m.id);
          idle.push(w);
          waiting.shift()?.();
        }),
      );
      return w;
    }),
  );
  idle.push(...threads);
  let nextId = 0;
  const read = async (url: string, html: string): Promise<string[]> => {
    while (!idle.length) await new Promise<void>((r) => waiting.push(r));
    const w = idle.pop()!;
    const id = nextId++;
    return new Promise<string[]>((resolve) => {
      pending.set(id, resolve);
      w.postMessage({ id, url, html });
    });
  };
  const origin = new URL(seed!).origin;
  const seen = new Set<string>([seed!]);
  const queue: string[] = [seed!];
  const max = warmUpPages + limit;
  let started = 0;
  let pages = 0;
  const at = performance.now();
  if (warmUpPages === 0) startClock();
  const worker = async (): Promise<void> => {
    while (started < max) {
      const url = queue.shift();
      if (!url) {
        if (pages >= started) return; // nothing queued, nothing in flight that could queue more
        await new Promise((r) => setTimeout(r, 1));
        continue;
      }
      started += 1;
      const res = await got(url, { agent: { http: agent }, throwHttpErrors: false, retry: { limit: 0 } });
      const links = await read(res.url, res.body);
      pages += 1;
      if (pages === warmUpPages) {
        warmUp = { pages, seconds: (performance.now() - at) / 1000 };
        startClock();
      }
      for (const link of links) {
        const u = link.split('#')[0]!;
        if (u.startsWith(origin) && !seen.has(u)) {
          seen.add(u);
          queue.push(u);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  ended();
  await Promise.all(threads.map((w) => w.terminate()));
  agent.destroy();
  return pages - warmUpPages;
};

const pages = mode === 'crawlee' ? await crawlee() : mode === 'floor' ? await floor() : await tidemark();
const seconds = (end!.at - t0) / 1000;
const cpuSeconds = (end!.cpu.user + end!.cpu.system) / 1e6;
const writesPerPage = (end!.io.w - io0.w) / pages;
/** CPU ms a page by thread, over the crawl (threads started during it counted from zero). */
const threadMsPerPage = Object.fromEntries(
  [...end!.threads]
    .map(([name, ticks]) => [name, Math.round(((ticks - (threads0.get(name) ?? 0)) * 10_000) / pages) / 1000] as const)
    .filter(([, ms]) => ms > 0),
);
process.stdout.write(
  `${JSON.stringify({ pages, seconds, cpuSeconds, serverCpuSeconds: end!.serverCpu, writesPerPage, threadMsPerPage, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024), warmUp })}\n`,
);
process.exit(0);
