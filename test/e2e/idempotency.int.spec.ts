import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

describe('Idempotency-Key on POST', () => {
  let t: TestFleet;
  let admin: string;

  beforeAll(async () => {
    t = await startTestFleet();
    admin = (await t.createWorkspace('idem')).apiKey;
  });
  afterAll(() => t.stop());

  const countProjects = () => t.db.prisma.project.count();

  it('replays the first answer to a repeat and does the work once', async () => {
    const body = { seed: 'https://once.example/', name: 'once' };
    const headers = { 'idempotency-key': 'create-once-1' };
    const first = await t.call('POST', '/projects', { key: admin, body, headers });
    const again = await t.call('POST', '/projects', { key: admin, body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await countProjects()).toBe(1);
  });

  it('refuses the same key on another route, naming the first route', async () => {
    const headers = { 'idempotency-key': 'route-bound' };
    expect(
      (await t.call('POST', '/projects', { key: admin, body: { seed: 'https://r.example/' }, headers })).status,
    ).toBe(201);
    const other = await t.call('POST', '/me/keys', { key: admin, body: { name: 'k', scopes: ['read'] }, headers });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ code: 'validation', error: expect.stringContaining('POST /v1/projects') });
    expect(await t.db.prisma.apiKey.count({ where: { name: 'k' } })).toBe(0);
  });

  it('refuses the same key with another body', async () => {
    const headers = { 'idempotency-key': 'body-bound' };
    await t.call('POST', '/projects', { key: admin, body: { seed: 'https://b1.example/' }, headers });
    const res = await t.call('POST', '/projects', { key: admin, body: { seed: 'https://b2.example/' }, headers });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/different request body/);
  });

  it('keeps a validation answer too, and replays it', async () => {
    const headers = { 'idempotency-key': 'bad-body' };
    const first = await t.call('POST', '/projects', { key: admin, body: { seed: 'ftp://x' }, headers });
    const again = await t.call('POST', '/projects', { key: admin, body: { seed: 'ftp://x' }, headers });
    expect(first.status).toBe(422);
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('does the work once when repeats race', async () => {
    const before = await countProjects();
    const headers = { 'idempotency-key': 'race-1' };
    const body = { seed: 'https://race.example/' };
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => t.call('POST', '/projects', { key: admin, body, headers })),
    );
    expect(await countProjects()).toBe(before + 1);
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
    // Those that arrived while the first was in progress are told to retry, not given a second project.
    for (const a of answers.filter((x) => x.status !== 201)) expect(a.body.code).toBe('conflict');
  });

  it('keeps keys apart between workspaces', async () => {
    const other = (await t.createWorkspace('idem-2')).apiKey;
    const headers = { 'idempotency-key': 'create-once-1' };
    const res = await t.call('POST', '/projects', { key: other, body: { seed: 'https://once.example/' }, headers });
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses a malformed key', async () => {
    const res = await t.call('POST', '/projects', {
      key: admin,
      body: { seed: 'https://m.example/' },
      headers: { 'idempotency-key': 'x'.repeat(300) },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation');
  });
});
