import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as gateway from '@tidemark/gateway';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

describe('authentication, scopes and visibility', () => {
  let t: TestFleet;
  let admin: string;
  let readKey: string;
  let writeKey: string;
  let projectA: string;
  let projectB: string;

  beforeAll(async () => {
    t = await startTestFleet();
    admin = (await t.createWorkspace('alpha')).apiKey;
    readKey = await t.createKey(admin, { scopes: ['read'] });
    writeKey = await t.createKey(admin, { scopes: ['write'] });
    projectA = (await t.call('POST', '/projects', { key: admin, body: { seed: 'https://a.example/' } })).body.id;
    projectB = (await t.call('POST', '/projects', { key: admin, body: { seed: 'https://b.example/' } })).body.id;
  });
  afterAll(() => t.stop());

  describe('401 unauthorized', () => {
    it('refuses a request without a key', async () => {
      const res = await t.call('GET', '/me');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'unauthorized', error: expect.stringContaining('missing API key') });
    });

    it('refuses a key that is not a Tidemark key or does not exist', async () => {
      for (const key of ['nonsense', 'service_doesnotexist0000000000000000000000']) {
        const res = await t.call('GET', '/me', { key });
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('unauthorized');
      }
      const res = await t.call('GET', '/me', { headers: { authorization: 'Basic abc' } });
      expect(res.status).toBe(401);
    });

    it('refuses an expired key, saying so', async () => {
      const key = await t.createKey(admin, { scopes: ['read'], expires_in_days: 1 });
      // Bring the expiry to 1.5 s from now before the key is first used (the API sets days).
      await t.db.prisma.apiKey.updateMany({
        where: { prefix: key.slice(0, 14) },
        data: { expiresAt: new Date(Date.now() + 1500) },
      });
      expect((await t.call('GET', '/me', { key })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1600));
      const res = await t.call('GET', '/me', { key });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/expired/);
    });

    it('refuses a revoked key', async () => {
      const created = await t.call('POST', '/me/keys', { key: admin, body: { name: 'short-lived', scopes: ['read'] } });
      expect((await t.call('GET', '/me', { key: created.body.key })).status).toBe(200);
      expect((await t.call('DELETE', `/me/keys/${created.body.id}`, { key: admin })).status).toBe(204);
      expect((await t.call('GET', '/me', { key: created.body.key })).status).toBe(401);
    });
  });

  it('a key revoked on one gateway instance is refused by another at once', async () => {
    const second = await gateway.buildApp(gateway.loadConfig(t.dialEnv));
    const { url } = await second.start();
    try {
      const created = await t.call('POST', '/me/keys', {
        key: admin,
        body: { name: 'two-gateways', scopes: ['read'] },
      });
      const viaSecond = () => fetch(`${url}/meta`, { headers: { authorization: `Bearer ${created.body.key}` } });
      expect((await viaSecond()).status).toBe(200); // now cached by the second instance
      expect((await t.call('DELETE', `/me/keys/${created.body.id}`, { key: admin })).status).toBe(204);
      // The broadcast crosses NATS in milliseconds; the cache's own TTL is 10 s.
      const until = Date.now() + 2000;
      let status = (await viaSecond()).status;
      while (status !== 401 && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 20));
        status = (await viaSecond()).status;
      }
      expect(status).toBe(401);
    } finally {
      await second.stop();
    }
  });

  describe('403 forbidden', () => {
    it('refuses a read key that writes', async () => {
      const res = await t.call('POST', '/projects', { key: readKey, body: { seed: 'https://c.example/' } });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'forbidden', error: expect.stringContaining('write') });
      const patch = await t.call('PATCH', `/projects/${projectA}`, { key: readKey, body: { name: 'x' } });
      expect(patch.status).toBe(403);
    });

    it('refuses a write key on admin routes', async () => {
      for (const [method, path, body] of [
        ['POST', '/me/keys', { name: 'k', scopes: ['read'] }],
        ['GET', '/me/keys', undefined],
        ['PATCH', '/me', { max_rpm: 10 }],
        ['DELETE', `/projects/${projectA}`, undefined],
      ] as const) {
        const res = await t.call(method, path, { key: writeKey, body });
        expect([method, path, res.status, res.body.code]).toEqual([method, path, 403, 'forbidden']);
      }
      // ...while its own level works.
      expect(
        (await t.call('PATCH', `/projects/${projectA}`, { key: writeKey, body: { name: 'renamed' } })).status,
      ).toBe(200);
    });

    it('changes nothing when it refuses', async () => {
      await t.call('DELETE', `/projects/${projectB}`, { key: writeKey });
      expect((await t.call('GET', `/projects/${projectB}`, { key: readKey })).status).toBe(200);
    });
  });

  describe('404 across workspaces and outside an allow-list', () => {
    it("answers 404 for another workspace's project, for every verb", async () => {
      const other = (await t.createWorkspace('beta')).apiKey;
      for (const [method, body] of [['GET'], ['PATCH', { name: 'mine now' }], ['DELETE']] as const) {
        const res = await t.call(method, `/projects/${projectA}`, { key: other, body });
        expect([method, res.status, res.body.code]).toEqual([method, 404, 'not_found']);
      }
      const list = await t.call('GET', '/projects', { key: other });
      expect(list.body.data).toEqual([]);
      expect((await t.call('GET', `/projects/${projectA}`, { key: admin })).body.name).toBe('renamed');
    });

    it("answers 404 for another workspace's key", async () => {
      const other = (await t.createWorkspace('gamma')).apiKey;
      const mine = await t.call('POST', '/me/keys', { key: admin, body: { name: 'k', scopes: ['read'] } });
      const res = await t.call('DELETE', `/me/keys/${mine.body.id}`, { key: other });
      expect(res.status).toBe(404);
      expect((await t.call('GET', '/me', { key: mine.body.key })).status).toBe(200);
    });

    it('hides projects outside the key allow-list as 404, never 403', async () => {
      const limited = await t.createKey(admin, { scopes: ['admin'], projects: [projectA] });
      expect((await t.call('GET', `/projects/${projectA}`, { key: limited })).status).toBe(200);
      for (const [method, body] of [['GET'], ['PATCH', { name: 'no' }], ['DELETE']] as const) {
        const res = await t.call(method, `/projects/${projectB}`, { key: limited, body });
        expect([method, res.status, res.body.code]).toEqual([method, 404, 'not_found']);
      }
      const list = await t.call('GET', '/projects', { key: limited });
      expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([projectA]);
    });

    it('refuses an allow-list naming a project of another workspace', async () => {
      const other = (await t.createWorkspace('delta')).apiKey;
      const res = await t.call('POST', '/me/keys', {
        key: other,
        body: { name: 'k', scopes: ['read'], projects: [projectA] },
      });
      expect(res.status).toBe(422);
      expect(res.body.error).toContain('body.projects.0');
    });

    it('answers 404 when x-service-tenant names a workspace the key cannot reach', async () => {
      const res = await t.call('GET', '/me', { key: admin, headers: { 'x-service-tenant': 'ws_someoneelse' } });
      expect(res.status).toBe(404);
    });
  });
});
