import type { GiveUpHandler, WorkHandler } from '@tidemark/bus';
import type { CrawlPageResultMessage } from '@tidemark/contracts';
import type { CrawlEngine } from '../crawl/crawl-engine.js';
import type { StoredPagesRepository } from '../pages/stored-pages.repository.js';

/**
 * Pages whose links were too many for the message (`linksInRow`) get them from their stored rows,
 * which scrape wrote before it sent the message; a row that kept none gives none.
 */
export const withStoredLinks = async (
  stored: Pick<StoredPagesRepository, 'linksAt'>,
  pages: CrawlPageResultMessage[],
): Promise<CrawlPageResultMessage[]> => {
  const inRow = pages.filter((p) => p.linksInRow);
  if (!inRow.length) return pages;
  const links = await stored.linksAt(
    inRow[0]!.jobId,
    inRow.map((p) => p.position),
  );
  return pages.map((p) => (p.linksInRow ? { ...p, links: links.get(p.position) ?? [] } : p));
};

/** NATS in: `work.crawl.pages`, pages of one crawl the scrape service settled, with their links. */
export const crawlPagesHandler =
  (engine: CrawlEngine, stored: Pick<StoredPagesRepository, 'linksAt'>): WorkHandler<'work.crawl.pages'> =>
  async (msg) =>
    engine.settle(await withStoredLinks(stored, msg.pages));

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
