import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

describe('per-key rate limit', () => {
  let t: TestFleet;
  let admin: string;

  beforeAll(async () => {
    t = await startTestFleet();
    admin = (await t.createWorkspace('limits')).apiKey;
  });
  afterAll(() => t.stop());

  /** A fresh key each time, so the probe does not use up the admin key's own limit. */
  const awayFromWindowEdge = async () => t.awayFromRateWindowEdge(await t.createKey(admin, { scopes: ['read'] }));

  it('lets exactly the limit through under 50 concurrent requests, with headers on every answer', async () => {
    const key = await t.createKey(admin, { scopes: ['read'], rpm: 20 });
    await awayFromWindowEdge();
    const answers = await Promise.all(Array.from({ length: 50 }, () => t.call('GET', '/me', { key })));
    const ok = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect(ok).toHaveLength(20);
    expect(limited).toHaveLength(30);
    for (const a of answers) {
      expect(a.headers.get('x-ratelimit-limit')).toBe('20');
      expect(Number(a.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
      expect(Number(a.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(60);
    }
    const remaining = ok.map((a) => Number(a.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => i));
    for (const a of limited) {
      expect(a.body).toMatchObject({ code: 'rate_limited', request_id: a.headers.get('x-request-id') });
      expect(a.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(a.headers.get('retry-after')).toBe(a.headers.get('x-ratelimit-reset'));
    }
  });

  it('counts each key on its own', async () => {
    const a = await t.createKey(admin, { scopes: ['read'], rpm: 2 });
    const b = await t.createKey(admin, { scopes: ['read'], rpm: 2 });
    await awayFromWindowEdge();
    expect((await t.call('GET', '/meta', { key: a })).status).toBe(200);
    expect((await t.call('GET', '/meta', { key: a })).status).toBe(200);
    expect((await t.call('GET', '/meta', { key: a })).status).toBe(429);
    expect((await t.call('GET', '/meta', { key: b })).status).toBe(200);
  });

  it('takes the lowest of the key rate, the workspace max_rpm and the plan default', async () => {
    const ws = (await t.createWorkspace('ceiling')).apiKey;
    const key = await t.createKey(ws, { scopes: ['read'], rpm: 40 });
    expect((await t.call('GET', '/meta', { key })).headers.get('x-ratelimit-limit')).toBe('40');
    const patched = await t.call('PATCH', '/me', { key: ws, body: { max_rpm: 7 } });
    expect(patched.status).toBe(200);
    expect(patched.body.workspace.settings.max_rpm).toBe(7);
    expect((await t.call('GET', '/meta', { key })).headers.get('x-ratelimit-limit')).toBe('7');
    await t.call('PATCH', '/me', { key: ws, body: { max_rpm: null } });
    const unlimitedKey = await t.createKey(ws, { scopes: ['read'] });
    // The free plan's default (60) is the ceiling when neither the key nor the workspace sets one.
    expect((await t.call('GET', '/meta', { key: unlimitedKey })).headers.get('x-ratelimit-limit')).toBe('60');
  });
});
