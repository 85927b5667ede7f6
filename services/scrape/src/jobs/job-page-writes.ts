import { CallBatcher } from '../batching/call-batcher.js';
import type { PageResult } from '../ladder/ladder.service.js';
import type { JobAfterPage } from '../repositories/job.repository.js';
import type { PageRepository } from '../repositories/page.repository.js';

/**
 * How long a batch page waits for others to share its settling statement. Pages whose charges
 * went in one call come together anyway; the wait gathers the next call's too.
 */
const BEHIND_LINGER_MS = 5;
/**
 * Most pages one statement settles. What it carries is bounded by the pages a replica has in
 * flight (SCRAPE_CONCURRENCY), whose results are in memory already.
 */
const MAX_ROWS = 32;

type Settling = { jobId: string; position: number; result: PageResult };
/**
 * A page settled: whether its row was written (false: cancelled meanwhile) and its job as the
 * count left it (`finishedNow` true for the one page that ended it), or why it could not be.
 */
export type Settled = { written: false } | { written: true; after: JobAfterPage };
type Outcome = Settled | { error: unknown };

/**
 * A scrape job's rows as its pages take and settle them, through shared statements: claims and
 * settlements that come while one is out go together in the next (one round trip and one
 * statement for the pages that settled together). A one-URL scrape's page goes at once when
 * nothing is out; a batch page's (`behind`: nothing waits on it but its message's ack) waits a
 * little for company.
 */
export class JobPageWrites {
  private readonly claims: CallBatcher<{ jobId: string; position: number; reclaim: boolean }, boolean>;
  private readonly settles: CallBatcher<Settling, Outcome>;
  private readonly settlesBehind: CallBatcher<Settling, Outcome>;

  constructor(pages: PageRepository) {
    this.claims = new CallBatcher((rows) => pages.claimMany(rows), 1, 256);
    // A statement that fails is run again page by page: one row PostgreSQL refuses (a value it
    // cannot hold, a constraint) fails its own page only, not the pages it shared a statement with.
    const settleMany = async (items: Settling[]): Promise<Outcome[]> => {
      let settled: Awaited<ReturnType<PageRepository['settleMany']>>;
      try {
        settled = await pages.settleMany(items);
      } catch (error) {
        if (items.length === 1) return [{ error }];
        const alone: Outcome[] = [];
        for (const item of items) alone.push(...(await settleMany([item])));
        return alone;
      }
      // A job's end, and the URLs the count let on, belong to one of its pages, the last of them
      // written here: it announces the end and publishes those.
      const last = new Map<string, number>();
      items.forEach((item, i) => settled.written[i] && last.set(item.jobId, i));
      return items.map((item, i): Outcome => {
        const after = settled.jobs.get(item.jobId);
        if (!settled.written[i] || !after) return { written: false };
        const its = last.get(item.jobId) === i;
        return {
          written: true,
          after: { ...after, finishedNow: after.finishedNow && its, dispatch: its ? after.dispatch : null },
        };
      });
    };
    this.settles = new CallBatcher(settleMany, 2, MAX_ROWS);
    this.settlesBehind = new CallBatcher(settleMany, 2, MAX_ROWS, BEHIND_LINGER_MS);
  }

  /** Takes a row for fetching (PageRepository.claimMany; `reclaim`: a row left running too). */
  claim(jobId: string, position: number, reclaim: boolean): Promise<boolean> {
    return this.claims.call({ jobId, position, reclaim });
  }

  /** Writes a fetched (and charged) page's row and counts it into its job (PageRepository.settleMany). */
  async settle(jobId: string, position: number, result: PageResult, behind: boolean): Promise<Settled> {
    const outcome = await (behind ? this.settlesBehind : this.settles).call({ jobId, position, result });
    if ('error' in outcome) throw outcome.error;
    return outcome;
  }
}
