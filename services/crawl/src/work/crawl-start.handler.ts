import type { GiveUpHandler, WorkHandler } from '@tidemark/bus';
import type { CrawlEngine } from '../crawl/crawl-engine.js';

/** NATS in: `work.crawl.start`. Robots and sitemaps, the seed, the first pages out. */
export const crawlStartHandler =
  (engine: CrawlEngine): WorkHandler<'work.crawl.start'> =>
  (msg, ctx) =>
    engine.start(msg.jobId, ctx.deliveryCount >= CRAWL_START_MAX_DELIVER);

/** The start failed for good: the crawl (or run) ends as an error with the reason. */
export const crawlStartGiveUp =
  (engine: CrawlEngine): GiveUpHandler<'work.crawl.start'> =>
  (msg, ctx) =>
    engine
      .fail(
        { id: msg.jobId, runId: msg.runId },
        `the crawl could not start (${ctx.error.code}, ${ctx.deliveryCount} ${ctx.deliveryCount === 1 ? 'try' : 'tries'})`,
      )
      .then(() => undefined);

export const CRAWL_START_MAX_DELIVER = 5;
