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
 * sixteen threads during a crawl and be killed for its memory). The process's own cgroup
 * (`/proc/self/cgroup`: a systemd service's slice, a container's path when the hierarchy is not
 * namespaced) is read before the hierarchy's root. `root` and `self`: where the cgroup files and
 * the process's cgroup list are (a test's files).
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
  /** cgroup v2: the process's own directory, then the root. */
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
    const at = own.get(controller);
    return at && at !== '/' ? [path.join(base, at), base] : [base];
  };
  return {
    unified: dirs(root, ''),
    cpu: dirs(path.join(root, 'cpu'), 'cpu'),
    memory: dirs(path.join(root, 'memory'), 'memory'),
  };
}

/** The first of `dirs` that holds `file`, its content. */
const firstOf = (dirs: string[], file: string): string | null => {
  for (const dir of dirs) {
    const content = readFile(path.join(dir, file));
    if (content !== null) return content;
  }
  return null;
};

/** Cores the container may use (quota over period), or null when it is not limited. */
function cpuQuota(where: CgroupDirs): number | null {
  const v2 = firstOf(where.unified, 'cpu.max');
  if (v2) {
    const [quota, period] = v2.split(/\s+/);
    if (quota === 'max' || !quota || !period) return null;
    const q = Number(quota) / Number(period);
    return Number.isFinite(q) && q > 0 ? q : null;
  }
  // The quota and its period as one directory states them (not each from wherever it is found).
  for (const dir of where.cpu) {
    const quota = readFile(path.join(dir, 'cpu.cfs_quota_us'));
    if (quota === null) continue;
    const period = Number(readFile(path.join(dir, 'cpu.cfs_period_us')));
    return Number(quota) > 0 && period > 0 ? Number(quota) / period : null;
  }
  return null;
}

/** The container's memory limit in MiB, or null when it has none. */
function memoryLimitMb(where: CgroupDirs): number | null {
  const raw = firstOf(where.unified, 'memory.max') ?? firstOf(where.memory, 'memory.limit_in_bytes');
  if (!raw || raw === 'max') return null;
  const bytes = Number(raw);
  // cgroup v1 says "no limit" with a number near 2^63.
  if (!Number.isFinite(bytes) || bytes <= 0 || bytes >= 2 ** 60) return null;
  return bytes / 2 ** 20;
}
