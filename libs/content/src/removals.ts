import { cleanDocument, safeSelectAll, type RemovalReason } from './clean.js';
import { scanPage } from './dom-walk.js';
import { readHead } from './head.js';
import { cleaningHints, mainContentOf, pageHints } from './page-hints.js';
import { countWords } from './text.js';

export interface Removal {
  why: RemovalReason | 'outside main content';
  /** The element as a short selector: tag, id and first classes. */
  element: string;
  words: number;
  /** The start of its text. */
  text: string;
}

export interface RemovalOptions {
  url: string;
  onlyMainContent: boolean;
  includeTags: string[];
  excludeTags: string[];
  removeBanners: boolean;
  removeBase64Images: boolean;
}

const TEXT_CHARS = 160;

const describe = (el: Element): string => {
  const id = el.getAttribute('id');
  const classes = (el.getAttribute('class') ?? '').trim().split(/\s+/).filter(Boolean).slice(0, 2);
  return `${el.localName}${id ? `#${id}` : ''}${classes.map((c) => `.${c}`).join('')}`;
};

const removal = (el: Element, why: Removal['why']): Removal => {
  const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
  return { why, element: describe(el), words: countWords(text), text: text.slice(0, TEXT_CHARS) };
};

/**
 * What the content pipeline takes out of a page under these options, in the order it does so:
 * excluded selectors, hidden and non-content elements (scripts, styles, forms), banners and
 * cookie notices, base64 images, then (main content only) what lies outside the main content.
 * Mutates `doc`, as extractContent would.
 */
export function explainRemovals(doc: Document, opts: RemovalOptions): Removal[] {
  const out: Removal[] = [];
  const scan = scanPage(doc);
  const hints = pageHints(scan, readHead(doc, opts.url, undefined, scan));
  cleanDocument(doc, {
    ...cleaningHints(hints),
    url: opts.url,
    removeBanners: opts.removeBanners,
    removeBase64Images: opts.removeBase64Images,
    excludeTags: opts.excludeTags,
    stripAttributes: false,
    onRemove: (el, why) => {
      // Scripts and styles say nothing to a reader; a hidden or non-content element with text may.
      if (why === 'non-content' && ['script', 'style', 'link', 'meta', 'template'].includes(el.localName)) return;
      out.push(removal(el, why));
    },
  });
  const body = doc.body ?? doc.documentElement;
  if (!opts.onlyMainContent || !body) return out;
  const keep = new Set(opts.includeTags.flatMap((sel) => safeSelectAll(doc, sel)));
  const { root, pruned } = mainContentOf(body, hints);
  // No main content (the page is its template alone): everything with text is outside it.
  if (!root) {
    for (const el of Array.from(body.children)) {
      if (!keep.has(el) && (el.textContent ?? '').trim()) out.push(removal(el, 'outside main content'));
    }
    return out;
  }
  // The largest pieces outside the main content: siblings of the path from body to the root.
  for (let el: Element | null = root; el && el !== body; el = el.parentElement) {
    for (const sibling of Array.from(el.parentElement?.children ?? [])) {
      if (sibling !== el && !keep.has(sibling) && (sibling.textContent ?? '').trim())
        out.push(removal(sibling, 'outside main content'));
    }
  }
  for (const el of pruned) if (!keep.has(el)) out.push(removal(el, 'outside main content'));
  return out;
}
