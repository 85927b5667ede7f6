import type { CrawlState } from '../../repositories/crawl-job.repository.js';

export type CrawlStop = 'credits_exhausted' | 'error' | 'budget' | 'limit' | 'depth' | 'exhausted';

/**
 * How a crawl with nothing left to fetch ended: failed when not one page could be read and some
 * answered with an error or a block; otherwise the first reason that cut it short, or exhausted.
 */
export const crawlEnding = (
  state: Pick<CrawlState, 'creditsExhausted' | 'budgetHit' | 'limitReached' | 'depthReached'>,
  counts: Record<string, number>,
): { status: 'done' | 'error'; stop: CrawlStop; error: string | null } => {
  const read = (counts.ok ?? 0) + (counts.thin ?? 0) + (counts.cached ?? 0);
  const failed = read === 0 && (counts.error ?? 0) + (counts.blocked ?? 0) > 0;
  const stop: CrawlStop = state.creditsExhausted
    ? 'credits_exhausted'
    : failed
      ? 'error'
      : state.budgetHit
        ? 'budget'
        : state.limitReached
          ? 'limit'
          : state.depthReached
            ? 'depth'
            : 'exhausted';
  const error = !failed
    ? null
    : state.creditsExhausted
      ? "no page of the crawl could be read: the workspace's credits ran out"
      : 'no page of the crawl could be read';
  return { status: failed ? 'error' : 'done', stop, error };
};
