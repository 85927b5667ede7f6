import type { CrawlPageResultMessage, crawlLeaseV1 } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { CrawlEngine } from '../crawl/crawl-engine.js';
import type { StoredPagesRepository } from '../pages/stored-pages.repository.js';

const resultOf = (
  req: crawlLeaseV1.PullCrawlWorkRequest,
  r: crawlLeaseV1.LeasedPageResult,
): CrawlPageResultMessage => ({
  jobId: req.jobId,
  runId: req.runId,
  workspaceId: req.workspaceId,
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
  gaveUp: false,
});

/**
 * gRPC in: a lease holder's pull (ADR 14). Pages whose links were too many to carry get them
 * from their stored rows, which the worker wrote before it handed them back.
 */
export const crawlLeaseRpc = (engine: CrawlEngine, stored: Pick<StoredPagesRepository, 'linksAt'>) => ({
  pullCrawlWork: async (req: crawlLeaseV1.PullCrawlWorkRequest): Promise<crawlLeaseV1.PullCrawlWorkResponse> => {
    if (!req.jobId || !req.runId || !req.workspaceId)
      throw new ValidationError('a pull names its crawl, run and workspace');
    let results = req.results.map((r) => resultOf(req, r));
    const inRow = results.filter((p) => p.linksInRow);
    if (inRow.length) {
      const links = await stored.linksAt(
        req.jobId,
        inRow.map((p) => p.position),
      );
      results = results.map((p) => (p.linksInRow ? { ...p, links: links.get(p.position) ?? [] } : p));
    }
    return engine.pull({
      jobId: req.jobId,
      generation: req.generation,
      delivery: req.delivery,
      results,
      returned: req.returned,
      resync: req.resync,
      release: req.release,
    });
  },
});
