import type { FieldValues, Removal, RemovalOptions } from '@tidemark/content';
import type { Logger } from '@tidemark/telemetry';
import { BudgetedThreadPool } from '@tidemark/thread-pool';
import type { Fetched } from '../ladder/http-rung.js';
import type { LadderOptions } from '../ladder/options.js';
import type { PageReading } from './read-page.js';
import type { ReaderTask } from './reader-task.js';

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
  /** Reading threads at most for bulk pages (a crawl's, a batch job's), at least `threads`. */
  bulkThreads?: number;
  /** What one task may take on its thread before the thread is ended. */
  budgetMs: number;
  logger: Logger;
}

/** Heap one reading thread may grow to: the largest page (10 MB of html) parses in far less. */
const THREAD_HEAP_MB = 1024;
/** The thread's module, as this one is run: TypeScript source through tsx, or built JavaScript. */
const ENTRY = new URL(`./page-reader.worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);

const WHAT: Record<ReaderTask['kind'], string> = {
  read: 'reading the page',
  select: 'matching the selector',
  removals: 'finding what the content filters remove',
};

/**
 * Reads pages off the event loop, each within a time budget. Parsing, the content pipeline, the
 * verdict and user selectors (CSS, and XPath 3.1, which can loop) run on worker threads; a task
 * that outruns its budget has its thread ended (the only way to stop a running XPath or a
 * pathological selector) and fails with a reason, and a new thread takes its place. The event
 * loop meanwhile keeps answering, heartbeating its work and acknowledging messages, and the
 * machine's other cores read pages too.
 */
export class PageReaderPool {
  private readonly pool: BudgetedThreadPool<ReaderTask>;

  constructor(private readonly opts: PageReaderOptions) {
    this.pool = new BudgetedThreadPool<ReaderTask>({
      entry: ENTRY,
      threads: opts.threads,
      bulkThreads: opts.bulkThreads,
      // The first page read after the service starts does not wait for a thread to load.
      warm: 1,
      budgetMs: opts.budgetMs,
      heapMb: THREAD_HEAP_MB,
      name: 'the page reader',
      logger: opts.logger,
      failure: (f) => {
        if (f.kind === 'budget')
          return new ReadingFailed('TIMEOUT', `${WHAT[f.task.kind]} took more than its budget of ${f.budgetMs} ms`);
        if (f.kind === 'threw') return new Error(f.message);
        return new ReadingFailed(
          'NETWORK',
          `the page could not be read: ${f.error ? f.error.message : 'its reading thread stopped'}`,
        );
      },
      // A document's bytes move to the thread (their buffer is the reader's from then on).
      transfer: (task) =>
        task.kind === 'read' && task.fetched.document ? [task.fetched.document.bytes.buffer as ArrayBuffer] : [],
    });
  }

  /**
   * Reads one fetched page. When the page's user fields are what outran the budget, the page is
   * read again without them: its content is kept and the row says the fields were not read.
   * `bulk`: nobody waits on this page alone (a crawl's, a batch job's); it may take the threads
   * past `threads`.
   */
  async read(
    fetched: Fetched,
    tier: 'http' | 'browser',
    opts: LadderOptions,
    widget?: string,
    bulk = false,
  ): Promise<PageReading> {
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
      return await this.submit<PageReading>(task(opts), undefined, bulk);
    } catch (err) {
      if (!(err instanceof ReadingFailed) || err.errorCode !== 'TIMEOUT' || !Object.keys(fields).length) throw err;
      // A document's bytes went to the thread that was ended: it is not read a second time.
      if (fetched.document) throw err;
      const without = { ...opts, config: { ...opts.config, content: { ...opts.config.content, fields: {} } } };
      const reading = await this.submit<PageReading>(task(without), undefined, bulk);
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
  close(): Promise<void> {
    return this.pool.close();
  }

  private submit<T>(task: ReaderTask, signal?: AbortSignal, bulk = false): Promise<T> {
    return this.pool.run<T>(task, signal, { bulk });
  }
}
