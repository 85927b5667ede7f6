import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as gateway from '@tidemark/gateway';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A request with headers fetch would not send as given (Host), as a proxy or an attacker can. */
const raw = (url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<Raw> =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      url,
      { method, headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });

/** Issue 12, item 7: behind a proxy, links and cookies come from configuration, not from the caller. */
describe('behind a proxy: links, cookies and the client address', () => {
  let t: TestFleet;
  let admin: string;
  const second: gateway.GatewayApp[] = [];

  /** Another gateway on the same fleet with settings of its own. */
  const gatewayWith = async (env: Record<string, string>): Promise<string> => {
    const app = await gateway.buildApp(gateway.loadConfig({ ...t.dialEnv, ...env }));
    second.push(app);
    return (await app.start()).url;
  };

  beforeAll(async () => {
    t = await startTestFleet({ GATEWAY_AUTH_IP_RPM: '1000' });
    admin = (await t.createWorkspace('proxy')).apiKey;
    for (const name of ['a', 'b', 'c']) await t.createKey(admin, { name, scopes: ['read'] });
  });
  afterAll(async () => {
    for (const app of second) await app.stop();
    await t.stop();
  });

  it('never builds a next link from a forged Host or X-Forwarded-Host', async () => {
    const res = await raw(`${t.apiUrl}/me/keys?limit=1`, 'GET', {
      authorization: `Bearer ${admin}`,
      host: 'evil.example',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
    });
    expect(res.status).toBe(200);
    expect(res.body.next).not.toContain('evil');
    // Without PUBLIC_BASE_URL (development): the address the gateway answered on.
    expect(res.body.next.startsWith(`${t.apiUrl}/me/keys?`)).toBe(true);
  });

  it('builds next links from PUBLIC_BASE_URL, whatever Host says', async () => {
    const url = await gatewayWith({ PUBLIC_BASE_URL: 'https://api.tidemark.example/edge' });
    const res = await raw(`${url}/me/keys?limit=1`, 'GET', { authorization: `Bearer ${admin}`, host: 'evil.example' });
    expect(res.body.next).toMatch(/^https:\/\/api\.tidemark\.example\/edge\/v1\/me\/keys\?cursor=[^&]+&limit=1$/);
    const next = await raw(`${url}${res.body.next.slice('https://api.tidemark.example/edge/v1'.length)}`, 'GET', {
      authorization: `Bearer ${admin}`,
    });
    expect(next.status).toBe(200);
    expect(next.body.data).toHaveLength(1);
  });

  it('sets the session cookie Secure in production, even when the proxy spoke plain http to it', async () => {
    const url = await gatewayWith({
      NODE_ENV: 'production',
      PUBLIC_BASE_URL: 'https://api.tidemark.example',
      SECRETS_KEY: Buffer.alloc(32, 5).toString('base64'),
    });
    const signup = await raw(
      `${url}/auth/signup`,
      'POST',
      {},
      { email: 'prod@proxy.test', password: 'prod-password-1' },
    );
    expect(signup.status).toBe(201);
    const cookie = String(signup.headers['set-cookie']);
    expect(cookie).toMatch(
      /^tidemark_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/,
    );
    const session = cookie.split(';')[0]!;
    const out = await raw(`${url}/auth/logout`, 'POST', { cookie: session });
    expect(String(out.headers['set-cookie'])).toMatch(/Max-Age=0; Secure$/);
  });

  it('outside production, trusts X-Forwarded-Proto only from the configured proxy hops', async () => {
    const signup = (url: string, email: string) =>
      raw(`${url}/auth/signup`, 'POST', { 'x-forwarded-proto': 'https' }, { email, password: 'hops-password-1' });
    // No hops trusted (the default): a forged X-Forwarded-Proto does not make the cookie Secure.
    expect(String((await signup(t.apiUrl, 'zero@proxy.test')).headers['set-cookie'])).not.toMatch(/Secure/);
    // One hop trusted (the Helm chart's setting): the proxy's word counts.
    const behind = await gatewayWith({ TRUST_PROXY_HOPS: '1' });
    expect(String((await signup(behind, 'one@proxy.test')).headers['set-cookie'])).toMatch(/; Secure$/);
  });

  it('counts the per-address limit by the client the trusted proxy names, not by the proxy', async () => {
    const url = await gatewayWith({ TRUST_PROXY_HOPS: '1', GATEWAY_AUTH_IP_RPM: '2' });
    const forgot = (client: string) =>
      raw(`${url}/auth/forgot`, 'POST', { 'x-forwarded-for': client }, { email: 'x@proxy.test' });
    // The per-address window is a fixed minute: three attempts split over two would all pass.
    await t.awayFromRateWindowEdge(admin);
    expect((await forgot('203.0.113.7')).status).toBe(202);
    expect((await forgot('203.0.113.7')).status).toBe(202);
    expect((await forgot('203.0.113.7')).status).toBe(429);
    // Another client behind the same proxy is not held up by the first.
    expect((await forgot('203.0.113.8')).status).toBe(202);
  });
});
