import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestFleet, type Answer, type TestFleet } from '../support/fleet.js';

describe('request ids and the error envelope', () => {
  let t: TestFleet;
  let admin: string;

  beforeAll(async () => {
    t = await startTestFleet({ GATEWAY_BODY_LIMIT: '10kb' });
    admin = (await t.createWorkspace('envelope')).apiKey;
  });
  afterAll(() => t.stop());

  const expectEnvelope = (res: Answer, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.body).toEqual(
      expect.objectContaining({ error: expect.any(String), code, request_id: res.headers.get('x-request-id') }),
    );
    expect(res.body.request_id).toBeTruthy();
  };

  it("echoes the caller's X-Request-Id on success and in errors", async () => {
    const ok = await t.call('GET', '/me', { key: admin, headers: { 'x-request-id': 'trace-abc-123' } });
    expect(ok.headers.get('x-request-id')).toBe('trace-abc-123');
    // No body is hashed for an ETag (docs/decisions.md).
    expect(ok.headers.get('etag')).toBeNull();
    const err = await t.call('GET', '/nowhere', { key: admin, headers: { 'x-request-id': 'trace-err-9' } });
    expect(err.headers.get('x-request-id')).toBe('trace-err-9');
    expect(err.body.request_id).toBe('trace-err-9');
  });

  it('mints an id when none (or a malformed one) is sent', async () => {
    const a = await t.call('GET', '/me', { key: admin });
    const b = await t.call('GET', '/me', { key: admin, headers: { 'x-request-id': 'bad id with spaces' } });
    expect(a.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(b.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('answers every kind of error in the envelope', async () => {
    expectEnvelope(await t.call('GET', '/me'), 401, 'unauthorized');
    expectEnvelope(await t.call('GET', '/no/such/route', { key: admin }), 404, 'not_found');
    expectEnvelope(await t.call('GET', '/projects/prj_nothere', { key: admin }), 404, 'not_found');
    expectEnvelope(
      await t.call('POST', '/projects', {
        key: admin,
        rawBody: '{"seed": ',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'validation',
    );
    expectEnvelope(
      await t.call('POST', '/projects', {
        key: admin,
        body: { seed: 'https://big.example/', name: 'x'.repeat(20_000) },
      }),
      413,
      'too_large',
    );
    expectEnvelope(await t.call('POST', '/projects', { key: admin, body: { name: 'no seed' } }), 422, 'validation');
    expectEnvelope(await t.call('GET', '/projects?limit=5000', { key: admin }), 400, 'validation');
    expectEnvelope(await t.call('GET', '/projects?cursor=garbage', { key: admin }), 400, 'validation');
    expectEnvelope(
      await t.call('POST', '/projects', { key: admin, rawBody: 'seed=x', headers: { 'content-type': 'text/plain' } }),
      400,
      'validation',
    );
  });

  it('refuses a body nested past the bound, and a path that is not percent-encoding, as validation', async () => {
    const deep = '{"a":'.repeat(1500) + '1' + '}'.repeat(1500); // under this fleet's 10kb limit
    const res = await t.call('POST', '/projects', {
      key: admin,
      rawBody: deep,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'deep-1' },
    });
    expectEnvelope(res, 400, 'validation');
    expect(res.body.error).toMatch(/nests deeper/);
    expectEnvelope(await t.call('GET', '/projects/%zz', { key: admin }), 400, 'validation');
    expectEnvelope(await t.call('DELETE', '/auth/invites/%E0%A4%A', { key: admin }), 400, 'validation');
  });

  it('names the failing field', async () => {
    const res = await t.call('POST', '/projects', {
      key: admin,
      body: { seed: 'https://f.example/', config: { max_pages: 'many' } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^body\.config\.max_pages: /);
    expect(res.body.details.fields[0].field).toBe('body.config.max_pages');
  });

  it('answers unknown paths outside /v1 in the envelope too', async () => {
    const res = await fetch(t.apiUrl.replace(/\/v1$/, '/elsewhere'));
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status).toBe(404);
    expect(body).toMatchObject({ code: 'not_found', request_id: res.headers.get('x-request-id') });
  });

  it('changes nothing on a refused request', async () => {
    const before = await t.db.prisma.project.count();
    await t.call('POST', '/projects', { key: admin, body: { seed: 'https://z.example/', config: { nope: true } } });
    await t.call('POST', '/projects', { key: admin, rawBody: '{', headers: { 'content-type': 'application/json' } });
    expect(await t.db.prisma.project.count()).toBe(before);
  });
});
