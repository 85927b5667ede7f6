import type { WorkContext } from '@tidemark/bus';
import { ApiError } from '@tidemark/errors';
import { emptyRow, type PageResult } from '../ladder/ladder.service.js';

/**
 * A page was fetched (and charged) but its row could not be written. Retryable like any internal
 * failure; if the last delivery fails the same way, the give-up row says so and keeps the cost.
 */
export class PageNotStored extends ApiError {
  constructor(
    readonly result: PageResult,
    cause: unknown,
  ) {
    super('internal', 'the page was read but its row could not be stored', { cause });
  }
}

/** Runs a write of a fetched page; a failure comes out as PageNotStored. */
export const storing = async <T>(result: PageResult, write: () => Promise<T>): Promise<T> => {
  try {
    return await write();
  } catch (err) {
    throw new PageNotStored(result, err);
  }
};

/**
 * The row of a page given up after its last delivery: status error and a reason that says what
 * failed, without the database's or a library's own words (those are in the log). A page that
 * was read keeps its status code, method and cost (it was charged); no body is kept.
 */
export const gaveUpResult = (
  url: string,
  ctx: Pick<WorkContext, 'deliveryCount'> & { error: ApiError; cause: unknown },
): PageResult => {
  const tries = `${ctx.deliveryCount} ${ctx.deliveryCount === 1 ? 'try' : 'tries'}`;
  const base = { ...emptyRow(url), status: 'error' as const, crawledAt: new Date().toISOString() };
  if (ctx.cause instanceof PageNotStored) {
    const read = ctx.cause.result.row;
    return {
      row: {
        ...base,
        httpStatus: read.httpStatus,
        method: read.method,
        tier: read.tier,
        credits: read.credits,
        billedAs: read.billedAs,
        climbedTo: read.climbedTo,
        finalUrl: read.finalUrl,
        reason: `the page was read but could not be stored (gave up after ${tries})`,
      },
      bodies: {},
    };
  }
  const why = ctx.error.retryable ? `failed ${tries}` : 'cannot succeed';
  return { row: { ...base, reason: `the page's work ${why} (${ctx.error.code}); gave up` }, bodies: {} };
};
