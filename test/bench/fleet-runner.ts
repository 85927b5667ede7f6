// One fleet of the replicas bench in its own process tree, so the figures printed are the fleet's:
//   node --import tsx fleet-runner.ts <one-process|processes> <replicas> <seed> <limit> <concurrency>
// prints one JSON line {startSeconds, startRssMb, pages, seconds, cpuMsPerPage, cpuMsByService,
// peakRssMb}. The fleet in one process is this process (its memory and CPU are this process's);
// the fleet in processes is its children, each service a process and the scrape and crawl workers
// `replicas` of each (their peak RSS is the sum of each child's peak, VmHWM: at least what they
// held at once, at most the sum; their CPU the sum of each child's, every thread). The clock of
// the start runs from before the fleet's modules are loaded to its last service ready.
import { benchWorkspace } from './bench-workspace.js';
import { crawlThroughApi } from './crawl-through-api.js';

const [mode, replicasArg, seed, limitArg, concurrencyArg] = process.argv.slice(2);
const replicas = Number(replicasArg);
const concurrency = Number(concurrencyArg);
const MB = 1024 * 1024;

// BENCH_REPLICAS_ENGINE=leased: the crawl on the leased engine (ADR 14), a lease slot a scrape
// replica (each worker takes one lease at a time, so two replicas hold one slot each).
const leased = process.env.BENCH_REPLICAS_ENGINE === 'leased';
const env = {
  FETCH_ALLOW_NETWORKS: '127.0.0.0/8',
  SCRAPE_CONCURRENCY: String(concurrency * 2),
  CRAWL_ENGINE: leased ? 'leased' : 'paged',
  ...(leased ? { CRAWL_LEASE_SLOTS: String(replicas), SCRAPE_LEASES: '1' } : {}),
  // The browser pool is left out of both (FLEET_BROWSER_POOL=0): the bench site needs no browser.
};
const t0 = performance.now();
const { startTestFleet, startTestProcessFleet } = await import('../support/fleet.js');
const t =
  mode === 'processes'
    ? await startTestProcessFleet(env, { replicas: { scrape: replicas, crawl: replicas } })
    : await startTestFleet(env);
const startSeconds = (performance.now() - t0) / 1000;
const memory = () =>
  'memory' in t.fleet
    ? t.fleet.memory()
    : { rss: process.memoryUsage().rss, peakRss: process.resourceUsage().maxRSS * 1024 };
/** CPU seconds so far by service (the fleet in one process: all of it under 'fleet'). */
const cpuSeconds = (): Map<string, number> => {
  const by = new Map<string, number>();
  if ('cpuSeconds' in t.fleet) for (const p of t.fleet.cpuSeconds()) by.set(p.name, (by.get(p.name) ?? 0) + p.seconds);
  else {
    const { user, system } = process.cpuUsage();
    by.set('fleet', (user + system) / 1e6);
  }
  return by;
};
const startRssMb = Math.round(memory().rss / MB);
try {
  const ws = await benchWorkspace(t);
  const cpu0 = cpuSeconds();
  const { pages, seconds } = await crawlThroughApi(t.call, ws.apiKey, {
    url: seed!,
    limit: Number(limitArg),
    concurrency,
  });
  const cpuMsByService = Object.fromEntries(
    [...cpuSeconds()].map(([name, sec]) => [name, ((sec - (cpu0.get(name) ?? 0)) * 1000) / pages]),
  );
  const cpuMsPerPage = Object.values(cpuMsByService).reduce((a, b) => a + b, 0);
  const peakRssMb = Math.round(memory().peakRss / MB);
  process.stdout.write(
    `${JSON.stringify({ startSeconds, startRssMb, pages, seconds, cpuMsPerPage, cpuMsByService, peakRssMb })}\n`,
  );
} finally {
  await t.stop();
}
process.exit(0);
