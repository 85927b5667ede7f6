import type { LeasedPageResult } from './generated/tidemark/crawl/v1/crawl_lease.js';
import type { CrawlPageResultMessage } from './messages.js';

/**
 * A crawl page's result on a lease's pull (CrawlLeaseService, ADR 14) and back: the same fields
 * as `work.crawl.pages` carries, proto's empty values standing for null.
 */
export const leasedResultToProto = (r: CrawlPageResultMessage): LeasedPageResult => ({
  position: r.position,
  attempt: r.attempt,
  method: r.method ?? '',
  status: r.status,
  verdict: r.verdict ?? '',
  errorCode: r.errorCode ?? '',
  httpStatus: r.httpStatus ?? 0,
  credits: r.credits,
  finalUrl: r.finalUrl ?? '',
  links: r.links,
  linksInRow: r.linksInRow,
  retryAfterMs: r.retryAfterMs ?? 0,
  creditsExhausted: r.creditsExhausted,
  gaveUp: r.gaveUp,
});

export const leasedResultFromProto = (
  crawl: Pick<CrawlPageResultMessage, 'jobId' | 'runId' | 'workspaceId'>,
  r: LeasedPageResult,
): CrawlPageResultMessage => ({
  jobId: crawl.jobId,
  runId: crawl.runId,
  workspaceId: crawl.workspaceId,
  position: r.position,
  attempt: r.attempt,
  method: r.method || null,
  status: r.status,
  verdict: r.verdict || null,
  errorCode: r.errorCode || null,
  httpStatus: r.httpStatus || null,
  credits: r.credits,
  finalUrl: r.finalUrl || null,
  links: r.links,
  linksInRow: r.linksInRow,
  retryAfterMs: r.retryAfterMs || null,
  creditsExhausted: r.creditsExhausted,
  gaveUp: r.gaveUp,
});
