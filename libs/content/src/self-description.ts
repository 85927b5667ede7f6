import type { Head } from './types.js';

/** Nested JSON-LD is walked this far (graphs, arrays of entities, mainEntity…). */
const MAX_DEPTH = 6;
const MAX_NODES = 2000;

/**
 * A meta description of this many words or more is a passage of the page (a forum thread's first
 * post, a category's introduction), not a slogan ("Smarter Shopping, Better Living!
 * Aliexpress.com"). Words are what spaces part: "made-to-order" is one.
 */
const PASSAGE_WORDS = 20;

/**
 * What a page says its content is, when its body shows none (the text is rendered by a script
 * from data the served HTML does not carry): a schema.org `articleBody` or `text` from its
 * JSON-LD, else the longest `description` of an entity there (a product's, a post's; a site's
 * or an organisation's too, as the JSON-LD does not tell them apart reliably), else the longest
 * of its meta, Open Graph and Twitter descriptions when that is a passage of PASSAGE_WORDS or
 * more on a page other than the site's home page. A shorter one is a slogan or a search
 * snippet, and a home page's describes the site: they stay in `head` only. Null when the page
 * says nothing (docs/decisions.md, "A page without content").
 */
export function selfDescription(head: Head, url: string): string | null {
  let body = '';
  let description = '';
  let nodes = 0;
  const walk = (v: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || ++nodes > MAX_NODES || !v || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    for (const [key, value] of Object.entries(v)) {
      if (typeof value === 'string') {
        if ((key === 'articleBody' || key === 'text') && value.length > body.length) body = value;
        else if (key === 'description' && value.length > description.length) description = value;
      } else walk(value, depth + 1);
    }
  };
  walk(head.jsonLd, 0);
  if (body.trim()) return tidyDeclaredText(body);
  if (description.trim()) return tidyDeclaredText(description);
  if (isHomePage(url)) return null;
  const meta = [head.description, head.openGraph['og:description'], head.twitter['twitter:description']]
    .map((d) => (d ? tidyDeclaredText(d) : ''))
    .reduce((a, b) => (b.length > a.length ? b : a), '');
  return meta.split(/\s+/).filter(Boolean).length >= PASSAGE_WORDS ? meta : null;
}

/** Query parameters that do not name a page (tracking, locale): `/?utm_source=x` is the home page. */
const NEUTRAL_PARAMS = /^(utm_\w+|gclid|fbclid|msclkid|mc_[ce]id|ref|source|lang|hl|locale)$/i;

/**
 * The site's front page: the root path (or its index file) with no query that names a page. A
 * query at the root often does: WordPress's plain permalinks (`/?p=123`, `/?page_id=7`) serve
 * every post from `/`.
 */
function isHomePage(url: string): boolean {
  try {
    const { pathname, searchParams } = new URL(url);
    if (pathname.replace(/\/(index\.\w+)?$/, '') !== '') return false;
    for (const name of searchParams.keys()) if (!NEUTRAL_PARAMS.test(name)) return false;
    return true;
  } catch {
    return false;
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', hellip: '…' };

/** JSON-LD often carries HTML-escaped text, sometimes with tags. */
export function tidyDeclaredText(s: string): string {
  return s
    .replace(/<[^>]{0,200}>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] !== '#') return ENTITIES[e.toLowerCase()] ?? m;
      const cp = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    })
    .replace(/[ \t]+/g, ' ')
    .replace(/\s*\n\s*\n\s*/g, '\n\n')
    .trim();
}
