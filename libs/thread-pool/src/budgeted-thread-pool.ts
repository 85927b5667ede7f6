import { Worker } from 'node:worker_threads';
import type { Logger } from '@tidemark/telemetry';
import type { TaskReply, ThreadReady } from './serve-tasks.js';
import { readCpuMs } from './thread-cpu.js';

/** Why a task did not answer, for the owner of the pool to word as its own error. */
export type PoolFailure<Task> =
  /** It ran past its budget: its thread was ended. */
  | { kind: 'budget'; task: Task; budgetMs: number }
  /** It threw on its thread (the thread goes on). */
  | { kind: 'threw'; task: Task; message: string }
  /** Its thread failed (`error`: an uncaught error, the heap limit) or stopped (`error` null). */
  | { kind: 'thread'; task: Task; error: Error | null };

export interface BudgetedThreadPoolOptions<Task> {
  /** The threads' module (it calls `serveTasks`), as a URL. */
  entry: URL;
  /** Threads at most (started as work comes). */
  threads: number;
  /**
   * Threads at most for bulk tasks (`run(…, { bulk: true })`), at least `threads`: the ones past
   * `threads` take bulk tasks only. Work nobody waits on (a crawl's pages) can then have every
   * core while a caller's task keeps the event loop a core of its own. Default `threads`.
   */
  bulkThreads?: number;
  /**
   * Threads started with the pool, before work comes (at most `threads`): a thread's start
   * (loading its modules, ~1 s of a core under tsx) is then not the first task's wait.
   */
  warm?: number;
  /**
   * What one task may take on its thread before the thread is ended: CPU time of its thread
   * where the thread has a CPU clock (Linux), so a task that waited for a core on a loaded machine
   * is not ended for it; and never more than `WALL_BUDGETS` times it on the wall clock (the only
   * clock elsewhere).
   */
  budgetMs: number;
  /** Heap one thread may grow to; past it the thread fails and its task with it. */
  heapMb: number;
  /** Says what the pool is in its own errors and log lines ("the page reader"). */
  name: string;
  logger: Logger;
  /** The error a caller gets for a failed task. */
  failure: (f: PoolFailure<Task>) => Error;
  /** Buffers moved to the thread with a task instead of copied (they are the thread's then). */
  transfer?: (task: Task) => ArrayBuffer[];
}

interface Pending<Task> {
  task: Task & { id: number };
  bulk: boolean;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Slot<Task> {
  worker: Worker;
  ready: boolean;
  current: Pending<Task> | null;
  timer?: NodeJS.Timeout;
  /** The thread's CPU clock (a file), null where it has none. */
  cpuClock: string | null;
  /** The thread's CPU clock when it last answered: the current task's CPU counts from it. */
  cpuMs?: number;
  /** When the current task was handed over (performance.now()). */
  startedAt: number;
}

/**
 * A task may take its budget in CPU time, but at most this many budgets on the wall clock: a
 * starved machine does not keep a caller waiting without end.
 */
export const WALL_BUDGETS = 3;
/** The shortest a task is given again when its CPU time is still under its budget. */
const RECHECK_MIN_MS = 20;

const BOOT = new URL('./worker-boot.mjs', import.meta.url);

/**
 * Runs tasks on worker threads, each within a time budget. A task that outruns its budget has
 * its thread ended (the only way to stop a running selector, XPath or parse) and fails; a new
 * thread takes its place. The event loop meanwhile keeps answering, heartbeating and
 * acknowledging, and the machine's other cores do the work.
 */
export class BudgetedThreadPool<Task extends object> {
  private readonly slots: Slot<Task>[] = [];
  private readonly queue: Pending<Task>[] = [];
  private nextId = 1;
  private closed = false;
  /** opts.bulkThreads, never fewer than opts.threads. */
  private readonly bulkThreads: number;

  constructor(private readonly opts: BudgetedThreadPoolOptions<Task>) {
    this.bulkThreads = Math.max(opts.threads, opts.bulkThreads ?? opts.threads);
    for (let i = 0; i < Math.min(opts.warm ?? 0, opts.threads); i++) this.spawn();
  }

  get budgetMs(): number {
    return this.opts.budgetMs;
  }

  /** Threads started (loading, idle or busy). */
  get threadCount(): number {
    return this.slots.length;
  }

