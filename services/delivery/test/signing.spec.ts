import { describe, expect, it } from '@jest/globals';
import { mintWebhookSecret, standardSignature, webhookHeaders } from '../src/crypto/signing.js';
import { verifiesServiceSignature, verifiesStandardWebhook } from './support/verify.js';

describe('webhook signatures', () => {
  it('matches the Standard Webhooks reference example', () => {
    // The example of the Standard Webhooks spec and its libraries' tests.
    expect(
      standardSignature(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs so a receiver verifies both headers with the secret, and no other secret', () => {
    const secret = mintWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const body = JSON.stringify({ id: 'evt_1', event: 'run.finished', data: { ü: 'ß' } });
    const headers = webhookHeaders({
      deliveryId: 'dlv_1',
      event: 'run.finished',
      body,
      secret,
      timestamp: Math.floor(Date.now() / 1000),
    });
    expect(headers).toMatchObject({
      'x-service-event': 'run.finished',
      'x-service-delivery': 'dlv_1',
      'webhook-id': 'dlv_1',
    });
    expect(verifiesServiceSignature(headers, body, secret)).toBe(true);
    expect(verifiesStandardWebhook(headers, body, secret)).toBe(true);
    const other = mintWebhookSecret();
    expect(verifiesServiceSignature(headers, body, other)).toBe(false);
    expect(verifiesStandardWebhook(headers, body, other)).toBe(false);
    expect(verifiesServiceSignature(headers, `${body} `, secret)).toBe(false);
  });

  it('reads the URL-safe secrets crawl and scrape mint', () => {
    const key = '-_-_abcdefghijklmnopqrstuvwxyz01'; // base64url alphabet
    const secret = `whsec_${key}`;
    const headers = webhookHeaders({
      deliveryId: 'dlv_2',
      event: 'crawl.page',
      body: '{}',
      secret,
      timestamp: Math.floor(Date.now() / 1000),
    });
    // The same key bytes in the standard alphabet, as a strict receiver library would hold them.
    const standard = `whsec_${key.replace(/-/g, '+').replace(/_/g, '/')}`;
    expect(verifiesStandardWebhook(headers, '{}', standard)).toBe(true);
    expect(verifiesServiceSignature(headers, '{}', secret)).toBe(true);
  });
});
