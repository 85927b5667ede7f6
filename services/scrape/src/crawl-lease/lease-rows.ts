import type { PageResult } from '../ladder/ladder.service.js';
import type { CrawlRowRef, PageRepository } from '../repositories/page.repository.js';
import { CallBatcher } from '../batching/call-batcher.js';

/** Rows one statement writes at most, and how long a row waits for company. */
const ROWS_A_STATEMENT = 32;
const ROW_LINGER_MS = 5;

/**
 * The first rows of leased crawl pages (ADR 14), written with the rows of the pages this worker
 * read within ~5 ms: one statement for them all (`insertCrawlRowsApart`: one row that cannot be
 * stored fails its own page only).
 */
export class LeaseRows {
  private readonly batcher: CallBatcher<{ ref: CrawlRowRef; result: PageResult }, { error: unknown } | null>;

  constructor(pages: Pick<PageRepository, 'insertCrawlRowsApart'>) {
    this.batcher = new CallBatcher((rows) => pages.insertCrawlRowsApart(rows), 2, ROWS_A_STATEMENT, ROW_LINGER_MS);
  }

  async write(ref: CrawlRowRef, result: PageResult): Promise<void> {
    const failed = await this.batcher.call({ ref, result });
    if (failed) throw failed.error;
  }
}
