import type { ContentResult } from '@tidemark/content';
import type { ScrapeFormat } from '@tidemark/contracts';
import { storable } from '@tidemark/db/storable';
import { encodeBodies } from '@tidemark/page-store';
import type { Bodies } from '../ladder/ladder.service.js';

/** The bodies a page's row keeps: the formats asked for, of what its reading produced. */
export const keptBodies = (formats: readonly ScrapeFormat[], content: ContentResult, html: string): Bodies => {
  const asked = new Set(formats);
  return {
    ...(asked.has('markdown') && content.markdown !== undefined ? { markdown: content.markdown } : {}),
    ...(asked.has('text') && content.text !== undefined ? { text: content.text } : {}),
    ...(asked.has('cleanHtml') && content.cleanHtml !== undefined ? { cleanHtml: content.cleanHtml } : {}),
    ...(asked.has('rawHtml') ? { html } : {}),
    ...(asked.has('links') && content.links ? { links: content.links } : {}),
  };
};

/**
 * The kept bodies as the page's row stores them (storable, then page-store's encoding): made
 * on the reading thread, so the event loop neither walks nor compresses them.
 */
export const storedBodies = (bodies: Bodies): Uint8Array<ArrayBuffer> | null => encodeBodies(storable(bodies));
