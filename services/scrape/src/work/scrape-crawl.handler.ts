import type { Bus, GiveUpHandler, WorkHandler } from '@tidemark/bus';
import { scrapeRequestSchema, type CrawlPageResultMessage, type ScrapeCrawlPageMessage } from '@tidemark/contracts';
import { emptyRow, robotsResult, type LadderService, type PageResult } from '../ladder/ladder.service.js';
import { resolveOptions, type LadderOptions } from '../ladder/options.js';
import { storedBodies, type PageRepository } from '../repositories/page.repository.js';
import { CrawlHandOff, linkBytes, LINKS_CARRIED_BYTES } from '../batching/crawl-hand-off.js';
import { gaveUpResult, PageNotStored, storing } from './give-up.js';

/**
 * A crawl's pages share one request: parsed once per job, not once per page. The seed's may
 * differ in its formats (STORE_HTML home keeps its raw html), so formats are part of the key.
 */
export class OptionsCache {
  private readonly byJob = new Map<string, LadderOptions>();
  /** The options, or why the request cannot be read (retrying would not change that). */
  get(msg: Pick<ScrapeCrawlPageMessage, 'jobId' | 'request' | 'url'>): LadderOptions | { invalid: string } {
    const key = `${msg.jobId}|${JSON.stringify((msg.request as { scrapeOptions?: unknown }).scrapeOptions ?? null)}`;
    let opts = this.byJob.get(key);
    if (!opts) {
      const parsed = scrapeRequestSchema.safeParse({ ...msg.request, url: msg.url });
      if (!parsed.success) return { invalid: parsed.error.issues.map((i) => i.message).join('; ') };
      // robots.txt is the crawl's to apply: it decided before it dispatched the page.
      opts = { ...resolveOptions(parsed.data), respectRobots: false };
      // The crawl follows links whatever formats were asked: they are always kept for the graph.
      if (!opts.formats.includes('links')) opts = { ...opts, formats: [...opts.formats, 'links'] };
      if (this.byJob.size >= 256) this.byJob.delete(this.byJob.keys().next().value!);
      this.byJob.set(key, opts);
    }
    return opts;
  }
}

export const invalidResult = (url: string, why: string): PageResult => ({
  row: {
    ...emptyRow(url),
    status: 'error',
    reason: `the crawl's page options could not be read: ${why}`,
    crawledAt: new Date().toISOString(),
  },
  bodies: {},
});

/** A crawl page as the crawl dispatched it (a paged crawl's message, a leased URL). */
type DispatchedPage = Pick<ScrapeCrawlPageMessage, 'jobId' | 'runId' | 'workspaceId' | 'position' | 'attempt' | 'url'>;

/** A settled page's result for the crawl, either engine's; links past LINKS_CARRIED_BYTES stay in its row. */
export const toResultMessage = (msg: DispatchedPage, result: PageResult, all: string[]): CrawlPageResultMessage => {
  const linksInRow = linkBytes(all) > LINKS_CARRIED_BYTES;
  return { ...resultFields(msg, result), links: linksInRow ? [] : all, linksInRow };
};

const resultFields = (msg: DispatchedPage, result: PageResult) => ({
  jobId: msg.jobId,
  runId: msg.runId,
  workspaceId: msg.workspaceId,
  position: msg.position,
  attempt: msg.attempt,
  method: result.row.method ?? null,
  status: result.row.status,
  verdict: result.row.verdict,
  errorCode: result.row.errorCode,
  httpStatus: result.row.httpStatus,
  credits: result.row.credits,
  finalUrl: result.row.finalUrl && result.row.finalUrl !== msg.url ? result.row.finalUrl : null,
  retryAfterMs: result.row.retryAfter !== undefined ? result.row.retryAfter * 1000 : null,
  creditsExhausted: result.creditsExhausted === true,
  gaveUp: false,
});

/**
 * NATS in: `work.scrape.crawl`, one page of a crawl. The crawl decided it may be fetched now
 * (politeness is the crawl's); this runs the ladder, writes the row and hands the links back on
 * `work.crawl.pages` with the other pages this worker finishes close together (`CrawlHandOff`,
 * `handOffLingerMs`). A redelivered message whose row was written answers from the stored row
 * instead of fetching again.
 */
