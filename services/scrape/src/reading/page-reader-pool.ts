import { Worker } from 'node:worker_threads';
import type { FieldValues, Removal, RemovalOptions } from '@tidemark/content';
import type { Logger } from '@tidemark/telemetry';
import type { Fetched } from '../ladder/http-rung.js';
import type { LadderOptions } from '../ladder/options.js';
import type { PageReading } from './read-page.js';
import type { ReaderReply, ReaderTask } from './reader-task.js';

/** A page (or a selector over it) that could not be read: over its time budget, or its thread died. */
export class ReadingFailed extends Error {
  constructor(
    readonly errorCode: 'TIMEOUT' | 'NETWORK',
    message: string,
  ) {
    super(message);
    this.name = 'ReadingFailed';
  }
}

export interface PageReaderOptions {
  /** Reading threads at most (started as work comes). */
  threads: number;
  /** What one task may take on its thread before the thread is ended. */
  budgetMs: number;
  logger: Logger;
}

interface Pending {
  task: ReaderTask & { id: number };
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  current: Pending | null;
  timer?: NodeJS.Timeout;
}

/** Heap one reading thread may grow to: the largest page (10 MB of html) parses in far less. */
const THREAD_HEAP_MB = 1024;
/** The thread's module, as this one is run: TypeScript source through tsx, or built JavaScript. */
const ENTRY = new URL(`./page-reader.worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href;

/**
 * Reads pages off the event loop, each within a time budget. Parsing, the content pipeline, the
 * verdict and user selectors (CSS, and XPath 3.1, which can loop) run on worker threads; a task
 * that outruns its budget has its thread ended (the only way to stop a running XPath or a
 * pathological selector) and fails with a reason, and a new thread takes its place. The event
 * loop meanwhile keeps answering, heartbeating its work and acknowledging messages, and the
 * machine's other cores read pages too.
 */
export class PageReaderPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: PageReaderOptions) {}

  /**
   * Reads one fetched page. When the page's user fields are what outran the budget, the page is
   * read again without them: its content is kept and the row says the fields were not read.
   */
  async read(fetched: Fetched, tier: 'http' | 'browser', opts: LadderOptions, widget?: string): Promise<PageReading> {
    // Only what reading needs crosses to the thread (not a screenshot's bytes).
    const page: Fetched = {
      finalUrl: fetched.finalUrl,
      status: fetched.status,
      headers: fetched.headers,
      html: fetched.html,
      redirects: fetched.redirects,
      contentType: fetched.contentType,
      ...(fetched.document ? { document: fetched.document } : {}),
    };
    const task = (o: LadderOptions): ReaderTask => ({
      kind: 'read',
      fetched: page,
      tier,
      opts: o,
      ...(widget ? { widget } : {}),
    });
    const fields = opts.config.content.fields;
    try {
      return await this.submit<PageReading>(task(opts));
    } catch (err) {
      if (!(err instanceof ReadingFailed) || err.errorCode !== 'TIMEOUT' || !Object.keys(fields).length) throw err;
      // A document's bytes went to the thread that was ended: it is not read a second time.
      if (fetched.document) throw err;
      const without = { ...opts, config: { ...opts.config, content: { ...opts.config.content, fields: {} } } };
      const reading = await this.submit<PageReading>(task(without));
      const why = `the page's fields outran its reading budget of ${this.opts.budgetMs} ms`;
      reading.content.fields = Object.fromEntries(Object.keys(fields).map((name) => [name, null]));
      reading.content.fieldErrors = Object.fromEntries(Object.keys(fields).map((name) => [name, `not read: ${why}`]));
      reading.verdict.warnings.push(`fields not read: ${why}`);
      return reading;
    }
  }

  /**
   * Every match of one selector (CSS, or XPath starting with / or () in a page's markup. An
   * abort drops the task if it waits, and ends its thread if it runs (a search whose selector
   * outran its budget on one page cancels the rest of its pages).
   */
  select(markup: string, selector: string, url: string, signal?: AbortSignal): Promise<FieldValues> {
    return this.submit<FieldValues>({ kind: 'select', markup, selector, url }, signal);
  }

  /**
   * What the content filters take out of a page's markup (`explainRemovals`): the project's own
   * include and exclude selectors run here, so they are bounded like a page's reading.
   */
  removals(markup: string, options: RemovalOptions): Promise<Removal[]> {
    return this.submit<Removal[]>({ kind: 'removals', markup, options });
  }

  get budgetMs(): number {
    return this.opts.budgetMs;
  }

  /** Ends every thread; tasks not done fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('the page reader is closed'));
    await Promise.all(this.slots.splice(0).map((s) => this.end(s, new Error('the page reader is closed'))));
  }

  private submit<T>(task: ReaderTask, signal?: AbortSignal): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the page reader is closed'));
    if (signal?.aborted) return Promise.reject(new Error('cancelled'));
    return new Promise<T>((resolve, reject) => {
      const job: Pending = { task: { ...task, id: this.nextId++ }, resolve: resolve as (v: unknown) => void, reject };
      this.queue.push(job);
      signal?.addEventListener('abort', () => this.cancel(job), { once: true });
      this.pump();
    });
  }

  private cancel(job: Pending): void {
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

  /** Hands queued tasks to ready idle threads, starting threads up to the limit. */
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
      // A document's bytes move to the thread (their buffer is the reader's from then on).
      const document = job.task.kind === 'read' ? job.task.fetched.document : undefined;
      slot.worker.postMessage(job.task, document ? [document.bytes.buffer as ArrayBuffer] : []);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(new URL('./worker-boot.mjs', import.meta.url), {
      workerData: { entry: ENTRY },
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    const slot: Slot = { worker, ready: false, current: null };
    worker.on('message', (msg: ReaderReply | { ready: true }) => {
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
      else job.reject(new Error(msg.message));
      this.pump();
    });
    worker.on('error', (err) => {
      // An uncaught error or a heap past THREAD_HEAP_MB: the task it ran fails, the thread goes.
      this.opts.logger.warn({ err }, 'a page-reading thread failed');
      void this.end(slot, new ReadingFailed('NETWORK', `the page could not be read: ${err.message}`));
      this.pump();
    });
    worker.on('exit', () => {
      if (this.slots.includes(slot)) {
        void this.end(slot, new ReadingFailed('NETWORK', 'the page could not be read: its reading thread stopped'));
        this.pump();
      }
    });
    // The thread holds no handle the process must wait for: an idle pool does not keep it alive.
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  private overBudget(slot: Slot): void {
    const kind = slot.current?.task.kind;
    const what =
      kind === 'select'
        ? 'matching the selector'
        : kind === 'removals'
          ? 'finding what the content filters remove'
          : 'reading the page';
    void this.end(slot, new ReadingFailed('TIMEOUT', `${what} took more than its budget of ${this.opts.budgetMs} ms`));
    this.pump();
  }

  /** Takes a thread out of the pool, failing its task, and ends it. */
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
