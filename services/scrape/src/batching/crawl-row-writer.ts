import type { PageResult } from '../ladder/ladder.service.js';
import type { PageRepository } from '../repositories/page.repository.js';
import { CallBatcher } from './call-batcher.js';

type CrawlRowRef = { workspaceId: string; jobId: string; runId: string; position: number };
type Outcome = { inserted: boolean } | { error: unknown };

/**
 * Writes crawl pages' rows, the pages that finish while a write is out going together in the
 * next statement. A statement that fails is written again row by row, so one row that cannot
 * be stored fails its own page only. Each page still waits for its own row to commit before its
 * result is handed to the crawl.
 */
export class CrawlRowWriter {
  private readonly batcher: CallBatcher<{ ref: CrawlRowRef; result: PageResult }, Outcome>;

  constructor(private readonly pages: PageRepository) {
    this.batcher = new CallBatcher((items) => this.write(items), 2, 64);
  }

  /** Whether the row was written (false: it existed, a redelivered page). */
  async insert(ref: CrawlRowRef, result: PageResult): Promise<boolean> {
    const outcome = await this.batcher.call({ ref, result });
    if ('error' in outcome) throw outcome.error;
    return outcome.inserted;
  }

  private async write(items: { ref: CrawlRowRef; result: PageResult }[]): Promise<Outcome[]> {
    try {
      return (await this.pages.insertCrawlRows(items)).map((inserted) => ({ inserted }));
    } catch (err) {
      if (items.length === 1) return [{ error: err }];
      const one = async (item: { ref: CrawlRowRef; result: PageResult }): Promise<Outcome> => {
        try {
          const [inserted] = await this.pages.insertCrawlRows([item]);
          return { inserted: inserted! };
        } catch (error) {
          return { error };
        }
      };
      const outcomes: Outcome[] = [];
      for (const item of items) outcomes.push(await one(item));
      return outcomes;
    }
  }
}
