import { ValidationError } from '@tidemark/errors';
import { ReadingFailed, type PageReaderPool } from '../reading/page-reader-pool.js';

/** What a scan makes of one stored page: null when the page lacks the body the mode reads. */
export type PageScanner = (
  bodies: { markdown?: string; html?: string; cleanHtml?: string },
  url: string,
) => Promise<ScanHit>;
export type ScanHit = { count: number; snippet: string; body: string } | null;

const MAX_TERMS = 20;
const MAX_TERM_CHARS = 200;
const SNIPPET_CHARS = 200;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A letter, digit or underscore on either side means the term sits inside a longer word. */
const BEFORE = '(?<![\\p{L}\\p{N}_])';
const AFTER = '(?![\\p{L}\\p{N}_])';

/**
 * Words and "quoted phrases", every one required. A word matches whole words only, any case
 * ("harbour" finds "Harbour," but not "harbours"); a phrase's words may be split by any run of
 * white space (markdown wraps lines).
 */
export const parseContentQuery = (q: string): { text: string; re: RegExp }[] => {
  const terms: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (let m = re.exec(q); m; m = re.exec(q)) {
    if (m[2]?.includes('"')) throw new ValidationError(`q: unclosed quote in ${JSON.stringify(m[2])}`);
    const text = (m[1] ?? m[2] ?? '').trim();
    if (m[1] !== undefined && !text) throw new ValidationError('q: an empty quoted phrase ""');
    terms.push(text);
  }
  if (!terms.length) throw new ValidationError('q: give at least one word or "quoted phrase"');
  if (terms.length > MAX_TERMS) throw new ValidationError(`q: at most ${MAX_TERMS} words and phrases`);
  const long = terms.find((t) => t.length > MAX_TERM_CHARS);
  if (long) throw new ValidationError(`q: "${long.slice(0, 40)}…" is longer than ${MAX_TERM_CHARS} characters`);
  return terms.map((text) => ({
    text,
    re: new RegExp(`${BEFORE}${text.split(/\s+/).map(escapeRegExp).join('\\s+')}${AFTER}`, 'giu'),
  }));
};

