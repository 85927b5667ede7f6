import type { CrawlJob, CrawlState } from '../../repositories/crawl-job.repository.js';

// Small readings of a crawl job's stored state that every part of the engine shares.

export type Progress = { done: number; total: number; queued: number };

export const ENDED = new Set(['done', 'error', 'cancelled']);

/** A copy of the job's progress, to change and write back. */
export const progressOf = (job: CrawlJob): Progress => ({ ...(job.progress as Progress) });

export const stateOf = (job: CrawlJob): CrawlState => job.result as unknown as CrawlState;

/** The state's log with one line more (the last 50 kept). */
export const logLine = (state: Pick<CrawlState, 'log'>, message: string): CrawlState['log'] => [
  ...(state.log ?? []).slice(-49),
  { at: new Date().toISOString(), message },
];

/** How a crawl ended, for its end event. */
export type CrawlEnd = { kind: 'crawl.completed' | 'crawl.failed'; job: CrawlJob };
