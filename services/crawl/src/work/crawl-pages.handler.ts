import type { GiveUpHandler, WorkHandler } from '@tidemark/bus';
import type { CrawlEngine } from '../crawl/crawl-engine.js';

/** NATS in: `work.crawl.pages`, pages of one crawl the scrape service settled, with their links. */
export const crawlPagesHandler =
  (engine: CrawlEngine): WorkHandler<'work.crawl.pages'> =>
  (msg) =>
    engine.settle(msg.pages);

/** Their settle step failed on every delivery: each page settles without its links, the crawl goes on. */
export const crawlPagesGiveUp =
  (engine: CrawlEngine): GiveUpHandler<'work.crawl.pages'> =>
  async (msg, ctx) => {
    for (const page of msg.pages)
      await engine.settleGivenUp(
        page,
        `its links could not be taken in (${ctx.error.code}, ${ctx.deliveryCount} tries)`,
      );
  };
