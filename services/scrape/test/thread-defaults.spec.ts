import fs from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { threadDefaults } from '../src/reading/thread-defaults.js';

const dirs: string[] = [];
/**
 * A cgroup directory holding `files` (path → content), as a container's /sys/fs/cgroup; the
 * process's cgroup list (/proc/self/cgroup) is its file `self`, "0::/" unless given.
 */
const cgroup = (files: Record<string, string>): string => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), 'cgroup-'));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), `${content}\n`);
  }
  if (!files.self) fs.writeFileSync(path.join(dir, 'self'), '0::/\n');
  return dir;
};
const defaultsIn = (dir: string) => threadDefaults(dir, path.join(dir, 'self'));
const cores = availableParallelism();

describe('the reading threads a machine or container gets by default', () => {
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('takes one per core but the event loop, and every core for bulk pages, when nothing limits them', () => {
    expect(defaultsIn(cgroup({ 'cpu.max': 'max 100000', 'memory.max': 'max' }))).toEqual({
      read: Math.max(1, cores - 1),
      bulk: Math.max(1, cores),
    });
    // No cgroup files at all (not in a container): the same.
    expect(defaultsIn(cgroup({}))).toEqual({ read: Math.max(1, cores - 1), bulk: Math.max(1, cores) });
  });

  it("bounds them by the container's CPU quota (cgroup v2 and v1)", () => {
    expect(defaultsIn(cgroup({ 'cpu.max': '50000 100000' }))).toEqual({ read: 1, bulk: 1 });
    const v1 = cgroup({ 'cpu/cpu.cfs_quota_us': '100000', 'cpu/cpu.cfs_period_us': '100000' });
    expect(defaultsIn(v1)).toEqual({ read: 1, bulk: 1 });
  });

  it('bounds them by what fits in its memory limit beside the service (cgroup v2 and v1)', () => {
    // 768 MiB (the Helm chart's scrape pod): three threads at most, whatever the node's cores.
    const v2 = defaultsIn(cgroup({ 'memory.max': String(768 * 2 ** 20) }));
    expect(v2.bulk).toBe(Math.min(cores, 3));
    expect(v2.read).toBe(Math.max(1, Math.min(cores - 1, 3)));
    // Too little for even one beside the service: one all the same.
    expect(defaultsIn(cgroup({ 'memory/memory.limit_in_bytes': String(300 * 2 ** 20) }))).toEqual({
      read: 1,
      bulk: 1,
    });
    // v1's "no limit" is a number near 2^63.
    expect(defaultsIn(cgroup({ 'memory/memory.limit_in_bytes': '9223372036854771712' })).bulk).toBe(Math.max(1, cores));
  });

  it("reads the process's own cgroup before the hierarchy's root (a systemd service, a v1 container)", () => {
    const service = cgroup({
      self: '0::/system.slice/tidemark.service',
      'memory.max': 'max',
      'system.slice/tidemark.service/memory.max': String(768 * 2 ** 20),
    });
    expect(defaultsIn(service).bulk).toBe(Math.min(cores, 3));
    const v1 = cgroup({
      self: '4:memory:/kubepods/pod1/c1\n2:cpu,cpuacct:/kubepods/pod1/c1\n0::/',
      'memory/memory.limit_in_bytes': '9223372036854771712',
      'memory/kubepods/pod1/c1/memory.limit_in_bytes': String(768 * 2 ** 20),
      'cpu/kubepods/pod1/c1/cpu.cfs_quota_us': '100000',
      'cpu/kubepods/pod1/c1/cpu.cfs_period_us': '100000',
    });
    expect(defaultsIn(v1)).toEqual({ read: 1, bulk: 1 });
  });

  it('takes the smallest limit from its own cgroup up to the root (a limit set on the parent slice)', () => {
    const slice = cgroup({
      self: '0::/tidemark.slice/scrape.service',
      'memory.max': 'max',
      'tidemark.slice/memory.max': String(768 * 2 ** 20),
      'tidemark.slice/scrape.service/memory.max': 'max',
      'tidemark.slice/cpu.max': '100000 100000',
      'tidemark.slice/scrape.service/cpu.max': 'max 100000',
    });
    expect(defaultsIn(slice)).toEqual({ read: 1, bulk: 1 });
    // The parent's memory limit (room for one thread) bounds them when the service's own is larger.
    const larger = cgroup({
      self: '0::/tidemark.slice/scrape.service',
      'tidemark.slice/memory.max': String(400 * 2 ** 20),
      'tidemark.slice/scrape.service/memory.max': String(8 * 2 ** 30),
    });
    expect(defaultsIn(larger)).toEqual({ read: 1, bulk: 1 });
    const v1 = cgroup({
      self: '4:memory:/kubepods/pod1/c1\n0::/',
      'memory/kubepods/pod1/memory.limit_in_bytes': String(400 * 2 ** 20),
      'memory/kubepods/pod1/c1/memory.limit_in_bytes': '9223372036854771712',
    });
    expect(defaultsIn(v1)).toEqual({ read: 1, bulk: 1 });
  });
});