export const scrapeCrawlHandler = (deps: {
  bus: Bus;
  pages: PageRepository;
  ladder: LadderService;
  handOffLingerMs?: number;
}): WorkHandler<'work.scrape.crawl'> => {
  const options = new OptionsCache();
  const handOff = new CrawlHandOff(deps.pages, deps.bus, deps.handOffLingerMs ?? 0);
  return async (msg, { deliveryCount }) => {
    const ref = { workspaceId: msg.workspaceId, jobId: msg.jobId, runId: msg.runId, position: msg.position };
    const { result, links, row } = await handOff
      .inTheWorks(async () => {
        // Only a redelivered message can find its own row written (its worker died before acking):
        // the row of the same attempt (a retry finds its earlier attempt's row, and fetches). Its
        // creditsExhausted is not kept: if the credits are out, the crawl's next page says so.
        const found = deliveryCount > 1 ? await deps.pages.findAt(msg.jobId, msg.position) : null;
        const stored = found?.attempt === msg.attempt ? found : null;
        if (stored) {
          const answer: PageResult = { row: stored.data as unknown as PageResult['row'], bodies: {} };
          // Its worker may have died before the page's charge was written: sent again (idempotent).
          answer.charged = deps.ladder.chargeAgain(ref, answer.row);
          answer.charged.catch(() => undefined);
          return { result: answer, links: storedBodies(stored).links ?? [], row: null };
        }
        const opts = msg.robotsDisallowed ? null : options.get(msg);
        const fetched = msg.robotsDisallowed
          ? robotsResult(msg.url)
          : 'invalid' in opts!
            ? invalidResult(msg.url, opts.invalid)
            : await deps.ladder.scrape(
                {
                  ...ref,
                  url: msg.url,
                  creditPool: { id: msg.jobId, chargesLinger: true },
                  chargeBehind: true,
                  bulk: true,
                },
                opts!,
              );
        // A retry replaces its earlier attempt's row on its own; a first row goes with the others'.
        if (msg.attempt > 0) await storing(fetched, () => deps.pages.rewriteCrawlRow(ref, fetched, msg.attempt));
        return { result: fetched, links: fetched.bodies.links ?? [], row: msg.attempt > 0 ? null : fetched };
      })
      .catch(async (err: unknown) => {
        // A row that could not be stored keeps its cost (gaveUpResult): its charge is seen through.
        if (err instanceof PageNotStored) await err.result.charged?.catch(() => undefined);
        throw err;
      });
    await handOff.hand({ ref, row, answer: toResultMessage(msg, result, links) }).catch(async (err: unknown) => {
      await result.charged?.catch(() => undefined);
      throw err;
    });
    // The crawl goes on with the result while the charge is written with other pages' charges;
    // the message is acked only once it is (a failure: redelivered, and charged from its row).
    await result.charged;
  };
};

/**
 * `work.scrape.crawl` given up after its last redelivery: an error row with the reason (unless a
 * row was written: then that row stands), and the result goes to the crawl all the same, marked
 * given up so the crawl settles the URL without trying it again.
 */
export const scrapeCrawlGiveUp =
  (deps: {
    bus: Bus;
    pages: PageRepository;
    ladder: Pick<LadderService, 'chargeAgain'>;
  }): GiveUpHandler<'work.scrape.crawl'> =>
  async (msg, ctx) => {
    const ref = { workspaceId: msg.workspaceId, jobId: msg.jobId, runId: msg.runId, position: msg.position };
    const result = gaveUpResult(msg.url, ctx);
    let stored = await deps.pages.findAt(msg.jobId, msg.position);
    // An earlier attempt's row does not stand for this one.
    if (!stored || stored.attempt !== msg.attempt) {
      // The row may be what cannot be written: the result reaches the crawl even then.
      await deps.pages.giveUpCrawlRow(ref, result, msg.attempt).catch(() => undefined);
      stored = null;
    } else {
      // Its row stands, and so does its cost: a last try at the charge its deliveries could not write.
      await deps.ladder.chargeAgain(ref, stored.data as unknown as PageResult['row']).catch(() => undefined);
    }
    const answer = stored ? { row: stored.data as unknown as PageResult['row'], bodies: {} } : result;
    const page = { ...toResultMessage(msg, answer, stored ? (storedBodies(stored).links ?? []) : []), gaveUp: !stored };
    await deps.bus.publishWork(
      'work.crawl.pages',
      { pages: [page] },
      { msgId: `${msg.jobId}:${msg.position}:${msg.attempt}:gave-up` },
    );
  };
