import { tidyDeclaredText } from './self-description.js';
import type { Head } from './types.js';

// What a page declares its main content to be in its schema.org JSON-LD: a Product's (or
// ProductGroup's) description. Shops publish it for search engines, and it is the opening of
// the description block the page shows (a product page's content: the description and the
// specifications beside it, not the buy box, the gallery or the recommendations).

const MAX_DEPTH = 6;
const MAX_NODES = 2000;
/** Words of the declared text looked for in the page. */
const NEEDLE_WORDS = 6;
/** A declared text shorter than this says too little to anchor anything (a tagline, a name). */
const MIN_CHARS = 80;

export interface Declared {
  /**
   * The openings of the product descriptions the page's JSON-LD declares (lower-cased, blanks
   * collapsed), to be found in its body; empty when it declares none.
   */
  openings: string[];
  /**
   * The page is one product's page: its JSON-LD declares a Product (or ProductGroup) outside any
   * list (a category page lists its products in an ItemList), or its Open Graph type is product.
   */
  product: boolean;
  /**
   * The names of the products it declares outside any list (as `nameKey` writes them): a
   * page whose `<h1>` shows one is that product's page, not a category that declares one.
   */
  names: string[];
  /**
   * The page declares itself one article (JSON-LD Article, NewsArticle, BlogPosting… outside any
   * list, or Open Graph type article): its text may be a small part of a heavy page.
   */
  article: boolean;
}

export function declaredOpenings(head: Head): string[] {
  return readDeclared(head).openings;
}

export function readDeclared(head: Head): Declared {
  const out: string[] = [];
  const names: string[] = [];
  let product = /^product(?:\.item)?$/i.test(head.openGraph['og:type'] ?? '');
  let article = /^article$/i.test(head.openGraph['og:type'] ?? '');
  let nodes = 0;
  const walk = (v: unknown, depth: number, inList: boolean): void => {
    if (depth > MAX_DEPTH || ++nodes > MAX_NODES || !v || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1, inList);
      return;
    }
    const o = v as Record<string, unknown>;
    const type = o['@type'];
    if (type === 'ItemList' || type === 'OfferCatalog') inList = true;
    if (!inList && isArticle(type)) article = true;
    if (isProduct(type) && !inList) {
      product = true;
      if (typeof o.name === 'string') {
        const name = nameKey(tidyDeclaredText(o.name));
        if (name && !names.includes(name)) names.push(name);
      }
    }
    if (isProduct(type) && typeof o.description === 'string') {
      const text = tidyDeclaredText(o.description);
      if (text.length >= MIN_CHARS) {
        const opening = text.toLowerCase().split(/\s+/).slice(0, NEEDLE_WORDS).join(' ');
        if (!out.includes(opening)) out.push(opening);
      }
    }
    for (const value of Object.values(o)) if (value && typeof value === 'object') walk(value, depth + 1, inList);
  };
  walk(head.jsonLd, 0, false);
  return { openings: out, product, names, article };
}

/**
 * How a declared name and a heading are compared: letters and digits only, lower-cased (the
 * heading says "KALLAX Shelf unit, white" where the JSON-LD says "Kallax shelf unit - white";
 * an entity the JSON-LD left escaped, "&reg;", says nothing).
 */
export const nameKey = (s: string): string =>
  s
    .replace(/&[a-z]+;/gi, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');

const ARTICLE_TYPES: ReadonlySet<unknown> = new Set([
  'Article',
  'NewsArticle',
  'BlogPosting',
  'Report',
  'ScholarlyArticle',
  'TechArticle',
]);
const PRODUCT_TYPES: ReadonlySet<unknown> = new Set(['Product', 'ProductGroup']);

/** Whether a JSON-LD `@type` (one name or a list of them) names one of `types`. */
const typeIn = (t: unknown, types: ReadonlySet<unknown>): boolean =>
  types.has(t) || (Array.isArray(t) && t.some((x) => types.has(x)));

const isArticle = (t: unknown): boolean => typeIn(t, ARTICLE_TYPES);
const isProduct = (t: unknown): boolean => typeIn(t, PRODUCT_TYPES);