/** Up to SNIPPET_CHARS of `text` around `at`, white space collapsed, cuts marked with an ellipsis. */
const snippetAt = (text: string, at: number): string => {
  const start = Math.max(0, at - 60);
  const end = Math.min(text.length, start + SNIPPET_CHARS);
  const core = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${core}${end < text.length ? '…' : ''}`;
};

const contentScanner = (q: string): PageScanner => {
  const terms = parseContentQuery(q);
  return async ({ markdown }) => {
    if (markdown === undefined) return null;
    let count = 0;
    let first = -1;
    for (const [i, term] of terms.entries()) {
      const found = [...markdown.matchAll(term.re)];
      if (!found.length) return { count: 0, snippet: '', body: 'markdown' };
      count += found.length;
      if (i === 0) first = found[0]!.index;
    }
    return { count, snippet: snippetAt(markdown, first), body: 'markdown' };
  };
};

/** A check on the raw markup: false only when the selector cannot match the page. */
type Need = (markup: string) => boolean;

/** Elements a parser may create without their tag in the markup: never required. */
const IMPLIED = new Set(['html', 'head', 'body', 'tbody', 'thead', 'tfoot', 'tr', 'td', 'colgroup', 'caption']);

/**
 * What a CSS selector's match needs in the markup, one list per alternative of a selector list:
 * each tag (opened, or closed: parsers make a `<p>` of a stray `</p>`), class, id and attribute
 * name outside any pseudo-class's parentheses (`:not(.x)` needs no `x`). Parsing a page costs
 * about 10 ms; this look costs a string search, so a selective search skips most pages. null when
 * the selector is beyond this reading (escapes, namespaces, an alternative needing nothing):
 * then every page is parsed.
 */
export const cssNeeds = (selector: string): Need[][] | null => {
  let outer = '';
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i]!;
    if (c === '\\' || c === '"' || c === "'") return null;
    if (c === '[') {
      const name = /^\[\s*([-\w]+)/.exec(selector.slice(i));
      const end = closing(selector, i, '[', ']');
      if (!name || end < 0) return null;
      outer += ` [${name[1]}] `;
      i = end;
    } else if (c === '(') {
      const end = closing(selector, i, '(', ')');
      if (end < 0) return null;
      i = end;
    } else outer += c;
  }
  if (outer.includes('|')) return null;
  const alternatives: Need[][] = [];
  for (const alt of outer.split(',')) {
    const needs: Need[] = [];
    const token = /\s*(?:([#.])(-?[_a-zA-Z][-\w]*)|::?[-\w]+|\[([-\w]+)\]|([a-zA-Z][-\w]*)|\*|[>+~])\s*/y;
    let at = 0;
    while (at < alt.length) {
      token.lastIndex = at;
      const m = token.exec(alt);
      if (!m || !m[0]) return null;
      at = token.lastIndex;
      const literal = (m[2] ?? m[3])?.toLowerCase();
      if (literal) needs.push((markup) => markup.includes(literal));
      const tag = m[4]?.toLowerCase();
      if (tag && !IMPLIED.has(tag)) needs.push((markup) => markup.includes(`<${tag}`) || markup.includes(`</${tag}`));
    }
    if (!needs.length) return null;
    alternatives.push(needs);
  }
  return alternatives.length ? alternatives : null;
};

/** Index of the bracket closing the one at `from` (quotes respected), or -1. */
const closing = (s: string, from: number, open: string, close: string): number => {
  let depth = 0;
  let quote: string | null = null;
  for (let i = from; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === '\\') i += 1;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === open) depth += 1;
    else if (c === close && --depth === 0) return i;
  }
  return -1;
};

/**
 * Whether the page may match. Markup is compared lower-cased (tags and attribute names ignore
 * case). A numeric character reference inside a tag (class="pr&#105;ce") could spell a class or
 * id the text does not show, as could &lowbar; (no other named reference is a letter, digit,
 * "-" or "_"): such a page is always parsed.
 */
const mayMatch = (markup: string, needs: Need[][]): boolean => {
  if (referenceInTag(markup)) return true;
  const lower = markup.toLowerCase();
  return needs.some((alt) => alt.every((need) => need(lower)));
};

/**
 * Whether a `&#` or `&lowbar;` stands between a `<` and the next `>`: one pass over the markup
 * (the regex `/<[^>]*&(#|lowbar;)/` retried from every `<` and read to the end of a page of
 * unclosed tags each time: quadratic in markup the web writes).
 */
const referenceInTag = (markup: string): boolean => {
  let inTag = false;
  for (let i = 0; i < markup.length; i++) {
    const c = markup.charCodeAt(i);
    if (c === 0x3c) inTag = true;
    else if (c === 0x3e) inTag = false;
    else if (c === 0x26 && inTag) {
      if (markup.charCodeAt(i + 1) === 0x23 || markup.slice(i + 1, i + 8).toLowerCase() === 'lowbar;') return true;
    }
  }
  return false;
};

/**
 * CSS, or XPath when q starts with "/" or "(", through @tidemark/content's field reader
 * (linkedom has no XPath; the lib evaluates it with fontoxpath over the same document), on the
 * page-reading threads: a selector that outruns its budget on a page (XPath 3.1 can loop; CSS can
 * be made to walk ancestors without end) answers 422 naming the page. The raw html is preferred
 * (selectors are written against the live page); cleanHtml otherwise.
 */
const selectorScanner = async (q: string, reader: PageReaderPool): Promise<PageScanner> => {
  const selector = q.trim();
  if (!selector) throw new ValidationError('q: give a CSS selector, or XPath starting with / or (');
  if (selector.length > 2000) throw new ValidationError('q: a selector of at most 2,000 characters');
  // The first page the selector cannot be matched on in time ends the search: the pages still
  // waiting for a thread are dropped, those being read are ended.
  const search = new AbortController();
  const select = async (markup: string, url: string) => {
    try {
      return await reader.select(markup, selector, url, search.signal);
    } catch (err) {
      if (!(err instanceof ReadingFailed)) throw err;
      search.abort();
      throw new ValidationError(`q: ${err.message} on ${url}; use a simpler selector`);
    }
  };
  // An invalid selector is refused before any page is read, whatever the run holds.
  const probe = await select('<html><body></body></html>', 'http://probe.invalid/');
  if (probe.fieldErrors.m) throw new ValidationError(`q: ${probe.fieldErrors.m}`);
  const needs = /^\s*[/(]/.test(selector) ? null : cssNeeds(selector);
  return async ({ html, cleanHtml }, url) => {
    const body = html !== undefined ? 'html' : cleanHtml !== undefined ? 'cleanHtml' : null;
    if (!body) return null;
    const markup = (html ?? cleanHtml)!;
    if (needs && !mayMatch(markup, needs)) return { count: 0, snippet: '', body };
    const read = await select(markup, url);
    const values = (read.fields.m ?? []) as string[];
    const first = values.find((v) => v.trim()) ?? '';
    const snippet = first.length > SNIPPET_CHARS ? `${first.slice(0, SNIPPET_CHARS)}…` : first;
    return { count: values.length, snippet, body };
  };
};

/** The scanner for a search: q checked once, before any page is read. */
export const pageScanner = async (mode: string, q: string, reader: PageReaderPool): Promise<PageScanner> => {
  if (mode === 'content') return contentScanner(q);
  if (mode === 'selector') return selectorScanner(q, reader);
  throw new ValidationError('mode: content or selector');
};
