import type { WorkHandler } from '@tidemark/bus';
import type { CrawlEngine } from '../crawl/crawl-engine.js';

/** NATS in: `work.crawl.page`, a page the scrape service settled, with its links. */
export const crawlPageHandler =
  (engine: CrawlEngine): WorkHandler<'work.crawl.page'> =>
  (msg) =>
    engine.settle(msg);
