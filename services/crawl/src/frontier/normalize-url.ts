/** Characters RFC 3986 calls unreserved: a percent-escape of one of them means the same URL. */
const UNRESERVED = /%(2[DdEe]|3[0-9]|[46][1-9A-Fa-f]|[57][0-9Aa]|5[Ff]|7[Ee])/g;

const normalizeEscapes = (s: string) =>
  s
    .replace(UNRESERVED, (esc) => String.fromCharCode(parseInt(esc.slice(1), 16)))
    .replace(/%[0-9a-f]{2}/g, (esc) => esc.toUpperCase());

/**
 * The crawl's dedupe key for a URL: scheme and host lower-cased (WHATWG URL does that and
 * punycode), default port dropped, fragment dropped, escapes of unreserved characters decoded
 * and the rest upper-cased, the trailing slash dropped (but the root's), and the query sorted by
 * name when no name repeats (with a repeated name, order can carry meaning: it is kept).
 * Null when the string is not an http(s) URL.
 */
export const normalizeUrl = (raw: string, base?: string): string | null => {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  url.username = '';
  url.password = '';
  let path = normalizeEscapes(url.pathname);
  if (path.length > 1 && path.endsWith('/')) path = path.replace(/\/+$/, '') || '/';
  url.pathname = path;
  const params = [...url.searchParams];
  const names = params.map(([k]) => k);
  if (new Set(names).size === names.length) params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = new URLSearchParams(params).toString();
  url.search = query ? `?${query}` : ''; // a bare "?" goes too
  return url.toString();
};

/**
 * The keys a user's spelling of a crawled URL may match: the same URL under the other scheme
 * (the trailing slash is already gone from keys).
 */
export const lookupKeys = (raw: string): string[] => {
  const key = normalizeUrl(raw);
  if (!key) return [];
  const other = key.startsWith('https:') ? `http:${key.slice(6)}` : `https:${key.slice(5)}`;
  return [key, other];
};
