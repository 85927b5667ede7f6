// One side of the crawl bench in its own process, so its peak memory is its own:
//   node --import tsx crawl-runner.ts <crawlee|tidemark|leased|floor|checkpointed> <seed> <limit> <concurrency> [warm-up]
// prints one JSON line {pages, seconds, maxRssMb, warmUp}. The test web runs in the parent. With a
// warm-up of N pages, each side crawls N + limit pages in one crawl, and the clock runs from its
// N-th page to the crawl's end: both sides measured as services that have run a while (their code
// compiled by V8's optimiser, their pools and caches filled), the first N pages' rate reported
// beside as the cold figure. One crawl, not a warm-up crawl and a second one: a second
// CheerioCrawler in the same process ran at half its speed every other time (80 against 170
// pages/s, its core idle), which made Crawlee look slower than it is. Without a warm-up the clock
// runs from the crawl's start (Crawlee's crawler.run, our POST /v1/crawl) to its end; start-up is
// outside both.
import { randomUUID } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism } from 'node:os';
import { Bus } from '@tidemark/bus';
import { createLogger } from '@tidemark/telemetry';
import { createTestDatabase, TEST_INFRA, uniquePrefix } from '@tidemark/testkit';
import { BudgetedThreadPool } from '../../libs/thread-pool/src/index.js';
import { startTestFleet } from '../support/fleet.js';
import type { FloorTask } from './floor-reader.worker.js';
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

