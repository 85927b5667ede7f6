import { createHash } from 'node:crypto';
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

  it('keeps no 422: a corrected retry with the same key runs', async () => {
    const headers = { 'idempotency-key': 'bad-body' };
    const first = await t.call('POST', '/projects', { key: admin, body: { seed: 'ftp://x' }, headers });
    const again = await t.call('POST', '/projects', { key: admin, body: { seed: 'ftp://x' }, headers });
    expect(first.status).toBe(422);
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const fixed = await t.call('POST', '/projects', { key: admin, body: { seed: 'https://fixed.example/' }, headers });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    const repeat = await t.call('POST', '/projects', {
      key: admin,
      body: { seed: 'https://fixed.example/' },
      headers,
    });
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.body.id).toBe(fixed.body.id);
  });

  it('keeps no 4xx the handler answers either: a retry once the cause is fixed runs', async () => {
    // The handler refuses an allow-list naming no project of the workspace (422 from the service).
    const headers = { 'idempotency-key': 'handler-422' };
    const body = { name: 'later', scopes: ['read'], projects: ['prj_notyetthere00000000000000'] };
    const refused = await t.call('POST', '/me/keys', { key: admin, body, headers });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toContain('body.projects.0');
    expect(await t.db.prisma.idempotencyRecord.count({ where: { key: 'handler-422' } })).toBe(0);
    const fixed = await t.call('POST', '/me/keys', { key: admin, body: { ...body, projects: [] }, headers });
    expect(fixed.status).toBe(201);
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

  describe('replays respect the caller (issue 12, item 5)', () => {
    const keyBody = { name: 'deploy', scopes: ['admin'] };
    const headers = { 'idempotency-key': 'mint-deploy-key' };
    let minted: { id: string; key: string };

    beforeAll(async () => {
      const res = await t.call('POST', '/me/keys', { key: admin, body: keyBody, headers });
      expect(res.status).toBe(201);
      minted = res.body;
    });

    it("a read key reusing an admin's Idempotency-Key never gets the admin's answer or secret", async () => {
      const reader = await t.createKey(admin, { name: 'reader', scopes: ['read'] });
      const res = await t.call('POST', '/me/keys', { key: reader, body: keyBody, headers });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      expect(JSON.stringify(res.body)).not.toContain(minted.key);
      expect(JSON.stringify(res.body)).not.toContain(minted.id);
    });

    it('another admin key with the same Idempotency-Key makes a request of its own', async () => {
      const otherAdmin = await t.createKey(admin, { name: 'other admin', scopes: ['admin'] });
      const res = await t.call('POST', '/me/keys', { key: otherAdmin, body: keyBody, headers });
      expect(res.status).toBe(201);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      expect(res.body.id).not.toBe(minted.id);
      expect(res.body.key).not.toBe(minted.key);
    });

    it("a key limited to P1 reusing an admin's Idempotency-Key never gets the admin's answer about P2", async () => {
      const p1 = (await t.call('POST', '/projects', { key: admin, body: { seed: 'https://one.idem.example/' } })).body;
      const p2 = (await t.call('POST', '/projects', { key: admin, body: { seed: 'https://two.idem.example/' } })).body;
      const scoped = { 'idempotency-key': 'p2-config' };
      const body = { project_ids: [p2.id], groups: ['fetch'] };
      const first = await t.call('POST', `/projects/${p1.id}/config/apply`, { key: admin, body, headers: scoped });
      expect(first.status).toBe(200);
      expect(first.body.applied.map((a: { projectId: string }) => a.projectId)).toEqual([p2.id]);
      const limited = await t.createKey(admin, { name: 'p1 only', scopes: ['admin'], projects: [p1.id] });
      // Its own request: P2 is outside its allow-list, so it is refused, and nothing of P2 is told.
      const res = await t.call('POST', `/projects/${p1.id}/config/apply`, { key: limited, body, headers: scoped });
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      expect(res.status).toBe(200);
      expect(res.body.applied).toEqual([]);
      expect(res.body.refused).toEqual([{ projectId: p2.id, reason: expect.any(String) }]);
      // The admin still gets its own answer replayed.
      const again = await t.call('POST', `/projects/${p1.id}/config/apply`, { key: admin, body, headers: scoped });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
    });

    it('a member signed in replays only their own answers, not a key’s', async () => {
      const signup = await t.call('POST', '/auth/signup', {
        body: { email: 'owner@idem.test', password: 'idem-password-1' },
      });
      const cookie = /tidemark_session=[^;]*/.exec(signup.headers.get('set-cookie') ?? '')![0];
      const first = await t.call('POST', '/projects', {
        headers: { cookie, 'idempotency-key': 'member-1' },
        body: { seed: 'https://member.example/' },
      });
      const again = await t.call('POST', '/projects', {
        headers: { cookie, 'idempotency-key': 'member-1' },
        body: { seed: 'https://member.example/' },
      });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.id).toBe(first.body.id);
    });

    it('keeps the secret sealed at rest and replays it only to the caller who made it', async () => {
      const row = await t.db.prisma.idempotencyRecord.findFirstOrThrow({ where: { key: 'mint-deploy-key' } });
      expect(row.caller).toMatch(/^key:key_/);
      expect(JSON.stringify(row.body)).not.toContain(minted.key);
      expect(row.body).not.toHaveProperty('key');
      expect(row.secrets).toMatch(/^v1\./);
      expect(row.secrets).not.toContain(minted.key);
      // The body's digest is keyed: no offline oracle for what a body held (a password, a header).
      expect(row.requestHash).not.toBe(createHash('sha256').update(JSON.stringify(keyBody)).digest('hex'));

      const replay = await t.call('POST', '/me/keys', { key: admin, body: keyBody, headers });
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(minted);
      expect(await t.db.prisma.apiKey.count({ where: { name: 'deploy' } })).toBe(2); // this and the other admin's
    });

    it('every POST route whose answer carries a secret declares it, so a kept answer seals it', () => {
      const secretish = /secret|token|otpauth|^key$/i;
      // A connection's `secrets` lists the names of its secrets, never their values.
      const notSecret = new Set(['/connections secrets']);
      const undeclared: string[] = [];
      for (const route of t.fleet.gateway.routes) {
        if (route.method !== 'post' || route.auth === 'none') continue;
        for (const [status, res] of Object.entries(route.responses)) {
          const shape = (res.schema as { shape?: Record<string, unknown> } | undefined)?.shape;
          if (Number(status) >= 300 || !shape) continue;
          for (const field of Object.keys(shape))
            if (
              secretish.test(field) &&
              !notSecret.has(`${route.path} ${field}`) &&
              !(route.secretFields ?? []).includes(field)
            )
              undeclared.push(`${route.path} ${status} ${field}`);
        }
      }
      expect(undeclared).toEqual([]);
      // The check can fail: the key route declares its secret.
      expect(t.fleet.gateway.routes.find((r) => r.path === '/me/keys' && r.method === 'post')?.secretFields).toEqual([
        'key',
      ]);
    });
  });
});
