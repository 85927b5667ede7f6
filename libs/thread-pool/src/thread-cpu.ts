import { readFileSync, readlinkSync } from 'node:fs';

/**
 * The calling thread's CPU clock, as a file any thread of the process can read: Linux's
 * `schedstat` of the thread (its first field is the nanoseconds it has run). null elsewhere, or
 * where /proc is not mounted: the pool then budgets tasks by the wall clock.
 */
export const ownCpuClockFile = (): string | null => {
  try {
    const [pid, tid] = readlinkSync('/proc/thread-self').split('/task/');
    const file = `/proc/${pid}/task/${tid}/schedstat`;
    return Number.isFinite(readCpuMs(file)) ? file : null;
  } catch {
    return null;
  }
};

/** Milliseconds of CPU the thread behind `file` has run; throws once the thread is gone. */
export const readCpuMs = (file: string): number => {
  const stat = readFileSync(file, 'latin1');
  return Number(stat.slice(0, stat.indexOf(' '))) / 1e6;
};
