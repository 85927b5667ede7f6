/** Percent-escapes of characters RFC 3986 calls unreserved: decoded, they are the same URL. */
const UNRESERVED = /%(2[DdEe]|3[0-9]|[46][1-9A-Fa-f]|[57][0-9Aa]|5[Ff]|7[Ee])/g;

/**
 * What two spellings of one page share, so a listed URL finds its row: the crawl's rule for
 * `GET /crawl/{id}/page` (scheme and host lower-cased, default port, user info and fragment
 * dropped, unreserved escapes decoded and the rest upper-cased, the trailing slash dropped but
 * the root's, the query sorted by name unless a name repeats), with the scheme left out so
 * http and https match. Null for anything but an http(s) URL.
 *
 * The crawl service has its own copy (`frontier/normalize-url.ts`); services do not import each
 * other, and the rule is small.
 */
export const matchKey = (raw: string): string | null => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  let path = url.pathname
    .replace(UNRESERVED, (esc) => String.fromCharCode(parseInt(esc.slice(1), 16)))
    .replace(/%[0-9a-f]{2}/g, (esc) => esc.toUpperCase());
  if (path.length > 1) path = withoutTrailingSlashes(path) || '/';
  const params = [...url.searchParams];
  const names = params.map(([k]) => k);
  if (new Set(names).size === names.length) params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = new URLSearchParams(params).toString();
  // The default port is already gone from url.host.
  return `//${url.host}${path}${query ? `?${query}` : ''}`;
};

/** The URLs a POST export lists: a row is kept when its URL is one of them, spelled either way. */
export class UrlFilter {
  private readonly keys: Set<string>;

  constructor(urls: string[]) {
    this.keys = new Set(urls.map(matchKey).filter((k): k is string => k !== null));
  }

  has(url: string): boolean {
    const key = matchKey(url);
    return key !== null && this.keys.has(key);
  }
}

/**
 * `s` without its trailing slashes. A loop, not `/\/+$/`: that regex retries every run of
 * slashes to its end, quadratic in a path of many slashes that a page can write.
 */
const withoutTrailingSlashes = (s: string): string => {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x2f) end -= 1;
  return s.slice(0, end);
};
