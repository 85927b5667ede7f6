import type { Logger } from '@tidemark/telemetry';
import { BudgetedThreadPool } from '@tidemark/thread-pool';
import type { SelectorAnswers, SelectorRunner, SelectorTask } from './tasks.js';

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

/** Heap one thread may grow to: two stored pages (10 MB each at most) parse in far less. */
const THREAD_HEAP_MB = 512;
/** The thread's module, as this one is run: TypeScript source through tsx, or built JavaScript. */
const ENTRY = new URL(`./selector.worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);

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
  private readonly pool: BudgetedThreadPool<SelectorTask>;

  constructor(private readonly opts: SelectorPoolOptions) {
    this.pool = new BudgetedThreadPool<SelectorTask>({
      entry: ENTRY,
      threads: opts.threads,
      budgetMs: opts.budgetMs,
      heapMb: THREAD_HEAP_MB,
      name: 'the selector pool',
      logger: opts.logger,
      failure: (f) =>
        f.kind === 'budget'
          ? new SelectorsFailed(true, `${WHAT[f.task.kind]} took more than its budget of ${f.budgetMs} ms`)
          : new SelectorsFailed(
              false,
              f.kind === 'threw' ? f.message : f.error ? `its thread failed: ${f.error.message}` : 'its thread stopped',
            ),
    });
  }

  get budgetMs(): number {
    return this.opts.budgetMs;
  }

  run<K extends SelectorTask['kind']>(task: Extract<SelectorTask, { kind: K }>): Promise<SelectorAnswers[K]> {
    return this.pool.run<SelectorAnswers[K]>(task);
  }

  /** Ends every thread; tasks not done fail. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
