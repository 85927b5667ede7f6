const FEED_TYPES = new Set(['application/rss+xml', 'application/atom+xml']);
const LINK_TAG = /<link\b[^>]*>/gi;
const ATTRIBUTE = /([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g;
/** Most feeds taken from one home page. */
export const MAX_HOME_FEEDS = 5;

const unescape = (value: string) =>
  value
    .replace(/&amp;/gi, '&')
    .replace(/&quot;/gi, '"')
    .replace(/&#39;|&apos;/gi, "'")
    .trim();

/**
 * The feeds a home page declares: `<link rel="alternate" type="application/rss+xml|atom+xml"
 * href>`, resolved against the page's URL, http(s) only, in page order, at most five. The page
 * is read only as far as the caller's byte cap allows, so a regex over it stays bounded.
 */
export const feedLinks = (html: string, pageUrl: string): string[] => {
  const found: string[] = [];
  for (const [tag] of html.matchAll(LINK_TAG)) {
    if (tag.length > 2048) continue; // no real <link> is this long; keeps the attribute scan short
    const attrs: Record<string, string> = {};
    for (const m of tag.matchAll(ATTRIBUTE)) attrs[m[1]!.toLowerCase()] = unescape(m[2] ?? m[3] ?? m[4] ?? '');
    const rel = (attrs.rel ?? '').toLowerCase().split(/\s+/);
    const type = (attrs.type ?? '').toLowerCase().split(';')[0]!.trim();
    if (!rel.includes('alternate') || !FEED_TYPES.has(type) || !attrs.href) continue;
    try {
      const url = new URL(attrs.href, pageUrl);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && !found.includes(url.toString()))
        found.push(url.toString());
    } catch {
      // not a URL: skipped
    }
    if (found.length >= MAX_HOME_FEEDS) break;
  }
  return found;
};
