import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * A receiver's checks, written from the two specs rather than from the sender's code:
 * X-Service-Signature is `sha256=` + hex HMAC-SHA256 of the raw body under the secret string;
 * Standard Webhooks signs `id.timestamp.body` with the base64-decoded part after `whsec_`.
 */
export const verifiesServiceSignature = (
  headers: IncomingMessage['headers'],
  body: string,
  secret: string,
): boolean => {
  const sent = String(headers['x-service-signature'] ?? '');
  const want = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return sent.length === want.length && timingSafeEqual(Buffer.from(sent), Buffer.from(want));
};

export const verifiesStandardWebhook = (
  headers: IncomingMessage['headers'],
  body: string,
  secret: string,
  toleranceS = 300,
): boolean => {
  const id = String(headers['webhook-id'] ?? '');
  const ts = Number(headers['webhook-timestamp']);
  if (!id || !Number.isInteger(ts) || Math.abs(Date.now() / 1000 - ts) > toleranceS) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const want = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64');
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .some((s) => s.startsWith('v1,') && s.slice(3) === want);
};
