import type { GiveUpHandler, WorkHandler } from '@tidemark/bus';
import type { CrawlEngine } from '../crawl/crawl-engine.js';

/** NATS in: `work.crawl.page`, a page the scrape service settled, with its links. */
export const crawlPageHandler =
  (engine: CrawlEngine): WorkHandler<'work.crawl.page'> =>
  (msg) =>
    engine.settle(msg);

/** Its settle step failed on every delivery: the page settles without its links, the crawl goes on. */
export const crawlPageGiveUp =
  (engine: CrawlEngine): GiveUpHandler<'work.crawl.page'> =>
  (msg, ctx) =>
    engine.settleGivenUp(msg, `its links could not be taken in (${ctx.error.code}, ${ctx.deliveryCount} tries)`);
