import { pageRowFromProto, scrapeV1, type PageRow } from '@tidemark/contracts';
import { InternalError } from '@tidemark/errors';
import { connectClient } from '@tidemark/rpc';
import type { RowsPort } from '../crawl/crawl.service.js';
import type { ScrapePagesPort } from '../pages/pages.service.js';

/** A page of a crawl's rows with their bodies can pass gRPC's default 4 MB message. */
const BIG_MESSAGES = { 'grpc.max_receive_message_length': 64 * 1024 * 1024 };

/**
 * The scrape service as crawl reaches it: the rows scrape wrote for a crawl's pages (crawl owns
 * their order and link graph), searches over their stored bodies and content previews.
 */
export const scrapeClient = (address: string): RowsPort & ScrapePagesPort & { close(): void } => {
  const scrape = connectClient(scrapeV1.ScrapeServiceClient, address, 'scrape', BIG_MESSAGES);
  return {
    rowsAt: async (workspaceId, jobId, positions, formats) => {
      // Rows with their bodies (or a full-page screenshot) are megabytes: room past the 5 s default.
      const res = await scrape.call('getPageRows', { workspaceId, jobId, positions, formats }, 30_000);
      const rows = new Map(
        res.rows.map((r): [number, PageRow] => {
          if (!r.row) throw new InternalError(new Error(`scrape answered position ${r.position} without its row`));
          return [r.position, pageRowFromProto(r.row)];
        }),
      );
      return { rows, positionsRead: res.positionsRead };
    },
    // A search scans a run's stored bodies chunk by chunk: a large one takes a while.
    scan: (req) => scrape.call('scanPages', req, 120_000),
    preview: (req) => scrape.call('previewContent', req, 30_000),
    explainRemovals: (req) => scrape.call('explainRemovals', req, 30_000),
    close: () => scrape.close(),
  };
};
