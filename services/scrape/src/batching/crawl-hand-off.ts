import { createHash } from 'node:crypto';
import type { Bus } from '@tidemark/bus';
import { MAX_CRAWL_PAGES_A_MESSAGE, type CrawlPageResultMessage } from '@tidemark/contracts';
import type { PageResult } from '../ladder/ladder.service.js';
import type { CrawlRowRef, PageRepository } from '../repositories/page.repository.js';
import { PageNotStored } from '../work/give-up.js';
import { CallBatcher } from './call-batcher.js';

/** A settled crawl page on its way back to the crawl: its row to write (or written), its result. */
export interface HandedPage {
  ref: CrawlRowRef;
  /** The page's first row is written with the others' (a retry or a redelivery wrote its own). */
  row: PageResult | null;
  answer: CrawlPageResultMessage;
}

type Outcome = { ok: true } | { error: unknown };

/**
 * Hands crawl pages back to the crawl. The pages a worker finishes close together go together:
 * their rows in one statement, then one `work.crawl.pages` message for each crawl's pages, which
 * the crawl settles in one step. A batch waits up to `lingerMs` for company while other crawl
 * pages are in the works here, never when none is. A page's row commits before its result goes;
 * a row that cannot be written fails its own page only (PageNotStored), and its result is not
 * sent.
 */
export class CrawlHandOff {
  private readonly batcher: CallBatcher<HandedPage, Outcome>;
  /** Crawl pages this worker is fetching or reading: results that may come soon. */
  private working = 0;

  constructor(
    private readonly pages: PageRepository,
    private readonly bus: Bus,
    lingerMs: number,
  ) {
    this.batcher = new CallBatcher(
      (items) => this.send(items),
      2,
      MAX_CRAWL_PAGES_A_MESSAGE,
      lingerMs,
      () => this.working > 0,
    );
  }

  /** Runs a page's work, counted as in the works while it runs. */
  async inTheWorks<T>(work: () => Promise<T>): Promise<T> {
    this.working += 1;
    try {
      return await work();
    } finally {
      this.working -= 1;
    }
  }

  /** Resolves once the page's row is stored and its result published. */
  async hand(page: HandedPage): Promise<void> {
    const outcome = await this.batcher.call(page);
    if ('error' in outcome) throw outcome.error;
  }

  private async send(items: HandedPage[]): Promise<Outcome[]> {
    const outcomes = await this.writeRows(items);
    await Promise.all(
      messagesOf(
        items.flatMap((_, i) => ('error' in outcomes[i]! ? [] : [i])),
        items,
      ).map(async (message) => {
        const pages = message.map((i) => items[i]!.answer);
        try {
          await this.bus.publishWork('work.crawl.pages', { pages }, { msgId: messageId(pages) });
        } catch (error) {
          for (const i of message) outcomes[i] = { error };
        }
      }),
    );
    return outcomes;
  }

  /** The first rows in one statement; a statement that fails is written again row by row. */
  private async writeRows(items: HandedPage[]): Promise<Outcome[]> {
    const rows = items.flatMap((item, i) => (item.row ? [{ i, ref: item.ref, result: item.row }] : []));
    const outcomes: Outcome[] = items.map(() => ({ ok: true }));
    const failed = await this.pages.insertCrawlRowsApart(rows);
    rows.forEach((row, k) => {
      const why = failed[k];
      if (why) outcomes[row.i] = { error: new PageNotStored(row.result, why.error) };
    });
    return outcomes;
  }
}

/**
 * Bytes of links one page's result carries at most. A page past it (a link farm, an HTML
 * sitemap of the whole site) hands its links back through its stored row instead: a message over
 * NATS's max_payload (1 MB by default) would be refused on every try and the page never settled.
 */
export const LINKS_CARRIED_BYTES = 256 * 1024;

/** What a page's links weigh in a message (each link and its JSON quotes and comma). */
export const linkBytes = (links: string[]): number => links.reduce((n, link) => n + link.length + 3, 0);

/**
 * Bytes of links one message carries at most (NATS refuses a message over its max_payload, 1 MB
 * by default): pages with many links go in more messages, a page over it in one of its own.
 */
const MESSAGE_LINK_BYTES = 512 * 1024;

/** The messages of the pages at `indexes` (of `items`): one crawl's pages a message, within the link budget. */
const messagesOf = (indexes: number[], items: HandedPage[]): number[][] => {
  const open = new Map<string, { indexes: number[]; bytes: number }>();
  const messages: number[][] = [];
  for (const i of indexes) {
    const { jobId, links } = items[i]!.answer;
    const bytes = linkBytes(links);
    let message = open.get(jobId);
    if (!message || message.bytes + bytes > MESSAGE_LINK_BYTES) {
      message = { indexes: [], bytes: 0 };
      open.set(jobId, message);
      messages.push(message.indexes);
    }
    message.indexes.push(i);
    message.bytes += bytes;
  }
  return messages;
};

/**
 * The same pages at the same attempts make the same id, so a batch published twice (its publish
 * answered late and was sent again) is dropped by JetStream; a page sent again in other company
 * is settled once all the same (the crawl's step skips a settled page).
 */
const messageId = (pages: CrawlPageResultMessage[]): string =>
  `${pages[0]!.jobId}:${createHash('sha1')
    .update(pages.map((p) => `${p.position}.${p.attempt}`).join(','))
    .digest('hex')}:settled`;
