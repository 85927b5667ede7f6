import { DOCUMENT_PRICING } from '@tidemark/contracts';
import { extractContent, parseDocument, type ContentResult } from '@tidemark/content';
import { decideVerdict, pageFeatures, shapeOf, SHORT_WORDS, type VerdictResult } from '@tidemark/verdict';
import type { Fetched } from '../../ladder/http-rung.js';
import type { LadderOptions } from '../../ladder/options.js';
import type { PageReading } from '../read-page.js';
import type { DocumentType } from './detect.js';
import { readDocx, readOdt, readPptx, readXlsx } from './office.js';
import { readPdf } from './pdf.js';
import { readRtf } from './rtf.js';
import { emptyMeta, esc, type DocumentBody, type DocumentFacts, type DocumentMeta } from './types.js';
import { DocumentTooLarge } from './zip.js';

const READERS: Record<DocumentType, (bytes: Uint8Array) => DocumentBody | Promise<DocumentBody>> = {
  pdf: readPdf,
  docx: readDocx,
  pptx: readPptx,
  xlsx: readXlsx,
  odt: readOdt,
  rtf: readRtf,
};

/** Formats whose pages are their own (PDF pages, slides); the others are priced by their words. */
const PAGED: ReadonlySet<DocumentType> = new Set(['pdf', 'pptx']);

const verdictOf = (
  verdict: VerdictResult['verdict'],
  errorCode: VerdictResult['errorCode'],
  signals: string[],
  warnings: string[] = [],
  shape?: VerdictResult['shape'],
): VerdictResult => ({ verdict, errorCode, signals, warnings, climb: false, ...(shape ? { shape } : {}) });

/**
 * The row's head for a document: the page head's fields from the document's metadata (title,
 * else its first heading; subject as the description; language), plus author, created and
 * modified, and the document's own facts.
 */
const documentHead = (
  meta: DocumentMeta,
  facts: DocumentFacts & { contentType: string; pagesRead: number | null; pagesInDocument: number | null },
  content?: ContentResult,
  firstHeading?: string | null,
) => ({
  ...(content?.head ?? {
    canonical: null,
    robots: null,
    openGraph: {},
    twitter: {},
    jsonLd: [],
    hreflang: [],
  }),
  title: meta.title ?? firstHeading ?? null,
  description: meta.subject,
  lang: meta.language ?? content?.language ?? null,
  author: meta.author,
  created: meta.created,
  modified: meta.modified,
  document: {
    type: facts.type,
    contentType: facts.contentType.split(';')[0]!.trim() || null,
    bytes: facts.bytes,
    parsed: facts.parsed,
    pages: facts.pagesInDocument,
    pagesRead: facts.pagesRead,
    pricedPages: facts.pages,
  },
});

/** Marks each page break of a paged document's markdown: the rule, then `<!-- page N -->`. */
const markPages = (markdown: string, pages: number): string => {
  let page = 1;
  const marked = markdown.replace(/^(?:-{3,}|\*{3,}|_{3,})[ \t]*$/gm, (rule) => `${rule}\n\n<!-- page ${++page} -->`);
  return page === pages ? marked : markdown;
};

/**
 * Reads a document the http rung fetched as bytes: the format's reader makes plain semantic
 * HTML of it (within DOCUMENT_LIMITS), which the content pipeline turns into the requested
 * formats as it does a page (the whole document is its main content); the head comes from the
 * document's metadata. The verdict is the document's: ok, thin (short, with `short`), skipped
 * (word floor, languages), or blocked with the reason for a PDF that is encrypted or only images.
 * A document never climbs: no browser reads it better. With `parse_documents: false` only the
 * bytes' metadata is kept (type, size).
 */
