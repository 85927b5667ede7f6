// The crawl bench's crawl (the realistic news site, `benchSite`) through three fleets, each in a
// process tree of its own (test/bench/fleet-runner.ts): the fleet in one process, the fleet in
// processes with one scrape and one crawl worker, and with two of each. Prints each fleet's
// start time, its memory once started, its pages/s and its peak memory (processes summed).
// BENCH_REPLICAS_ENGINE=leased crawls on the leased engine, a lease slot a replica (ADR 14).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { benchSite, startTestWeb } from '@tidemark/testkit';

const PAGES = Number(process.env.BENCH_CRAWL_PAGES ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CRAWL_CONCURRENCY ?? 10);
/** Rounds of the three fleets, in turn, so a slow moment of the machine does not decide. */
const ROUNDS = Number(process.env.BENCH_REPLICAS_ROUNDS ?? 1);
const runner = fileURLToPath(new URL('./fleet-runner.ts', import.meta.url));

interface Figures {
  startSeconds: number;
  startRssMb: number;
  pages: number;
  seconds: number;
  /** The fleet's CPU time over the crawl (every process and thread), per page. */
  cpuMsPerPage: number;
  /** The same by service (replicas summed); the fleet in one process is one entry, `fleet`. */
  cpuMsByService: Record<string, number>;
  peakRssMb: number;
}

const FLEETS = [
  { label: 'one process              ', mode: 'one-process', replicas: 1 },
  { label: 'processes, 1 scrape+crawl', mode: 'processes', replicas: 1 },
  { label: 'processes, 2 scrape+crawl', mode: 'processes', replicas: 2 },
] as const;

const run = async (mode: string, replicas: number, seed: string): Promise<Figures> => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', runner, mode, String(replicas), seed, String(PAGES + 1), String(CONCURRENCY)],
    { env: { ...process.env, LOG_LEVEL: 'silent' }, maxBuffer: 16 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Figures;
};

export async function benchReplicas(): Promise<string> {
  const web = await startTestWeb();
  // As in the crawl bench: the site is larger than the limit, so every fleet stops at the limit.
  web.addSite('127.0.0.1', benchSite(Math.ceil(PAGES * 1.5)));
  const seed = `http://127.0.0.1:${web.port}/`;
  const lines = [
    `crawl of ${PAGES + 1} pages of the crawl bench's site, ${CONCURRENCY} in flight, each fleet in its own process tree (no browser pool), ${process.env.BENCH_REPLICAS_ENGINE === 'leased' ? 'leased engine, a lease slot a replica' : 'paged engine'}`,
  ];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      lines.push(`  round ${round}`);
      for (const fleet of FLEETS) {
        const f = await run(fleet.mode, fleet.replicas, seed);
        if (f.pages < PAGES)
          throw new Error(`${fleet.mode} crawled ${f.pages} of ${PAGES + 1} pages; the figure would lie`);
        lines.push(
          `    ${fleet.label}  ${(f.pages / f.seconds).toFixed(0).padStart(5)} pages/s  ${f.cpuMsPerPage.toFixed(1).padStart(5)} CPU ms/page  peak RSS ${String(f.peakRssMb).padStart(5)} MB  started in ${f.startSeconds.toFixed(1).padStart(4)} s at ${f.startRssMb} MB`,
        );
        if (fleet.mode === 'processes')
          lines.push(
            `      CPU ms/page by service: ${Object.entries(f.cpuMsByService)
              .sort((a, b) => b[1] - a[1])
              .map(([name, ms]) => `${name} ${ms.toFixed(1)}`)
              .join(', ')}`,
          );
      }
    }
    return lines.join('\n');
  } finally {
    await web.close();
  }
}
