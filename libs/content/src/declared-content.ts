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

/**
 * The openings of the product descriptions the page's JSON-LD declares (lower-cased, blanks
 * collapsed), to be found in its body; empty when it declares none.
 */
export function declaredOpenings(head: Head): string[] {
  const out: string[] = [];
  let nodes = 0;
  const walk = (v: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || ++nodes > MAX_NODES || !v || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    if (isProduct(o['@type']) && typeof o.description === 'string') {
      const text = tidyDeclaredText(o.description);
      if (text.length >= MIN_CHARS) {
        const opening = text.toLowerCase().split(/\s+/).slice(0, NEEDLE_WORDS).join(' ');
        if (!out.includes(opening)) out.push(opening);
      }
    }
    for (const value of Object.values(o)) if (value && typeof value === 'object') walk(value, depth + 1);
  };
  walk(head.jsonLd, 0);
  return out;
}

const isProduct = (t: unknown): boolean =>
  t === 'Product' ||
  t === 'ProductGroup' ||
  (Array.isArray(t) && t.some((x) => x === 'Product' || x === 'ProductGroup'));
