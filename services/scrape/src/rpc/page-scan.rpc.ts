import type { scrapeV1 } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import { storedBodies, type PageRepository } from '../repositories/page.repository.js';
import type { PageReaderPool } from '../reading/page-reader-pool.js';
import { pageScanner } from './page-scan.js';

/** Rows read from the database at a time: bounded memory however many positions are asked. */
const BATCH = 100;
const MAX_POSITIONS = 5_000;

/**
 * gRPC in: a project's page search scans stored bodies here, where they and the parser live;
 * only the matches go back (the crawl service asks in chunks and merges them).
 */
export const pageScanRpc = (pages: PageRepository, reader: PageReaderPool) => ({
  scanPages: async (req: scrapeV1.ScanPagesRequest): Promise<scrapeV1.ScanPagesResponse> => {
    const scan = await pageScanner(req.mode, req.q, reader);
    if (req.positions.length > MAX_POSITIONS) throw new ValidationError(`at most ${MAX_POSITIONS} positions a call`);
    const out: scrapeV1.ScanPagesResponse = { matches: [], scanned: 0, unscanned: 0 };
    for (let i = 0; i < req.positions.length; i += BATCH) {
      const rows = await pages.atPositions(req.workspaceId, req.jobId, req.positions.slice(i, i + BATCH));
      // A position without a row (never written) has no body either.
      out.unscanned += Math.min(BATCH, req.positions.length - i) - rows.length;
      // Selector pages are parsed on the reading threads, several at once.
      const hits = await Promise.all(rows.map((row) => scan(storedBodies(row), row.url)));
      for (const [n, row] of rows.entries()) {
        const hit = hits[n]!;
        if (hit === null) out.unscanned += 1;
        else {
          out.scanned += 1;
          if (hit.count > 0) out.matches.push({ position: row.position, url: row.url, ...hit });
        }
      }
    }
    return out;
  },
});
