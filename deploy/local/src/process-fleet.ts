import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * The fleet with each service in an OS process of its own, the way the Helm chart deploys it:
 * `node --import tsx services/<name>/src/main.ts` per service (and per replica), all on one env.
 * Each main.ts, when it has an IPC channel, says where it listens once it has started, and stops
 * when that channel closes, so a launcher that dies (even by SIGKILL) leaves no service behind.
 */

/** The services of a fleet in processes (the names `startFleet` uses for them). */
export type ServiceName =
  'billing' | 'browserPool' | 'scrape' | 'map' | 'crawl' | 'diff' | 'export' | 'delivery' | 'gateway' | 'web' | 'agent';

interface ServiceSpec {
  name: ServiceName;
  /** The folder under services/. */
  dir: string;
  /** The prefix of its `_GRPC_LISTEN` and `_GRPC_URL` settings (gRPC services only). */
  grpc?: string;
}

const SERVICES: ServiceSpec[] = [
  { name: 'billing', dir: 'billing', grpc: 'BILLING' },
  { name: 'browserPool', dir: 'browser-pool', grpc: 'BROWSER_POOL' },
  { name: 'scrape', dir: 'scrape', grpc: 'SCRAPE' },
  { name: 'map', dir: 'map', grpc: 'MAP' },
  { name: 'crawl', dir: 'crawl', grpc: 'CRAWL' },
  { name: 'diff', dir: 'diff', grpc: 'DIFF' },
  { name: 'export', dir: 'export', grpc: 'EXPORT' },
  { name: 'delivery', dir: 'delivery', grpc: 'DELIVERY' },
  { name: 'gateway', dir: 'gateway' },
  { name: 'web', dir: 'web' },
  { name: 'agent', dir: 'agent' },
];

/**
 * Stopped in tiers, callers before what they call, so work in flight can finish: the HTTP faces,
 * then the services nothing but the gateway calls, then crawl (it dispatches to scrape), map,
 * scrape, the browser pool and billing last (every page's charge goes there).
 */
const STOP_TIERS: ServiceName[][] = [
  ['agent', 'web', 'gateway'],
  ['delivery', 'export', 'diff'],
  ['crawl'],
  ['map'],
  ['scrape'],
  ['browserPool'],
  ['billing'],
];

export interface ProcessFleetOptions {
  /** Processes of the workers that share work through JetStream (default 1 each). */
  replicas?: { scrape?: number; crawl?: number };
  /** Only these services (tests that need a few); the default is all of them. */
  only?: ServiceName[];
  /** How long one service may take to start before the fleet gives up (default 120 s). */
  readyTimeoutMs?: number;
  /** Settings of one process of its own on top of the fleet's (e.g. a replica's user agent). */
  replicaEnv?: (name: ServiceName, replica: number) => Record<string, string>;
}

export interface ServiceProcess {
  name: ServiceName;
  replica: number;
  pid: number;
  child: ChildProcess;
}

export interface ProcessFleet {
  /** The API root, ending in /v1. */
  apiUrl: string;
  webUrl: string;
  agentUrl: string;
  /** What each gRPC service's callers dial (a replicated service: every replica's address). */
  grpc: Partial<Record<ServiceName, string>>;
  /** The env every service was started with, gRPC addresses included. */
  env: Record<string, string>;
  processes: ServiceProcess[];
  /** Sends `signal` to one replica and waits for it to exit (failure tests). */
  kill(name: ServiceName, replica?: number, signal?: NodeJS.Signals): Promise<void>;
  /** The fleet's processes' resident memory, summed, in bytes: now, and each one's peak so far. */
  memory(): { rss: number; peakRss: number };
  /** CPU time each live process has used so far (user + system, every thread), in seconds. */
  cpuSeconds(): { name: ServiceName; replica: number; seconds: number }[];
  /** A workspace and its admin key, made by the operator's command (`pnpm tidemark workspace create`). */
  createWorkspace(name: string): Promise<{ workspaceId: string; apiKey: string }>;
  stop(): Promise<void>;
}

const root = fileURLToPath(new URL('../../../', import.meta.url));
const mainOf = (dir: string) => `${root}services/${dir}/src/main.ts`;
const STOP_WAIT_MS = 15_000;

