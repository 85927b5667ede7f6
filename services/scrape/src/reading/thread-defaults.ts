import fs from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';

/** What the service holds without its reading threads (its modules, sockets, a crawl's buffers). */
const BASE_MB = 256;
/** What one reading thread holds while it reads pages (its heap and the pages in it). */
const PER_THREAD_MB = 160;

export interface ThreadDefaults {
  /** SCRAPE_READ_THREADS' default: one per core but the event loop's, one at least. */
  read: number;
  /** SCRAPE_BULK_READ_THREADS' default: one per core, never fewer than `read`. */
  bulk: number;
}

/**
 * The reading threads' defaults for the machine the service runs on. In a container the machine
 * is the container's: its CPU quota (cgroup `cpu.max`, or v1's `cpu.cfs_quota_us`) bounds the
 * cores, and its memory limit (`memory.max`, v1's `memory.limit_in_bytes`) the threads that fit
 * beside the service (a scrape pod limited to 768 MiB on a 16-core node would otherwise start
 * sixteen threads during a crawl and be killed for its memory). A limit set on any ancestor of
 * the process's own cgroup (`/proc/self/cgroup`: a systemd service in a limited slice, a
 * container's path when the hierarchy is not namespaced) bounds it too, so the smallest limit
 * from the process's cgroup up to the hierarchy's root counts. `root` and `self`: where the
 * cgroup files and the process's cgroup list are (a test's files).
 */
export function threadDefaults(root = '/sys/fs/cgroup', self = '/proc/self/cgroup'): ThreadDefaults {
  const where = cgroupDirs(root, self);
  let cores = availableParallelism();
  const quota = cpuQuota(where);
  if (quota !== null) cores = Math.max(1, Math.min(cores, Math.ceil(quota)));
  let fit = Infinity;
  const limitMb = memoryLimitMb(where);
  if (limitMb !== null) fit = Math.max(1, Math.floor((limitMb - BASE_MB) / PER_THREAD_MB));
  const read = Math.max(1, Math.min(cores - 1, fit));
  return { read, bulk: Math.max(read, Math.min(cores, fit)) };
}

const readFile = (file: string): string | null => {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
};

interface CgroupDirs {
  /** cgroup v2: the hierarchy's root, and each directory down to the process's own. */
  unified: string[];
  /** cgroup v1's cpu and memory controllers, likewise. */
  cpu: string[];
  memory: string[];
}

/** Where the process's cgroup files are, from its cgroup list ("0::/path", "4:memory:/path"). */
function cgroupDirs(root: string, self: string): CgroupDirs {
  const own = new Map<string, string>();
  for (const line of (readFile(self) ?? '').split('\n')) {
    const [, controllers, at] = /^\d+:([^:]*):(\/.*)$/.exec(line) ?? [];
    if (at === undefined) continue;
    for (const c of controllers ? controllers.split(',') : ['']) own.set(c, at);
  }
  const dirs = (base: string, controller: string) => {
    const found = [base];
    for (let at = own.get(controller) ?? '/'; at !== '/'; at = path.posix.dirname(at)) found.push(path.join(base, at));
    return found;
  };
  return {
    unified: dirs(root, ''),
    cpu: dirs(path.join(root, 'cpu'), 'cpu'),
    memory: dirs(path.join(root, 'memory'), 'memory'),
  };
}

/** The smallest of a limit over `dirs` (a cgroup is bounded by each of its ancestors'), or null. */
const smallest = (dirs: string[], limitIn: (dir: string) => number | null): number | null =>
  dirs.reduce<number | null>((min, dir) => {
    const limit = limitIn(dir);
    return limit === null ? min : Math.min(min ?? limit, limit);
  }, null);

/** Cores the container may use (quota over period), or null when it is not limited. */
function cpuQuota(where: CgroupDirs): number | null {
  const v2 = smallest(where.unified, (dir) => {
    const [quota, period] = (readFile(path.join(dir, 'cpu.max')) ?? '').split(/\s+/);
    if (!quota || quota === 'max' || !period) return null;
    const q = Number(quota) / Number(period);
    return Number.isFinite(q) && q > 0 ? q : null;
  });
  // v1: the quota and its period as one directory states them (not each from wherever it is found).
  return (
    v2 ??
    smallest(where.cpu, (dir) => {
      const quota = Number(readFile(path.join(dir, 'cpu.cfs_quota_us')));
      const period = Number(readFile(path.join(dir, 'cpu.cfs_period_us')));
      return quota > 0 && period > 0 ? quota / period : null;
    })
  );
}

/** The container's memory limit in MiB, or null when it has none. */
function memoryLimitMb(where: CgroupDirs): number | null {
  const bytesIn = (file: string) => (dir: string) => {
    const raw = readFile(path.join(dir, file));
    if (!raw || raw === 'max') return null;
    const bytes = Number(raw);
    // cgroup v1 says "no limit" with a number near 2^63.
    return Number.isFinite(bytes) && bytes > 0 && bytes < 2 ** 60 ? bytes : null;
  };
  const bytes =
    smallest(where.unified, bytesIn('memory.max')) ?? smallest(where.memory, bytesIn('memory.limit_in_bytes'));
  return bytes === null ? null : bytes / 2 ** 20;
}
