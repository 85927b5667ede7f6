import { extractContent, parseDocument, type ContentResult } from '@tidemark/content';
import { decideVerdict, pageFeatures, type VerdictResult } from '@tidemark/verdict';
import type { Fetched } from '../ladder/http-rung.js';
import type { LadderOptions } from '../ladder/options.js';
import type { DocumentFacts } from './documents/types.js';
import { keptBodies, storedBodies } from './kept-bodies.js';

export interface PageReading {
  verdict: VerdictResult;
  content: ContentResult;
  /** A document's facts (type, bytes, priced pages): the ladder prices it by its pages. */
  document?: DocumentFacts;
  /** The row's reason when the error code's meaning alone would not say it (an encrypted PDF). */
  reason?: string;
  /** The bodies the row keeps, as it stores them (`keptBodies`, `storedBodies`); null: none. */
  stored?: Uint8Array<ArrayBuffer> | null;
}

const isMarkup = (contentType: string, body: string) =>
  contentType === '' || /html|xml/i.test(contentType) || /^\s*</.test(body.slice(0, 200));

/**
 * Reads one fetched page: parse once, take the verdict's features before the content pipeline
 * cleans the tree, then extract the requested formats.
 */
export const readPage = (
  fetched: Fetched,
  tier: 'http' | 'browser',
  opts: LadderOptions,
  widget?: string,
): PageReading => {
  const c = opts.config.content;
  const html = isMarkup(fetched.contentType, fetched.html)
    ? fetched.html
    : `<html><body><pre>${fetched.html.replace(/[<&]/g, (ch) => (ch === '<' ? '&lt;' : '&amp;'))}</pre></body></html>`;
  const doc = parseDocument(html);
  const features = pageFeatures(doc, html, { status: fetched.status });
  const content = extractContent(
    doc,
    {
      url: fetched.finalUrl,
      formats: opts.formats.filter((f) => f !== 'screenshot'),
      onlyMainContent: c.only_main_content,
      includeTags: c.include_tags,
      excludeTags: c.exclude_tags,
      removeBanners: c.remove_banners,
      removeBase64Images: c.remove_base64_images,
      fields: c.fields,
    },
    fetched.html,
  );
  const verdict = decideVerdict(
    { tier, status: fetched.status, headers: fetched.headers, ...(widget ? { widget } : {}) },
    features,
    { words: content.words, language: content.language, declared: content.declared === true },
    { minWords: c.min_words, languages: c.languages },
  );
  return { verdict, content, stored: storedBodies(keptBodies(opts.formats, content, fetched.html)) };
};
