import type { WorkHandler } from '@tidemark/bus';
import type { CrawlEngine } from '../crawl/crawl-engine.js';

/** NATS in: `work.crawl.start`. Robots and sitemaps, the seed, the first pages out. */
export const crawlStartHandler =
  (engine: CrawlEngine): WorkHandler<'work.crawl.start'> =>
  (msg, ctx) =>
    engine.start(msg.jobId, ctx.deliveryCount >= CRAWL_START_MAX_DELIVER);

export const CRAWL_START_MAX_DELIVER = 5;
