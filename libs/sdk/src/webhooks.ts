import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';

/** Messages older (or newer) than this are refused by the Standard Webhooks check: 5 minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

const header = (headers: HeaderBag, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const found = Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(found) ? found[0] : found;
};

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/** The Standard Webhooks key: the base64 after `whsec_` (standard or URL-safe), else the UTF-8 secret. */
const standardKey = (secret: string): Buffer =>
  secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');

/** X-Service-Signature: `sha256=` + hex HMAC-SHA256 of the raw body under the whole secret string. */
export const verifyServiceSignature = (secret: string, rawBody: string | Buffer, signature: string): boolean => {
  const m = /^sha256=([0-9a-f]{64})$/i.exec(signature.trim());
  if (!m) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return sameBytes(Buffer.from(m[1]!, 'hex'), expected);
};

/**
 * Standard Webhooks: `webhook-signature` holds space-separated `v1,<base64>` entries, each an
 * HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`; one must match, and the timestamp must
 * be within the tolerance (a replayed old message is refused).
 */
export const verifyStandardSignature = (
  secret: string,
  rawBody: string | Buffer,
  h: { id: string; timestamp: string; signature: string },
  opts: { toleranceSeconds?: number; now?: number } = {},
): boolean => {
  const ts = Number(h.timestamp);
  if (!/^\d+$/.test(h.timestamp) || !Number.isSafeInteger(ts)) return false;
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  if (Math.abs(now - ts) > (opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const expected = createHmac('sha256', standardKey(secret)).update(`${h.id}.${h.timestamp}.`).update(rawBody).digest();
  return h.signature
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .some((s) => sameBytes(Buffer.from(s.slice(3), 'base64'), expected));
};

export interface WebhookMessage<D = unknown> {
  id: string;
  event: string;
  createdAt: string;
  data: D;
  [key: string]: unknown;
}

/**
 * Checks a webhook Tidemark sent and answers its parsed body. Pass the body exactly as received
 * (bytes or string, before any JSON parsing) and its headers. Every scheme whose headers are
 * present must verify (X-Service-Signature and the Standard Webhooks headers); at least one must
 * be present. Throws WebhookVerificationError otherwise.
 */
export const verifyWebhook = <D = unknown>(
  secret: string,
  rawBody: string | Buffer,
  headers: HeaderBag,
  opts: { toleranceSeconds?: number; now?: number } = {},
): WebhookMessage<D> => {
  const service = header(headers, 'x-service-signature');
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const standard = header(headers, 'webhook-signature');
  if (!service && !standard) throw new WebhookVerificationError('no signature header');
  if (service !== undefined && !verifyServiceSignature(secret, rawBody, service))
    throw new WebhookVerificationError('X-Service-Signature does not match the body');
  if (standard !== undefined) {
    if (!id || !timestamp) throw new WebhookVerificationError('webhook-id or webhook-timestamp missing');
    if (!verifyStandardSignature(secret, rawBody, { id, timestamp, signature: standard }, opts))
      throw new WebhookVerificationError('webhook-signature does not match, or the message is too old');
  }
  try {
    return JSON.parse(Buffer.isBuffer(rawBody) ? rawBody.toString('utf8') : rawBody) as WebhookMessage<D>;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
};