  /**
   * Runs one task. An abort drops it if it waits, and ends its thread if it runs (a search whose
   * selector outran its budget on one page cancels the rest of its pages). `bulk`: nobody waits
   * on this task alone; it may also run on the threads past `threads` (`bulkThreads`).
   */
  run<T>(task: Task, signal?: AbortSignal, { bulk = false }: { bulk?: boolean } = {}): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`${this.opts.name} is closed`));
    if (signal?.aborted) return Promise.reject(new Error('cancelled'));
    return new Promise<T>((resolve, reject) => {
      const job: Pending<Task> = {
        task: { ...task, id: this.nextId++ },
        bulk,
        resolve: resolve as (v: unknown) => void,
        reject,
      };
      this.queue.push(job);
      signal?.addEventListener('abort', () => this.cancel(job), { once: true });
      this.pump();
    });
  }

  /** Ends every thread; tasks not done fail. */
  async close(): Promise<void> {
    this.closed = true;
    const why = new Error(`${this.opts.name} is closed`);
    for (const p of this.queue.splice(0)) p.reject(why);
    await Promise.all(this.slots.splice(0).map((s) => this.end(s, why)));
  }

  private cancel(job: Pending<Task>): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      job.reject(new Error('cancelled'));
      return;
    }
    const slot = this.slots.find((s) => s.current === job);
    if (slot) {
      void this.end(slot, new Error('cancelled'));
      this.pump();
    }
  }

  /**
   * Hands queued tasks to ready idle threads, in order, starting threads up to the limit. A
   * thread past the first `threads` takes bulk tasks only (a thread's place is its index: when
   * one ends, those after it move up).
   */
  private pump(): void {
    if (this.closed) return;
    const { threads } = this.opts;
    // Threads start while queued tasks outnumber the idle ones (starting or ready) they may use.
    let idle = this.slots.filter((s) => !s.current).length;
    while (this.slots.length < threads && this.queue.length > idle) {
      this.spawn();
      idle++;
    }
    const bulkWaiting = this.queue.filter((j) => j.bulk).length;
    if (bulkWaiting) {
      let idleBulkOnly = this.slots.filter((s, i) => i >= threads && !s.current).length;
      while (this.slots.length < this.bulkThreads && this.queue.length > idle && bulkWaiting > idleBulkOnly) {
        this.spawn();
        idle++;
        idleBulkOnly++;
      }
    }
    for (let i = 0; i < this.slots.length && this.queue.length; i++) {
      const slot = this.slots[i]!;
      if (!slot.ready || slot.current) continue;
      const at = i < threads ? 0 : this.queue.findIndex((j) => j.bulk);
      if (at < 0) continue;
      const job = this.queue.splice(at, 1)[0]!;
      slot.current = job;
      // The budget counts from when a thread takes the task, not from when it was queued.
      slot.startedAt = performance.now();
      slot.timer = setTimeout(() => this.overBudget(slot), this.opts.budgetMs);
      slot.worker.postMessage(job.task, this.opts.transfer?.(job.task) ?? []);
    }
  }

  private spawn(): void {
    const worker = new Worker(BOOT, {
      workerData: { entry: this.opts.entry.href },
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.opts.heapMb },
    });
    const slot: Slot<Task> = { worker, ready: false, current: null, cpuClock: null, startedAt: 0 };
    worker.on('message', (msg: TaskReply | ThreadReady) => {
      slot.cpuMs = msg.cpuMs;
      if ('ready' in msg) {
        slot.ready = true;
        slot.cpuClock = msg.cpuClock;
        this.pump();
        return;
      }
      const job = slot.current;
      if (!job || job.task.id !== msg.id) return;
      clearTimeout(slot.timer);
      slot.current = null;
      if (msg.ok) job.resolve(msg.value);
      else job.reject(this.opts.failure({ kind: 'threw', task: job.task, message: msg.message }));
      this.pump();
    });
    worker.on('error', (err) => {
      // An uncaught error or a heap past heapMb: the task it ran fails, the thread goes.
      this.opts.logger.warn({ err }, `a thread of ${this.opts.name} failed`);
      void this.end(slot, (task) => this.opts.failure({ kind: 'thread', task, error: err }));
      this.pump();
    });
    worker.on('exit', () => {
      if (this.slots.includes(slot)) {
        void this.end(slot, (task) => this.opts.failure({ kind: 'thread', task, error: null }));
        this.pump();
      }
    });
    // An idle pool does not keep the process alive.
    worker.unref();
    this.slots.push(slot);
  }

  /**
   * The task's budget has passed on the wall clock. Where its thread has a CPU clock and the task
   * has run less than its budget on it (it waited for a core), it is given the rest, within
   * `WALL_BUDGETS` budgets on the wall clock; otherwise its thread is ended.
   */
  private overBudget(slot: Slot<Task>): void {
    const { budgetMs } = this.opts;
    const wallLeft = budgetMs * WALL_BUDGETS - (performance.now() - slot.startedAt);
    const cpuLeft = this.cpuLeft(slot);
    if (cpuLeft > 0 && wallLeft > 0) {
      slot.timer = setTimeout(() => this.overBudget(slot), Math.min(Math.max(cpuLeft, RECHECK_MIN_MS), wallLeft));
      return;
    }
    void this.end(slot, (task) => this.opts.failure({ kind: 'budget', task, budgetMs: this.opts.budgetMs }));
    this.pump();
  }

  /** CPU time the current task has left of its budget; 0 where that cannot be told. */
  private cpuLeft(slot: Slot<Task>): number {
    if (!slot.cpuClock || slot.cpuMs === undefined) return 0;
    try {
      return this.opts.budgetMs - (readCpuMs(slot.cpuClock) - slot.cpuMs);
    } catch {
      // The thread is gone: its exit ends the task.
      return 0;
    }
  }

  /** Takes a thread out of the pool, failing its task, and ends it. */
  private async end(slot: Slot<Task>, why: Error | ((task: Task) => Error)): Promise<void> {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    clearTimeout(slot.timer);
    const job = slot.current;
    slot.current = null;
    if (job) job.reject(typeof why === 'function' ? why(job.task) : why);
    await slot.worker.terminate();
  }
}
