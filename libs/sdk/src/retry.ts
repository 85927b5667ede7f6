/**
 * The spec's client retry rule: 429, 502, 503, 504 and network failures are retried, up to 2
 * times, only when the call is safe to repeat — GET, DELETE, or a POST carrying an
 * Idempotency-Key (the server then replays the first answer instead of acting twice). PATCH and
 * a POST without a key are never repeated: the first attempt may have taken effect.
 */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_TIMEOUT_MS = 150_000;
/** A Retry-After longer than this is not waited out: the error goes back to the caller. */
export const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;

/** Routes whose POST gets an Idempotency-Key from the client unless the caller opts out. */
export const AUTO_IDEMPOTENT_POSTS: ReadonlySet<string> = new Set(['/scrape', '/crawl', '/map']);

export const isSafeToRepeat = (method: string, headers: Headers): boolean => {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'DELETE') return true;
  return m === 'POST' && headers.has('idempotency-key');
};

/** Retry-After in milliseconds (seconds or an HTTP date), or null when absent or unreadable. */
export const retryAfterMs = (value: string | null, now = Date.now()): number | null => {
  if (value === null || value.trim() === '') return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
};

/** The wait before retry number `retry` (1-based) when the server named none: 0.5 s, 1 s, ±20%. */
export const backoffMs = (retry: number, random = Math.random): number =>
  Math.round(500 * 2 ** (retry - 1) * (0.8 + 0.4 * random()));
