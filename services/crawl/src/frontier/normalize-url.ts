import { MAX_URL_LENGTH } from '@tidemark/contracts';

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
 * Null when the string is not an http(s) URL, or when it or its key is longer than
 * MAX_URL_LENGTH (a page may link anything; the frontier's index holds keys of bounded size).
 */
export const normalizeUrl = (raw: string, base?: string): string | null => {
  if (raw.length > MAX_URL_LENGTH) return null;
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // The key is spelled from the parsed parts (no credentials, no fragment): each URL setter would
  // parse the whole URL again, and a crawl keys every link of every page.
  let path = url.pathname.includes('%') ? normalizeEscapes(url.pathname) : url.pathname;
  if (path.length > 1 && path.endsWith('/')) path = withoutTrailingSlashes(path) || '/';
  let query = '';
  if (url.search.length > 1) {
    const params = [...url.searchParams];
    const names = params.map(([k]) => k);
    if (new Set(names).size === names.length) params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    query = new URLSearchParams(params).toString();
  }
  const key = `${url.protocol}//${url.host}${path}${query ? `?${query}` : ''}`; // a bare "?" goes too
  return key.length > MAX_URL_LENGTH ? null : key;
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

/**
 * `s` without its trailing slashes. A loop, not `/\/+$/`: that regex retries every run of
 * slashes to its end, quadratic in a path of many slashes that a page can write.
 */
const withoutTrailingSlashes = (s: string): string => {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x2f) end -= 1;
  return s.slice(0, end);
};