/** The fleet, its crawl engine paged (ADR 13, the default) or leased (ADR 14). */
const tidemark = async (engine: 'paged' | 'leased'): Promise<number> => {
  const t = await startTestFleet({
    FETCH_ALLOW_NETWORKS: '127.0.0.0/8',
    CRAWL_ENGINE: engine,
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

/** What the floor hands a checkpoint for each page it read. */
interface ReadPage {
  url: string;
  status: number;
  links: string[];
  bodies: Uint8Array;
}

/**
 * The floor: what any design must spend on a page of this crawl, in one process with nothing
 * around the work itself. got fetches (the fleet's own client) at the same concurrency, the
 * fleet's reading threads (one per core) do what the scrape service's reading does
 * (floor-reader.worker.ts), and the frontier is a Set in memory: no gateway, bus, database,
 * ledger, politeness or progress. Its rate is a ceiling for the fleet on this machine, not a
 * competitor: a crawl that stores its rows, bills them and survives a worker's death costs more.
 */
const floor = async (checkpoints?: Checkpoints): Promise<number> => {
  const { default: got } = await import('got');
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  // The fleet's own pool of reading threads, one per core, as the scrape service starts it.
  const threads = availableParallelism();
  const pool = new BudgetedThreadPool<FloorTask>({
    entry: new URL('./floor-reader.worker.ts', import.meta.url),
    threads,
    warm: threads,
    budgetMs: 60_000,
    heapMb: 1024,
    name: 'the floor reader',
    logger: createLogger('bench-floor', 'silent'),
    failure: (f) => new Error(f.kind === 'threw' ? f.message : `the floor reader failed (${f.kind})`),
  });
  const read = (url: string, html: string) => pool.run<{ links: string[]; bodies: Uint8Array }>({ url, html });
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
      const { links, bodies } = await read(res.url, res.body);
      await checkpoints?.add({ url, status: res.statusCode, links, bodies });
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
  await checkpoints?.flush();
  ended();
  await pool.close();
  agent.destroy();
  return pages - warmUpPages;
};

/**
 * Gathers items and writes them together: when `size` are waiting or `lingerMs` after the first,
 * one write at a time, in order. `add` answers when the item's write is done. (The scrape
 * service's CallBatcher does this with one call out; tests may not import a service's inside.)
 */
class Gathered<T> {
  private items: T[] = [];
  private waiters: (() => void)[] = [];
  private failures: ((err: unknown) => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly size: number,
    private readonly lingerMs: number,
    private readonly write: (items: T[]) => Promise<void>,
  ) {}

  add(item: T): Promise<void> {
    this.items.push(item);
    const written = new Promise<void>((resolve, reject) => {
      this.waiters.push(resolve);
      this.failures.push(reject);
    });
    if (this.items.length >= this.size) this.cut();
    else this.timer ??= setTimeout(() => this.cut(), this.lingerMs);
    return written;
  }

  async flush(): Promise<void> {
    this.cut();
    await this.writing;
  }

  private cut(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const [items, waiters, failures] = [this.items, this.waiters, this.failures];
    [this.items, this.waiters, this.failures] = [[], [], []];
    if (!items.length) return;
    this.writing = this.writing.then(() =>
      this.write(items).then(
        () => waiters.forEach((w) => w()),
        (err: unknown) => failures.forEach((f) => f(err)),
      ),
    );
  }
}

/**
 * The floor with the durable part of a crawl, written as a leased crawl worker would write it
 * (ADR 14, proposed; docs/performance.md, nineteenth round). A page's row and its charge in the
 * real ledger (its balance trigger included) are written in one statement with the pages read
 * within ROW_MS (at most ROW_PAGES together); the page's slot takes its next URL meanwhile
 * (BENCH_ROWS_AWAITED=1: only once the row is written, today's bound on what a dead worker
 * fetches again). The frontier's side is checkpointed in bulk: every CHECKPOINT_PAGES pages or
 * CHECKPOINT_MS, one transaction upserts the new URLs with their in-link counts and settles the
 * pages, and one crawl.page event goes on JetStream. The tables are copies of page and crawl_url
 * with their indexes (no foreign keys, so no job or run is needed). What it leaves out: the lease
 * of the next URLs (one statement a slice), politeness.
 */
const ROW_PAGES = Number(process.env.BENCH_ROW_PAGES ?? concurrency);
const ROW_MS = Number(process.env.BENCH_ROW_MS ?? 5);
const ROWS_AWAITED = process.env.BENCH_ROWS_AWAITED === '1';
const CHECKPOINT_PAGES = Number(process.env.BENCH_CHECKPOINT_PAGES ?? 100);
const CHECKPOINT_MS = Number(process.env.BENCH_CHECKPOINT_MS ?? 250);

class Checkpoints {
  private readonly rows = new Gathered<ReadPage>(ROW_PAGES, ROW_MS, (pages) => this.writeRows(pages));
  private readonly frontier = new Gathered<ReadPage>(CHECKPOINT_PAGES, CHECKPOINT_MS, (pages) =>
    this.checkpoint(pages),
  );
  private readonly keys = new Map<string, number>();
  private done = 0;

  private constructor(
    private readonly db: Awaited<ReturnType<typeof createTestDatabase>>,
    private readonly bus: Bus,
    private readonly runId: string,
    private readonly workspaceId: string,
  ) {}

  static async open(): Promise<Checkpoints> {
    const db = await createTestDatabase();
    await db.raw.$executeRawUnsafe('CREATE TABLE bench_page (LIKE page INCLUDING ALL)');
    await db.raw.$executeRawUnsafe('CREATE TABLE bench_crawl_url (LIKE crawl_url INCLUDING ALL)');
    const bus = await Bus.connect({
      url: TEST_INFRA.natsUrl,
      prefix: uniquePrefix(),
      name: 'bench-floor',
      logger: createLogger('bench-floor', 'silent'),
    });
    return new Checkpoints(db, bus, randomUUID(), randomUUID());
  }

  /**
   * Hands over a read page: its row and charge follow within ROW_MS (awaited with
   * BENCH_ROWS_AWAITED=1), its frontier side at the next checkpoint.
   */
  async add(page: ReadPage): Promise<void> {
    const written = this.rows.add(page);
    void this.frontier.add(page);
    if (ROWS_AWAITED) await written;
  }

  async flush(): Promise<void> {
    await this.rows.flush();
    await this.frontier.flush();
  }

  async close(): Promise<void> {
    await this.bus.destroyStreams();
    await this.bus.close();
    await this.db.drop();
  }

  /** A URL's position in the frontier: given when first seen, as the frontier's insert does. */
  private position(key: string): number {
    let at = this.keys.get(key);
    if (at === undefined) this.keys.set(key, (at = this.keys.size));
    return at;
  }

  /** The rows and their charges in one statement: one round trip, atomic without BEGIN and COMMIT. */
  private async writeRows(pages: ReadPage[]): Promise<void> {
    const { runId, workspaceId } = this;
    await this.db.raw.$executeRawUnsafe(
      `WITH rows AS (
         INSERT INTO bench_page (id, workspace_id, run_id, job_id, position, url, status, http_status, verdict, tier, credits, bodies, crawled_at)
         SELECT gen_random_uuid()::text, $1, $2, $2, t.position, t.url, 'done', t.status, 'ok', 'http', 1, t.bodies, $3
           FROM unnest($4::int[], $5::text[], $6::int[], $7::bytea[]) AS t(position, url, status, bodies)
         RETURNING position
       )
       INSERT INTO ledger_entry (id, workspace_id, kind, reason, credits, reference)
       SELECT gen_random_uuid()::text, $1, 'charge', 'page', -1, $2 || ':' || rows.position FROM rows`,
      workspaceId,
      runId,
      new Date(),
      pages.map((p) => this.position(p.url)),
      pages.map((p) => p.url),
      pages.map((p) => p.status),
      pages.map((p) => Buffer.from(p.bodies)),
    );
  }

  private async checkpoint(pages: ReadPage[]): Promise<void> {
    const now = new Date();
    const counts = new Map<string, number>();
    for (const p of pages)
      for (const link of new Set(p.links.map((l) => l.split('#')[0]!))) counts.set(link, (counts.get(link) ?? 0) + 1);
    const linked = [...counts.keys()];
    const { runId, workspaceId } = this;
    await this.db.raw.transaction(async (tx) => {
      await tx.$executeRawUnsafe(
        `INSERT INTO bench_crawl_url (run_id, url_key, url, host, position, depth, found_via, in_links)
         SELECT $1, t.url, t.url, 'bench', t.position, 1, 'link', t.n
           FROM unnest($2::text[], $3::int[], $4::int[]) AS t(url, position, n)
         ON CONFLICT (run_id, url_key) DO UPDATE SET in_links = bench_crawl_url.in_links + excluded.in_links`,
        runId,
        linked,
        linked.map((k) => this.position(k)),
        linked.map((k) => counts.get(k)!),
      );
      await tx.$executeRawUnsafe(
        `UPDATE bench_crawl_url c SET state = 'done', done_at = $2, verdict = 'ok', http_status = t.status, out_links = t.n
           FROM unnest($3::text[], $4::int[], $5::int[]) AS t(url, status, n)
          WHERE c.run_id = $1 AND c.url_key = t.url`,
        runId,
        now,
        pages.map((p) => p.url),
        pages.map((p) => p.status),
        pages.map((p) => p.links.length),
      );
    });
    this.done += pages.length;
    await this.bus.publishEvent(workspaceId, 'crawl.page', {
      jobId: runId,
      status: 'running',
      progress: { done: this.done, total: this.keys.size, queued: this.keys.size - this.done },
      creditsUsed: this.done,
      counts: { ok: this.done },
      stop: null,
      webhook: null,
    });
  }
}

const checkpointed = async (): Promise<number> => {
  const checkpoints = await Checkpoints.open();
  try {
    return await floor(checkpoints);
  } finally {
    await checkpoints.close();
  }
};

const pages =
  mode === 'crawlee'
    ? await crawlee()
    : mode === 'floor'
      ? await floor()
      : mode === 'checkpointed'
        ? await checkpointed()
        : await tidemark(mode === 'leased' ? 'leased' : 'paged');
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
