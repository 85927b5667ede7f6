import { leasedResultFromProto, type crawlLeaseV1 } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { CrawlEngine } from '../crawl/crawl-engine.js';
import type { StoredPagesRepository } from '../pages/stored-pages.repository.js';
import { withStoredLinks } from '../work/crawl-pages.handler.js';

/**
 * gRPC in: a lease holder's pull (ADR 14). Pages whose links were too many to carry get them
 * from their stored rows, which the worker wrote before it handed them back.
 */
export const crawlLeaseRpc = (engine: CrawlEngine, stored: Pick<StoredPagesRepository, 'linksAt'>) => ({
  pullCrawlWork: async (req: crawlLeaseV1.PullCrawlWorkRequest): Promise<crawlLeaseV1.PullCrawlWorkResponse> => {
    if (!req.jobId || !req.runId || !req.workspaceId)
      throw new ValidationError('a pull names its crawl, run and workspace');
    const results = await withStoredLinks(
      stored,
      req.results.map((r) => leasedResultFromProto(req, r)),
    );
    return engine.pull({
      jobId: req.jobId,
      slot: req.slot,
      generation: req.generation,
      delivery: req.delivery,
      holder: req.holder,
      results,
      returned: req.returned,
      resync: req.resync,
      release: req.release,
      handOver: req.handOver,
    });
  },
});
