import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startFailureServer, type FailureServer } from '@tidemark/testkit';
import {
  DEFAULT_TIMEOUT_MS,
  Tidemark,
  TidemarkApiError,
  TidemarkNetworkError,
  TidemarkTimeoutError,
  type TidemarkError,
} from '../src/index.js';

const envelope = (code: string, error = code) => ({ error, code, request_id: 'req_injected' });
const fail = (status: number, headers: Record<string, string> = {}) => ({
  status,
  headers,
  body: envelope(status === 429 ? 'rate_limited' : 'unavailable'),
});

describe('the TypeScript client retry rule, against a server that injects each failure', () => {
  let server: FailureServer;
  let tm: Tidemark;
  beforeAll(async () => {
    server = await startFailureServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    tm = new Tidemark({ apiKey: 'service_test', baseUrl: server.apiUrl });
  });
  const sent = (method: string, path: string) =>
    server.requests().filter((r) => r.method === method && r.path === `/v1${path}`);
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('the call succeeded');
      },
      (err: TidemarkError) => err,
    );

  it.each([429, 502, 503, 504])('retries a GET answered %i and returns the answer that came after', async (status) => {
    server.script('GET', '/v1/projects/p_1', [fail(status), { status: 200, body: { id: 'p_1', name: 'ok' } }]);
    await expect(tm.projects.get('p_1')).resolves.toMatchObject({ id: 'p_1' });
    expect(sent('GET', '/projects/p_1')).toHaveLength(2);
  });

  it('gives up after two retries of a safe call (three requests in all) with the last envelope', async () => {
    server.script('GET', '/v1/projects/p_1', [fail(503), fail(502), fail(503), { status: 200, body: {} }]);
    const err = await failure(tm.projects.get('p_1'));
    expect(err).toBeInstanceOf(TidemarkApiError);
    expect(err).toMatchObject({ status: 503, code: 'unavailable', requestId: 'req_injected' });
    expect(err.meta.attempts).toBe(3);
    expect(sent('GET', '/projects/p_1')).toHaveLength(3);
  });

  it('retries a DELETE', async () => {
    server.script('DELETE', '/v1/crawl/c_1', [fail(504), { status: 200, body: { id: 'c_1', status: 'cancelled' } }]);
    await expect(tm.crawl.cancel('c_1')).resolves.toMatchObject({ status: 'cancelled' });
    expect(sent('DELETE', '/crawl/c_1')).toHaveLength(2);
  });

  it('never repeats a POST without an Idempotency-Key', async () => {
    server.script('POST', '/v1/projects', [fail(503), { status: 201, body: { id: 'p_2' } }]);
    const err = await failure(tm.projects.create({ seed: 'https://example.com/' }));
    expect(err).toMatchObject({ status: 503, code: 'unavailable' });
    expect(sent('POST', '/projects')).toHaveLength(1);
    expect(sent('POST', '/projects')[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('never repeats a PATCH', async () => {
    server.script('PATCH', '/v1/projects/p_1', [fail(502), { status: 200, body: {} }]);
    await expect(failure(tm.projects.update('p_1', { name: 'x' }))).resolves.toMatchObject({ status: 502 });
    expect(sent('PATCH', '/projects/p_1')).toHaveLength(1);
  });

  it('adds an Idempotency-Key to POST /scrape, /crawl and /map and keeps it across retries', async () => {
    server.script('POST', '/v1/scrape', [fail(503), { status: 200, body: { id: 's_1', data: [] } }]);
    server.script('POST', '/v1/crawl', [fail(429, { 'retry-after': '0' }), { status: 202, body: { id: 'c_1' } }]);
    server.script('POST', '/v1/map', [{ drop: true }, { status: 200, body: { id: 'm_1' } }]);
    await expect(tm.scrape.start({ url: 'https://example.com/' })).resolves.toMatchObject({ status: 200, attempts: 2 });
    await expect(tm.crawl.start({ url: 'https://example.com/' })).resolves.toMatchObject({ id: 'c_1' });
    await expect(tm.map.start({ url: 'https://example.com/' })).resolves.toMatchObject({ status: 200 });
    for (const path of ['/scrape', '/crawl', '/map']) {
      const keys = sent('POST', path).map((r) => r.headers['idempotency-key']);
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(keys[1]).toBe(keys[0]);
    }
    // A fresh key per call: two calls are two scrapes.
    await tm.scrape.start({ url: 'https://example.com/' });
    const keys = new Set(sent('POST', '/scrape').map((r) => r.headers['idempotency-key']));
    expect(keys.size).toBe(2);
  });

  it('does not repeat POST /scrape when the caller turns the key off', async () => {
    server.script('POST', '/v1/scrape', [fail(503), { status: 200, body: {} }]);
    await expect(
      failure(tm.scrape.start({ url: 'https://example.com/' }, { idempotencyKey: false })),
    ).resolves.toMatchObject({ status: 503 });
    expect(sent('POST', '/scrape')).toHaveLength(1);
  });

  it('repeats any POST the caller gave an Idempotency-Key', async () => {
    server.script('POST', '/v1/projects', [fail(502), { status: 201, body: { id: 'p_3' } }]);
    await expect(
      tm.projects.create({ seed: 'https://example.com/' }, { idempotencyKey: 'create-p3' }),
    ).resolves.toMatchObject({
      id: 'p_3',
    });
    expect(sent('POST', '/projects').map((r) => r.headers['idempotency-key'])).toEqual(['create-p3', 'create-p3']);
  });

  it('waits out Retry-After before the retry', async () => {
    server.script('GET', '/v1/me', [fail(429, { 'retry-after': '1' }), { status: 200, body: { can: {} } }]);
    await tm.workspace.me();
    const [first, second] = sent('GET', '/me');
    // A lower bound only: the client may not come back before the server said it could.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it('does not sleep through a Retry-After longer than its limit: the 429 comes back with it', async () => {
    server.script('GET', '/v1/me', [fail(429, { 'retry-after': '3600' }), { status: 200, body: {} }]);
    const err = await failure(tm.workspace.me());
    expect(err).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(err.meta.retryAfter).toBe(3600);
    expect(sent('GET', '/me')).toHaveLength(1);
  });

  it('retries a safe call whose connection was cut, and not an unsafe one', async () => {
    server.script('GET', '/v1/projects', [
      { drop: true },
      { drop: true },
      { status: 200, body: { data: [], next: null } },
    ]);
    await expect(tm.projects.list()).resolves.toMatchObject({ data: [] });
    expect(sent('GET', '/projects')).toHaveLength(3);

    server.script('POST', '/v1/projects', [{ drop: true }, { status: 201, body: {} }]);
    const err = await failure(tm.projects.create({ seed: 'https://example.com/' }));
    expect(err).toBeInstanceOf(TidemarkNetworkError);
    expect(err.code).toBe('network');
    expect(sent('POST', '/projects')).toHaveLength(1);
  });

  it('does not retry other errors (500, 404, 422)', async () => {
    for (const status of [500, 404, 422]) {
      server.script('GET', '/v1/projects/p_9', [
        { status, body: envelope('x') },
        { status: 200, body: {} },
      ]);
      await expect(failure(tm.projects.get('p_9'))).resolves.toMatchObject({ status, code: 'x' });
    }
    expect(sent('GET', '/projects/p_9')).toHaveLength(3);
  });

  it('names an error from its status when the answer is not an envelope (a proxy page)', async () => {
    const noRetry = new Tidemark({ apiKey: 'k', baseUrl: server.apiUrl, maxRetries: 0 });
    server.script('GET', '/v1/me', [{ status: 502, body: '<html>Bad Gateway</html>' }]);
    await expect(failure(noRetry.workspace.me())).resolves.toMatchObject({ status: 502, code: 'unavailable' });
  });

  it('ends a call with no answer at its timeout (150 s by default) and does not repeat it', async () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(150_000);
    const quick = new Tidemark({ apiKey: 'k', baseUrl: server.apiUrl, timeoutMs: 300 });
    server.script('GET', '/v1/me', [{ hang: true }, { status: 200, body: {} }]);
    const err = await failure(quick.workspace.me());
    expect(err).toBeInstanceOf(TidemarkTimeoutError);
    expect(err.code).toBe('timeout');
    expect(sent('GET', '/me')).toHaveLength(1);
  });

  it('sends the key as a bearer token and JSON bodies', async () => {
    server.script('POST', '/v1/projects', [{ status: 201, body: { id: 'p_4' } }]);
    await tm.projects.create({ seed: 'https://example.com/', name: 'Example' });
    const [req] = sent('POST', '/projects');
    expect(req!.headers.authorization).toBe('Bearer service_test');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req!.body)).toEqual({ seed: 'https://example.com/', name: 'Example' });
  });
});
