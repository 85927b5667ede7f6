import { describe, expect, it } from '@jest/globals';
import {
  WebhookVerificationError,
  verifyServiceSignature,
  verifyStandardSignature,
  verifyWebhook,
} from '../src/index.js';

// The Standard Webhooks specification's own test vector.
const V = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: '1614265330',
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const AT = Number(V.timestamp) * 1000;
// HMAC-SHA256 of the same body under the whole secret string, computed with Python's hmac module.
const SERVICE = 'sha256=80ec8a89ce3cd22133a1066caecb4d04fea7467657c8514d717ec42c38a5c94c';

describe('webhook signature verification', () => {
  it('accepts the Standard Webhooks reference vector', () => {
    expect(verifyStandardSignature(V.secret, V.body, V, { now: AT })).toBe(true);
    expect(verifyStandardSignature(V.secret, Buffer.from(V.body), V, { now: AT })).toBe(true);
  });

  it('accepts one matching entry among several (a rotated secret signs twice)', () => {
    const signature = `v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= ${V.signature}`;
    expect(verifyStandardSignature(V.secret, V.body, { ...V, signature }, { now: AT })).toBe(true);
  });

  it('refuses a changed body, id or secret, and a message outside the tolerance', () => {
    expect(verifyStandardSignature(V.secret, '{"test": 2432232315}', V, { now: AT })).toBe(false);
    expect(verifyStandardSignature(V.secret, V.body, { ...V, id: 'msg_other' }, { now: AT })).toBe(false);
    expect(verifyStandardSignature('whsec_c2VjcmV0', V.body, V, { now: AT })).toBe(false);
    expect(verifyStandardSignature(V.secret, V.body, V, { now: AT + 301_000 })).toBe(false);
    expect(verifyStandardSignature(V.secret, V.body, V, { now: AT - 301_000 })).toBe(false);
    expect(verifyStandardSignature(V.secret, V.body, V, { now: AT + 299_000 })).toBe(true);
  });

  it('checks X-Service-Signature: sha256= and the hex HMAC of the raw body under the whole secret', () => {
    expect(verifyServiceSignature(V.secret, V.body, SERVICE)).toBe(true);
    expect(verifyServiceSignature(V.secret, `${V.body} `, SERVICE)).toBe(false);
    expect(verifyServiceSignature(V.secret, V.body, SERVICE.replace('sha256=', ''))).toBe(false);
    expect(verifyServiceSignature(V.secret, V.body, 'sha256=00')).toBe(false);
  });

  it('verifyWebhook checks every scheme present and answers the parsed message', () => {
    const headers = {
      'X-Service-Signature': SERVICE,
      'webhook-id': V.id,
      'webhook-timestamp': V.timestamp,
      'webhook-signature': V.signature,
    };
    expect(verifyWebhook(V.secret, V.body, headers, { now: AT })).toEqual({ test: 2432232314 });
    expect(verifyWebhook(V.secret, V.body, new Headers({ 'x-service-signature': SERVICE }))).toEqual({
      test: 2432232314,
    });
    // One scheme right and the other wrong is refused.
    expect(() =>
      verifyWebhook(V.secret, V.body, { ...headers, 'X-Service-Signature': 'sha256=' + '0'.repeat(64) }, { now: AT }),
    ).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(V.secret, V.body, headers, { now: AT + 3600_000 })).toThrow(/too old/);
    expect(() => verifyWebhook(V.secret, V.body, {})).toThrow(/no signature/);
  });
});
