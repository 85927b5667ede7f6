import { parentPort } from 'node:worker_threads';
import { ownCpuClockFile, readCpuMs } from './thread-cpu.js';

/**
 * What a thread answers for one task. `cpuMs`: the thread's CPU clock once the task is done, where
 * it has one (the next task's budget counts from it).
 */
export type TaskReply = ({ id: number; ok: true; value: unknown } | { id: number; ok: false; message: string }) & {
  cpuMs?: number;
};

/** What a thread says once its module is loaded: its CPU clock (a file the pool reads), if any. */
export interface ThreadReady {
  ready: true;
  cpuClock: string | null;
  cpuMs?: number;
}

/**
 * The thread's side: runs what the pool hands it, one task at a time (the pool hands the next
 * only when this one has answered, so an async task is one at a time too). The pool ends the
 * thread when a task outruns its budget, so nothing here watches time; the thread's CPU clock is
 * read after each task, so the pool can tell a task that ran its budget from one that waited for
 * a core. Call once, after the module's imports: the pool starts a task's budget clock only when
 * the thread says it is ready.
 */
export const serveTasks = <Task>(run: (task: Task) => unknown): void => {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs on a worker thread');
  const cpuClock = ownCpuClockFile();
  // A clock that cannot be read leaves the next task to the wall clock; the answer still goes.
  const cpuMs = (): { cpuMs?: number } => {
    try {
      return cpuClock ? { cpuMs: readCpuMs(cpuClock) } : {};
    } catch {
      return {};
    }
  };
  port.on('message', async (task: Task & { id: number }) => {
    let reply: TaskReply;
    try {
      reply = { id: task.id, ok: true, value: await run(task) };
    } catch (err) {
      reply = { id: task.id, ok: false, message: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage({ ...reply, ...cpuMs() });
  });
  port.postMessage({ ready: true, cpuClock, ...cpuMs() } satisfies ThreadReady);
};
