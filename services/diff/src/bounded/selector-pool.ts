import { Worker } from 'node:worker_threads';
import type { Logger } from '@tidemark/telemetry';
import type { SelectorAnswers, SelectorReply, SelectorRunner, SelectorTask } from './tasks.js';

/** A task that outran its budget (its thread was ended) or whose thread died. */
export class SelectorsFailed extends Error {
  constructor(
    readonly timeout: boolean,
    message: string,
  ) {
    super(message);
    this.name = 'SelectorsFailed';
  }
}

export interface SelectorPoolOptions {
  /** Threads at most (started as work comes). */
  threads: number;
  /** What one task may take on its thread before the thread is ended. */
  budgetMs: number;
  logger: Logger;
}

interface Pending {
  task: SelectorTask & { id: number };
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  current: Pending | null;
  timer?: NodeJS.Timeout;
}

/** Heap one thread may grow to: two stored pages (10 MB each at most) parse in far less. */
const THREAD_HEAP_MB = 512;
/** The thread's module, as this one is run: TypeScript source through tsx, or built JavaScript. */
const ENTRY = new URL(`./selector.worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href;

const WHAT: Record<SelectorTask['kind'], string> = {
  volatile: 'evaluating volatile_selectors',
  markup: 'the markup comparison',
  repoint: 'repointing the field selector',
};

/**
 * Runs the project's selectors over stored pages off the event loop, each task within a time
 * budget (the scrape service's page-reader pool, smaller). A task past its budget has its thread
 * ended (the only way to stop a running querySelectorAll) and fails with a reason; a new thread
 * takes its place. The event loop meanwhile keeps comparing, heartbeating and acknowledging.
 */
export class SelectorPool implements SelectorRunner {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: SelectorPoolOptions) {}

  get budgetMs(): number {
    return this.opts.budgetMs;
  }

  run<K extends SelectorTask['kind']>(task: Extract<SelectorTask, { kind: K }>): Promise<SelectorAnswers[K]> {
    if (this.closed) return Promise.reject(new Error('the selector pool is closed'));
    return new Promise<SelectorAnswers[K]>((resolve, reject) => {
      this.queue.push({ task: { ...task, id: this.nextId++ }, resolve: resolve as (v: unknown) => void, reject });
      this.pump();
    });
  }

  /** Ends every thread; tasks not done fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('the selector pool is closed'));
    await Promise.all(this.slots.splice(0).map((s) => this.end(s, new Error('the selector pool is closed'))));
  }

  private pump(): void {
    if (this.closed) return;
    while (this.queue.length && this.slots.length < this.opts.threads && !this.slots.some((s) => !s.current))
      this.spawn();
    for (const slot of this.slots) {
      if (!this.queue.length) return;
      if (!slot.ready || slot.current) continue;
      const job = this.queue.shift()!;
      slot.current = job;
      // The budget counts from when a thread takes the task, not from when it was queued.
      slot.timer = setTimeout(() => this.overBudget(slot), this.opts.budgetMs);
      slot.worker.postMessage(job.task);
    }
  }

  private spawn(): void {
    const worker = new Worker(new URL('./worker-boot.mjs', import.meta.url), {
      workerData: { entry: ENTRY },
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    const slot: Slot = { worker, ready: false, current: null };
    worker.on('message', (msg: SelectorReply | { ready: true }) => {
      if ('ready' in msg) {
        slot.ready = true;
        this.pump();
        return;
      }
      const job = slot.current;
      if (!job || job.task.id !== msg.id) return;
      clearTimeout(slot.timer);
      slot.current = null;
      if (msg.ok) job.resolve(msg.value);
      else job.reject(new SelectorsFailed(false, msg.message));
      this.pump();
    });
    worker.on('error', (err) => {
      this.opts.logger.warn({ err }, 'a selector thread failed');
      void this.end(slot, new SelectorsFailed(false, `its thread failed: ${err.message}`));
      this.pump();
    });
    worker.on('exit', () => {
      if (this.slots.includes(slot)) {
        void this.end(slot, new SelectorsFailed(false, 'its thread stopped'));
        this.pump();
      }
    });
    // An idle pool does not keep the process alive.
    worker.unref();
    this.slots.push(slot);
  }

  private overBudget(slot: Slot): void {
    const kind = slot.current?.task.kind;
    const what = kind ? WHAT[kind] : 'the selector task';
    void this.end(slot, new SelectorsFailed(true, `${what} took more than its budget of ${this.opts.budgetMs} ms`));
    this.pump();
  }

  private async end(slot: Slot, why: Error): Promise<void> {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    clearTimeout(slot.timer);
    const job = slot.current;
    slot.current = null;
    job?.reject(why);
    await slot.worker.terminate();
  }
}
