import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

/** Issue 12, item 4: a key cannot create a key (or a member) wider than itself. */
describe('keys are never wider than their creator', () => {
  let t: TestFleet;
  let admin: string;
  let p1: string;
  let p2: string;
  /** An admin key limited to P1: the key of the exploit. */
  let limited: string;

  beforeAll(async () => {
    t = await startTestFleet();
    admin = (await t.createWorkspace('keys')).apiKey;
    p1 = (await t.call('POST', '/projects', { key: admin, body: { seed: 'https://one.example/' } })).body.id;
    p2 = (await t.call('POST', '/projects', { key: admin, body: { seed: 'https://two.example/' } })).body.id;
    limited = await t.createKey(admin, { name: 'p1 admin', scopes: ['admin'], projects: [p1] });
  });
  afterAll(() => t.stop());

  const keyCount = () => t.db.prisma.apiKey.count();
  const mint = (key: string, body: Record<string, unknown>) =>
    t.call('POST', '/me/keys', { key, body: { name: 'minted', ...body } });

  it('a key limited to P1 cannot mint an unrestricted admin key, nor one for P2 (the exploit)', async () => {
    const before = await keyCount();
    const unrestricted = await mint(limited, { scopes: ['admin'] });
    expect(unrestricted.status).toBe(403);
    expect(unrestricted.body).toMatchObject({ code: 'forbidden', request_id: expect.any(String) });
    expect(unrestricted.body.error).toContain('body.projects');
    expect(unrestricted.body.details.fields).toEqual([expect.objectContaining({ field: 'body.projects' })]);

    const forP2 = await mint(limited, { scopes: ['admin'], projects: [p2] });
    expect(forP2.status).toBe(403);
    expect(forP2.body.error).toContain(`${p2} is outside this key's allow-list`);
    const both = await mint(limited, { scopes: ['read'], projects: [p1, p2] });
    expect(both.status).toBe(403);
    // A project that does not exist is refused the same way: nothing is confirmed.
    const made = await mint(limited, { scopes: ['read'], projects: ['prj_nosuchproject0000000000'] });
    expect(made.status).toBe(403);
    expect(await keyCount()).toBe(before);
    // And P2 stays out of reach of anything the limited key could have made.
    expect((await t.call('GET', `/projects/${p2}`, { key: limited })).status).toBe(404);
  });

  it('a key limited to P1 mints keys within P1, which read P1 and not P2', async () => {
    const res = await mint(limited, { scopes: ['admin'], projects: [p1] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ scopes: ['admin'], projects: [p1] });
    expect((await t.call('GET', `/projects/${p1}`, { key: res.body.key })).status).toBe(200);
    expect((await t.call('GET', `/projects/${p2}`, { key: res.body.key })).status).toBe(404);
  });

  it('caps the rate: a key with its own rpm mints keys with that rpm or less', async () => {
    const slow = await t.createKey(admin, { name: 'slow', scopes: ['admin'], rpm: 50 });
    const none = await mint(slow, { scopes: ['read'] });
    expect(none.status).toBe(403);
    expect(none.body.details.fields).toEqual([expect.objectContaining({ field: 'body.rpm' })]);
    expect(none.body.error).toMatch(/rpm of 50 or less/);
    expect((await mint(slow, { scopes: ['read'], rpm: 51 })).status).toBe(403);
    const ok = await mint(slow, { scopes: ['read'], rpm: 50 });
    expect(ok.status).toBe(201);
    expect(ok.body.rpm).toBe(50);
    // The unrestricted admin is not held to anything.
    expect((await mint(admin, { scopes: ['admin'], rpm: null })).status).toBe(201);
  });

  it('caps the expiry: a key that expires mints keys that expire by then', async () => {
    const brief = await t.createKey(admin, { name: 'brief', scopes: ['admin'], expires_in_days: 10 });
    const never = await mint(brief, { scopes: ['read'] });
    expect(never.status).toBe(403);
    expect(never.body.details.fields).toEqual([expect.objectContaining({ field: 'body.expires_in_days' })]);
    expect((await mint(brief, { scopes: ['read'], expires_in_days: 11 })).status).toBe(403);
    const ok = await mint(brief, { scopes: ['read'], expires_in_days: 5 });
    expect(ok.status).toBe(201);
  });

  it('names every field that is too wide at once', async () => {
    const narrow = await t.createKey(admin, { name: 'narrow', scopes: ['admin'], projects: [p1], rpm: 10 });
    const res = await mint(narrow, { scopes: ['admin'], projects: [p2], rpm: 100 });
    expect(res.status).toBe(403);
    expect(res.body.details.fields.map((f: { field: string }) => f.field)).toEqual(['body.projects', 'body.rpm']);
  });

  it('shows a limited key only the keys within its projects, and lets it revoke only those', async () => {
    const list = await t.call('GET', '/me/keys', { key: limited });
    expect(list.status).toBe(200);
    for (const k of list.body.data as { projects: string[] }[]) {
      expect(k.projects.length).toBeGreaterThan(0);
      expect(k.projects.every((p) => p === p1)).toBe(true);
    }
    expect(list.body.data.map((k: { name: string }) => k.name)).toContain('p1 admin');
    const all = await t.call('GET', '/me/keys', { key: admin });
    const adminRow = all.body.data.find((k: { name: string }) => k.name === 'admin');
    expect(list.body.data.map((k: { id: string }) => k.id)).not.toContain(adminRow.id);

    const revoke = await t.call('DELETE', `/me/keys/${adminRow.id}`, { key: limited });
    expect(revoke.status).toBe(404);
    expect((await t.call('GET', '/me', { key: admin })).status).toBe(200);
    const own = await mint(limited, { scopes: ['read'], projects: [p1] });
    expect((await t.call('DELETE', `/me/keys/${own.body.id}`, { key: limited })).status).toBe(204);
  });

  it('a limited key cannot invite members or change roles (a member reaches every project)', async () => {
    const invite = await t.call('POST', '/auth/invites', {
      key: limited,
      body: { email: 'mallory@keys.test', role: 'admin' },
    });
    expect(invite.status).toBe(403);
    expect(invite.body.error).toMatch(/limited to some projects cannot invite members/);
    const slow = await t.createKey(admin, { name: 'slow 2', scopes: ['admin'], rpm: 5 });
    expect(
      (await t.call('POST', '/auth/invites', { key: slow, body: { email: 'mallory@keys.test', role: 'viewer' } }))
        .status,
    ).toBe(403);
    expect(await t.db.prisma.invite.count()).toBe(0);
    const role = await t.call('PATCH', '/auth/members/usr_anyone', { key: limited, body: { role: 'admin' } });
    expect(role.status).toBe(403);
    // The unrestricted admin key may.
    expect(
      (await t.call('POST', '/auth/invites', { key: admin, body: { email: 'carol@keys.test', role: 'viewer' } }))
        .status,
    ).toBe(201);
  });

  it("a limited key cannot move the workspace's rate ceiling (it holds every key, its own included)", async () => {
    const ceiling = (key: string, max_rpm: number | null) => t.call('PATCH', '/me', { key, body: { max_rpm } });
    expect((await ceiling(admin, 50)).status).toBe(200);
    // Lifting the ceiling would raise the P1 key's own rate and every other key's.
    const lifted = await ceiling(limited, null);
    expect(lifted.status).toBe(403);
    expect(lifted.body).toMatchObject({ code: 'forbidden', request_id: expect.any(String) });
    expect(lifted.body.error).toMatch(/limited to some projects cannot change the workspace's rate ceiling/);
    // Lowering it would throttle keys of projects it cannot see.
    expect((await ceiling(limited, 1)).status).toBe(403);
    const slow = await t.createKey(admin, { name: 'slow 3', scopes: ['admin'], rpm: 5 });
    expect((await ceiling(slow, 1)).body.error).toMatch(/limited to a rate of its own cannot change/);
    expect((await t.call('GET', '/me', { key: admin })).body.workspace.settings.max_rpm).toBe(50);
    // The unrestricted admin key may.
    expect((await ceiling(admin, null)).status).toBe(200);
    expect((await t.call('GET', '/me', { key: admin })).body.workspace.settings.max_rpm).toBeNull();
  });

  it('a member acting by session is capped at their role', async () => {
    const signup = await t.call('POST', '/auth/signup', {
      body: { email: 'owner@capped.test', password: 'capped-password-1' },
    });
    const cookie = /tidemark_session=[^;]*/.exec(signup.headers.get('set-cookie') ?? '')![0];
    const ownerKey = await t.call('POST', '/me/keys', {
      headers: { cookie },
      body: { name: 'by owner', scopes: ['admin'] },
    });
    expect(ownerKey.status).toBe(201);
    const invite = await t.call('POST', '/auth/invites', {
      headers: { cookie },
      body: { email: 'writer@capped.test', role: 'member' },
    });
    const joined = await t.call('POST', '/auth/invites/accept', {
      body: { token: invite.body.token, password: 'writer-password-1' },
    });
    const writer = /tidemark_session=[^;]*/.exec(joined.headers.get('set-cookie') ?? '')![0];
    const refused = await t.call('POST', '/me/keys', {
      headers: { cookie: writer },
      body: { name: 'w', scopes: ['read'] },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/admin role; you are member/);
  });
});