/** A port free on `host` now (closed again before the service binds it: a small race, said so). */
export const freePort = (host: string) =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** host:port a client should dial for a server bound at `listen`. */
const dialOf = (listen: string) => listen.replace(/^(0\.0\.0\.0|\[::\]):/, '127.0.0.1:');

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

/** Resident memory of one process, from /proc (Linux): now and its peak (VmHWM). */
const memoryOf = (pid: number): { rss: number; peakRss: number } => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), peakRss: kb('VmHWM') };
  } catch {
    return { rss: 0, peakRss: 0 };
  }
};

/** CPU time of one process so far, from /proc (Linux), in seconds (clock ticks of 1/100 s). */
const cpuOf = (pid: number): number => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
};

/**
 * Starts the fleet, one process per service and replica. Every gRPC address is decided first
 * (the configured `_GRPC_LISTEN` for a service's first replica when it names a port, a free port
 * otherwise), so every service but the two that need the gateway's address (web, agent) starts
 * at once. A service that fails to start stops the fleet: every process started is killed.
 */
export const startProcessFleet = async (
  baseEnv: Record<string, string | undefined> = process.env,
  opts: ProcessFleetOptions = {},
): Promise<ProcessFleet> => {
  const env: Record<string, string> = Object.fromEntries(
    Object.entries({ ...process.env, ...baseEnv }).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const wanted = (name: ServiceName) =>
    (opts.only ? opts.only.includes(name) : true) && (name !== 'browserPool' || env.FLEET_BROWSER_POOL !== '0');
  const replicasOf = (name: ServiceName) =>
    name === 'scrape' ? (opts.replicas?.scrape ?? 1) : name === 'crawl' ? (opts.replicas?.crawl ?? 1) : 1;
  const specs = SERVICES.filter((s) => wanted(s.name));

  // Every gRPC listen address first, then what callers dial: a replicated service's callers get
  // every replica (`ipv4:a,b`: libs/rpc's clients take turns between them, skipping one that is down).
  const listens = new Map<string, string>();
  for (const s of specs) {
    if (!s.grpc) continue;
    const configured = env[`${s.grpc}_GRPC_LISTEN`];
    const host = configured?.replace(/:\d+$/, '') || '127.0.0.1';
    const dials: string[] = [];
    for (let r = 0; r < replicasOf(s.name); r++) {
      const listen = r === 0 && configured && !/:0$/.test(configured) ? configured : `${host}:${await freePort(host)}`;
      listens.set(`${s.name}/${r}`, listen);
      dials.push(dialOf(listen));
    }
    env[`${s.grpc}_GRPC_URL`] = dials.length === 1 ? dials[0]! : `ipv4:${dials.join(',')}`;
  }

  const processes: ServiceProcess[] = [];
  const started = new Map<string, Record<string, unknown>>();
  /** Ended on purpose (`kill`): not reported as a crash. */
  const killed = new Set<ChildProcess>();
  let stopping = false;
  const killAll = () => {
    for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  };
  // The launcher ends without stopping the fleet (an uncaught error): no service outlives it.
  process.once('exit', killAll);

  const launch = (s: ServiceSpec, replica: number, extra: Record<string, string> = {}) =>
    new Promise<void>((resolve, reject) => {
      const listen = s.grpc ? { [`${s.grpc}_GRPC_LISTEN`]: listens.get(`${s.name}/${replica}`)! } : {};
      const child = spawn(process.execPath, ['--import', 'tsx', mainOf(s.dir)], {
        cwd: root,
        env: { ...env, ...listen, ...extra, ...opts.replicaEnv?.(s.name, replica) },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      processes.push({ name: s.name, replica, pid: child.pid!, child });
      const what = `${s.name}${replicasOf(s.name) > 1 ? ` replica ${replica}` : ''}`;
      const timer = setTimeout(() => {
        reject(new Error(`${what} did not start within ${opts.readyTimeoutMs ?? 120_000} ms`));
      }, opts.readyTimeoutMs ?? 120_000);
      const onExit = (code: number | null, signal: string | null) => {
        clearTimeout(timer);
        reject(new Error(`${what} exited while starting (${signal ?? `code ${code}`})`));
      };
      child.once('exit', onExit);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.on('message', (msg: { started?: Record<string, unknown> }) => {
        if (!msg?.started) return;
        clearTimeout(timer);
        child.off('exit', onExit);
        started.set(`${s.name}/${replica}`, msg.started);
        // One that ends on its own later is said, and the rest run on (Kubernetes would restart it).
        child.once('exit', (code, signal) => {
          if (!stopping && !killed.has(child))
            process.stderr.write(
              `tidemark: ${what} (pid ${child.pid}) exited (${signal ?? `code ${code}`}); the rest run on\n`,
            );
        });
        resolve();
      });
    });

  const stopAll = async () => {
    stopping = true;
    process.off('exit', killAll);
    for (const tier of STOP_TIERS) {
      await Promise.all(
        processes
          .filter((p) => tier.includes(p.name))
          .map(async (p) => {
            if (p.child.exitCode !== null || p.child.signalCode !== null) return;
            p.child.kill('SIGTERM');
            const late = setTimeout(() => p.child.kill('SIGKILL'), STOP_WAIT_MS);
            await exited(p.child);
            clearTimeout(late);
          }),
      );
    }
  };

  try {
    const first = specs.filter((s) => s.name !== 'web' && s.name !== 'agent');
    await Promise.all(first.flatMap((s) => Array.from({ length: replicasOf(s.name) }, (_, r) => launch(s, r))));
    const gateway = started.get('gateway/0') as { port: number; url: string } | undefined;
    const gatewayHost = (env.GATEWAY_HOST ?? '127.0.0.1').replace(/^0\.0\.0\.0$|^::$/, '127.0.0.1');
    const apiUrl = gateway ? `http://${gatewayHost}:${gateway.port}/v1` : '';
    await Promise.all(
      specs
        .filter((s) => s.name === 'web' || s.name === 'agent')
        .map((s) =>
          launch(
            s,
            0,
            s.name === 'web'
              ? { WEB_API_URL: env.WEB_API_URL ?? apiUrl.replace(/\/v1$/, '') }
              : { TIDEMARK_API_URL: apiUrl },
          ),
        ),
    );
    const urlOf = (name: ServiceName) => (started.get(`${name}/0`) as { url?: string } | undefined)?.url ?? '';
    return {
      apiUrl,
      webUrl: urlOf('web'),
      agentUrl: urlOf('agent'),
      grpc: Object.fromEntries(specs.filter((s) => s.grpc).map((s) => [s.name, env[`${s.grpc}_GRPC_URL`]!])),
      env,
      processes,
      async kill(name, replica = 0, signal = 'SIGKILL') {
        const p = processes.find((x) => x.name === name && x.replica === replica);
        if (!p) throw new Error(`no ${name} replica ${replica} in this fleet`);
        killed.add(p.child);
        p.child.kill(signal);
        await exited(p.child);
      },
      memory() {
        const live = processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
        return live
          .map((p) => memoryOf(p.pid))
          .reduce((a, b) => ({ rss: a.rss + b.rss, peakRss: a.peakRss + b.peakRss }), { rss: 0, peakRss: 0 });
      },
      cpuSeconds() {
        return processes
          .filter((p) => p.child.exitCode === null && p.child.signalCode === null)
          .map((p) => ({ name: p.name, replica: p.replica, seconds: cpuOf(p.pid) }));
      },
      async createWorkspace(name) {
        const { stdout } = await promisify(execFile)(
          process.execPath,
          ['--import', 'tsx', `${root}deploy/local/src/cli.ts`, 'workspace', 'create', '--name', name, '--json'],
          { cwd: root, env: { ...env, LOG_LEVEL: 'silent' } },
        );
        return JSON.parse(stdout.trim().split('\n').at(-1)!) as { workspaceId: string; apiKey: string };
      },
      stop: stopAll,
    };
  } catch (err) {
    stopping = true;
    killAll();
    await Promise.all(processes.map((p) => exited(p.child)));
    process.off('exit', killAll);
    throw err;
  }
};