export const readDocument = async (
  fetched: Fetched,
  document: { type: DocumentType; bytes: Uint8Array },
  opts: LadderOptions,
): Promise<PageReading> => {
  const c = opts.config.content;
  const { type, bytes } = document;
  const base = { type, bytes: bytes.byteLength, contentType: fetched.contentType };
  const signal = `document ${type}`;
  const empty = (
    facts: DocumentFacts & { pagesRead: number | null; pagesInDocument: number | null },
    meta = emptyMeta(),
  ) => ({
    head: documentHead(meta, { ...facts, contentType: fetched.contentType }) as unknown as ContentResult['head'],
    words: 0,
    language: null,
    ...(opts.formats.includes('markdown') ? { markdown: '' } : {}),
    ...(opts.formats.includes('text') ? { text: '' } : {}),
    ...(opts.formats.includes('links') ? { links: [] } : {}),
  });

  if (fetched.status >= 400) {
    // An error answer that happens to be a document: the status is the verdict.
    const blank = parseDocument('<html><body></body></html>');
    const verdict = decideVerdict(
      { tier: 'http', status: fetched.status, headers: fetched.headers },
      pageFeatures(blank, ''),
      { words: 0, language: null },
      { minWords: c.min_words, languages: c.languages },
    );
    const facts = { ...base, pages: 0, parsed: false };
    return {
      verdict: { ...verdict, climb: false },
      content: empty({ ...facts, pagesRead: null, pagesInDocument: null }),
      document: facts,
    };
  }

  if (!c.parse_documents) {
    const facts = { ...base, pages: 0, parsed: false };
    return {
      verdict: verdictOf(
        'ok',
        'OK',
        [signal, 'not parsed'],
        ['document not parsed: parse_documents is false (only its type and size are kept)'],
      ),
      content: empty({ ...facts, pagesRead: null, pagesInDocument: null }),
      document: facts,
    };
  }

  let body: DocumentBody;
  try {
    body = await READERS[type](bytes);
  } catch (err) {
    const why =
      err instanceof DocumentTooLarge
        ? err.message
        : `the ${type.toUpperCase()} could not be read: ${(err as Error).message}`;
    const facts = { ...base, pages: 0, parsed: false };
    return {
      verdict: verdictOf('blocked', 'BLOCKED', [signal, err instanceof DocumentTooLarge ? 'too large' : 'unreadable']),
      content: empty({ ...facts, pagesRead: null, pagesInDocument: null }),
      document: facts,
      reason: why,
    };
  }

  if (body.refusal) {
    const facts = { ...base, pages: 0, parsed: true };
    return {
      verdict: verdictOf('blocked', 'BLOCKED', [body.refusal.signal, signal], body.warnings),
      content: empty({ ...facts, pagesRead: body.pagesRead, pagesInDocument: body.pages }, body.meta),
      document: facts,
      reason: body.refusal.reason,
    };
  }

  const lang = body.meta.language ? ` lang="${esc(body.meta.language)}"` : '';
  const html = `<!doctype html><html${lang}><head><title>${esc(body.meta.title ?? '')}</title></head><body><main>${body.html}</main></body></html>`;
  const doc = parseDocument(html);
  const features = pageFeatures(doc, html);
  const firstHeading = doc.querySelector('h1, h2, h3')?.textContent?.trim() || null;
  const content = extractContent(
    doc,
    {
      url: fetched.finalUrl,
      formats: opts.formats.filter((f) => f !== 'screenshot'),
      // The whole document is its content: nothing in it is navigation or a banner.
      onlyMainContent: false,
      excludeTags: c.exclude_tags,
      removeBanners: false,
      removeBase64Images: true,
      fields: c.fields,
      contentLanguage: body.meta.language,
    },
    html,
  );
  if (content.markdown !== undefined && PAGED.has(type) && body.pagesRead)
    content.markdown = markPages(content.markdown, body.pagesRead);
  if (content.links && body.links.length) content.links = [...new Set([...content.links, ...body.links])];

  const pages = PAGED.has(type)
    ? (body.pagesRead ?? 1)
    : Math.max(1, Math.ceil(content.words / DOCUMENT_PRICING.wordsPerPage));
  const facts: DocumentFacts = { ...base, pages, parsed: true };
  content.head = documentHead(
    body.meta,
    { ...facts, contentType: fetched.contentType, pagesRead: body.pagesRead, pagesInDocument: body.pages },
    content,
    firstHeading,
  ) as unknown as ContentResult['head'];
  const unit = type === 'pptx' ? 'slide' : 'page';
  const counted = `${pages} ${pages === 1 ? unit : `${unit}s`}`;
  const signals = [signal, PAGED.has(type) ? counted : `${counted} priced`];
  const warnings = [...body.warnings];
  let verdict: VerdictResult;
  if (content.words < c.min_words)
    verdict = verdictOf('skipped', 'OK', [...signals, `under ${c.min_words} words`], warnings);
  else if (c.languages.length && content.language && !c.languages.some((l) => content.language!.startsWith(l)))
    verdict = verdictOf('skipped', 'OK', [...signals, `language ${content.language}`], warnings);
  else if (content.words < SHORT_WORDS)
    verdict = verdictOf('thin', 'OK', signals, [...warnings, 'short'], shapeOf(features));
  else verdict = verdictOf('ok', 'OK', signals, warnings);
  return { verdict, content, document: facts };
};
