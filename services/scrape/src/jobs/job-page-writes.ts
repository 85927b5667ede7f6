import { CallBatcher } from '../batching/call-batcher.js';
import type { PageResult } from '../ladder/ladder.service.js';
import type { PageRepository } from '../repositories/page.repository.js';

/**
 * How long a batch page's row waits for others to share its statement. It is written while the
 * page's charge waits for company of its own (a batch's pages charge like a crawl's), so the wait
 * costs the page nothing it was not already spending.
 */
const BEHIND_LINGER_MS = 20;
/** Most rows one statement writes: a few MB of bodies at most. */
const MAX_ROWS = 32;

type Written = { jobId: string; position: number; result: PageResult };
/** A row's write: whether it was written (false: cancelled meanwhile), or why it could not be. */
type Outcome = { written: boolean } | { error: unknown };

/**
 * A scrape job's rows as its pages take and write them, through shared statements: claims and
 * writes that come while one is out go together in the next (one round trip and one statement
 * for the pages that settled together). A one-URL scrape's row goes at once when nothing is out;
 * a batch page's (`behind`: nothing waits on it but its message's ack) waits a little for company.
 */
export class JobPageWrites {
  private readonly claims: CallBatcher<{ jobId: string; position: number }, boolean>;
  private readonly completes: CallBatcher<Written, Outcome>;
  private readonly completesBehind: CallBatcher<Written, Outcome>;

  constructor(pages: PageRepository) {
    this.claims = new CallBatcher((rows) => pages.claimMany(rows), 1, 256);
    // A statement that fails is written again row by row: one row PostgreSQL refuses (a value it
    // cannot hold, a constraint) fails its own page only, not the pages it shared a statement with.
    const completeMany = async (rows: Written[]): Promise<Outcome[]> => {
      try {
        return (await pages.completeMany(rows)).map((written) => ({ written }));
      } catch (error) {
        if (rows.length === 1) return [{ error }];
        const alone: Outcome[] = [];
        for (const row of rows) alone.push(...(await completeMany([row])));
        return alone;
      }
    };
    this.completes = new CallBatcher(completeMany, 2, MAX_ROWS);
    this.completesBehind = new CallBatcher(completeMany, 2, MAX_ROWS, BEHIND_LINGER_MS);
  }

  /** Takes a row for fetching (PageRepository.claim). */
  claim(jobId: string, position: number): Promise<boolean> {
    return this.claims.call({ jobId, position });
  }

  /** Writes a fetched page (PageRepository.complete). */
  async complete(jobId: string, position: number, result: PageResult, behind: boolean): Promise<boolean> {
    const outcome = await (behind ? this.completesBehind : this.completes).call({ jobId, position, result });
    if ('error' in outcome) throw outcome.error;
    return outcome.written;
  }
}
