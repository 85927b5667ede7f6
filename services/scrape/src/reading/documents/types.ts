import type { DocumentType } from './detect.js';

/** A document's metadata, as far as it has any (dates as ISO 8601). */
export interface DocumentMeta {
  title: string | null;
  author: string | null;
  subject: string | null;
  language: string | null;
  created: string | null;
  modified: string | null;
}

/** What a format's reader makes of a document: its body as plain semantic HTML, and facts. */
export interface DocumentBody {
  /** h1-h6, p, ul/ol/li, table; a PDF's pages as `<section data-page>` between `<hr>`s. */
  html: string;
  meta: DocumentMeta;
  /** Pages (PDF pages, slides) the document has; null for formats that flow (DOCX, ODT, RTF, XLSX). */
  pages: number | null;
  /** Pages read, when fewer than `pages` (the page bound). */
  pagesRead: number | null;
  /** Links the document carries outside its text (a PDF's link annotations). */
  links: string[];
  warnings: string[];
  /** Set when the document cannot be read at all: the verdict is blocked with this reason. */
  refusal?: { signal: string; reason: string };
}

/** A document's facts on the row (head.document) and for its price. */
export interface DocumentFacts {
  type: DocumentType;
  bytes: number;
  /** Priced pages: the document's own (PDF pages, slides) or, for formats that flow, words / DOCUMENT_WORDS_PER_PAGE. */
  pages: number;
  /** False when parse_documents is off: only the bytes' metadata was kept. */
  parsed: boolean;
}

export const emptyMeta = (): DocumentMeta => ({
  title: null,
  author: null,
  subject: null,
  language: null,
  created: null,
  modified: null,
});

/** Escapes text for HTML content and attribute values. */
export const esc = (s: string): string =>
  s.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));

/** A table as HTML: the first row is its header. */
export const tableHtml = (rows: string[][]): string => {
  if (!rows.length) return '';
  const width = Math.max(...rows.map((r) => r.length));
  const cells = (r: string[], tag: 'th' | 'td') =>
    `<tr>${Array.from({ length: width }, (_, i) => `<${tag}>${esc(r[i] ?? '')}</${tag}>`).join('')}</tr>`;
  const [head, ...body] = rows;
  return `<table><thead>${cells(head!, 'th')}</thead><tbody>${body.map((r) => cells(r, 'td')).join('')}</tbody></table>`;
};

/** An XML date (ISO 8601, as DOCX and ODT keep them) as ISO 8601 in UTC; null when it is none. */
export const isoDate = (value: string | null | undefined): string | null => {
  if (!value?.trim()) return null;
  const at = new Date(value.trim());
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
};
