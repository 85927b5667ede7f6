import { createHmac, randomBytes } from 'node:crypto';

/**
 * A signing secret in the Standard Webhooks form: `whsec_` + base64 of 24 random bytes, so that
 * spec's libraries take it as it is.
 */
export const mintWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * The Standard Webhooks key: the bytes the base64 after `whsec_` stands for. Node's decoder also
 * reads the URL-safe alphabet, which the job secrets minted by crawl and scrape use. A secret
 * without the prefix is used as its UTF-8 bytes.
 */
export const standardKey = (secret: string): Buffer =>
  secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');

/** X-Service-Signature: `sha256=` + hex HMAC-SHA256 of the raw body, keyed by the whole secret string. */
export const serviceSignature = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** webhook-signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the Standard Webhooks key. */
export const standardSignature = (secret: string, id: string, timestamp: number, body: string): string =>
  `v1,${createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;

/** Every header of a signed webhook post; `timestamp` is Unix seconds of this attempt. */
export const webhookHeaders = (opts: {
  deliveryId: string;
  event: string;
  body: string;
  secret: string;
  timestamp: number;
}): Record<string, string> => ({
  'x-service-event': opts.event,
  'x-service-delivery': opts.deliveryId,
  'x-service-signature': serviceSignature(opts.secret, opts.body),
  // webhook-id names the message, so it stays the same on every retry and redelivery.
  'webhook-id': opts.deliveryId,
  'webhook-timestamp': String(opts.timestamp),
  'webhook-signature': standardSignature(opts.secret, opts.deliveryId, opts.timestamp, opts.body),
});
