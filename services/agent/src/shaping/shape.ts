/**
 * Result shaping for agents (the spec's "Tool server output" limits): a model's context is small
 * and pages are large, so a multi-page result is an index of the pages read (up to 500), an
 * excerpt of as many pages as a 60,000-character budget pays for (at most 50), and a link count
 * per page instead of its links; a single page carries each body up to 12,000 characters.
 */
export const LIMITS = {
  indexPages: 500,
  excerptBudget: 60_000,
  excerptPages: 50,
  bodyChars: 12_000,
} as const;

/** What the shaping reads of a page row (scrape, crawl and project rows all have these). */
export interface RowLike {
  url: string;
  httpStatus?: number | null;
  verdict?: string | null;
  errorCode?: string | null;
  words?: number | null;
  head?: Record<string, unknown> | null;
  markdown?: string;
  text?: string;
  cleanHtml?: string;
  html?: string;
  links?: string[];
  [key: string]: unknown;
}

export interface IndexEntry {
  url: string;
  title: string | null;
  verdict: string | null;
  httpStatus: number | null;
  errorCode: string | null;
  words: number | null;
  /** How many links the page has (null when its links were not read). */
  links: number | null;
}

export interface ExcerptEntry {
  url: string;
  title: string | null;
  markdown: string;
  /** Cut to fit what was left of the budget (the whole page: get_job or get_page with its url). */
  truncated: boolean;
}

export interface MultiPage {
  /** Pages in the index. */
  pages: IndexEntry[];
  excerpt: ExcerptEntry[];
  /** Characters of markdown in the excerpt. */
  excerptChars: number;
  /** Pages read but left out of the index (past 500); page on with the cursor. */
  notIndexed: number;
}

const titleOf = (row: RowLike): string | null => {
  const title = row.head?.title;
  return typeof title === 'string' && title.trim() ? title.trim() : null;
};

export const indexEntry = (row: RowLike): IndexEntry => ({
  url: row.url,
  title: titleOf(row),
  verdict: row.verdict ?? null,
  httpStatus: row.httpStatus ?? null,
  errorCode: row.errorCode && row.errorCode !== 'OK' ? row.errorCode : null,
  words: row.words ?? null,
  links: Array.isArray(row.links) ? row.links.length : null,
});

/** The body an excerpt quotes: markdown, else plain text. */
const readableBody = (row: RowLike): string | undefined => row.markdown ?? row.text;

/**
 * The excerpt: pages in order, each whole while the budget lasts; the page that does not fit
 * is cut to what is left and ends the excerpt. Pages with no body (refused, skipped) cost
 * nothing and are left out (the index lists them).
 */
export const excerpt = (
  rows: RowLike[],
  budget: number = LIMITS.excerptBudget,
  maxPages: number = LIMITS.excerptPages,
) => {
  const out: ExcerptEntry[] = [];
  let used = 0;
  for (const row of rows) {
    if (out.length >= maxPages || used >= budget) break;
    const body = readableBody(row);
    if (!body) continue;
    const room = budget - used;
    const truncated = body.length > room;
    const markdown = truncated ? body.slice(0, room) : body;
    out.push({ url: row.url, title: titleOf(row), markdown, truncated });
    used += markdown.length;
    if (truncated) break;
  }
  return { excerpt: out, excerptChars: used };
};

/**
 * A multi-page result. `indexRows` are the pages read in order (link arrays counted, bodies
 * ignored); `bodyRows` are the first pages with their bodies, for the excerpt (they may be the
 * same rows).
 */
export const shapeMultiPage = (indexRows: RowLike[], bodyRows: RowLike[] = indexRows): MultiPage => {
  const pages = indexRows.slice(0, LIMITS.indexPages).map(indexEntry);
  return { pages, ...excerpt(bodyRows), notIndexed: Math.max(0, indexRows.length - pages.length) };
};

const BODY_FIELDS = ['markdown', 'text', 'cleanHtml', 'html'] as const;
/** Fields of a single page that are not worth an agent's context. */
const DROPPED_FIELDS = new Set(['screenshot']);

/**
 * A single page: every field of the row, each body cut to 12,000 characters (with its full
 * length beside it), the links as a count and the first 100, a screenshot left out.
 */
export const shapeSinglePage = (row: RowLike): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  const cut: Record<string, number> = {};
  for (const [key, value] of Object.entries(row)) {
    if (DROPPED_FIELDS.has(key)) continue;
    if ((BODY_FIELDS as readonly string[]).includes(key) && typeof value === 'string') {
      out[key] = value.length > LIMITS.bodyChars ? value.slice(0, LIMITS.bodyChars) : value;
      if (value.length > LIMITS.bodyChars) cut[key] = value.length;
    } else if (key === 'links' && Array.isArray(value)) {
      out.linkCount = value.length;
      out.links = value.slice(0, 100);
    } else out[key] = value;
  }
  if (Object.keys(cut).length) out.truncated = { limit: LIMITS.bodyChars, fullLength: cut };
  if (row.screenshot) out.screenshot = 'left out (fetch it with the REST API)';
  return out;
};
