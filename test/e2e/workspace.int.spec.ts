import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('workspace, keys and meta', () => {
  let t: TestFleet;
  let admin: string;

  beforeAll(async () => {
    t = await startTestFleet();
    admin = (await t.createWorkspace('home')).apiKey;
  });
  afterAll(() => t.stop());

  it('GET /me answers the workspace with credits from the billing service', async () => {
    const res = await t.call('GET', '/me', { key: admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      workspace: { name: 'home', plan: 'free', settings: { max_rpm: null } },
      credits: { granted: 1000, used: 0, remaining: 1000 },
      key: { scope: 'admin', scopes: ['admin'] },
      can: { read: true, write: true, admin: true },
    });
    // The credits are the billing service's ledger, not a constant of the gateway.
    await t.db.prisma.ledgerEntry.create({
      data: {
        id: 'led_test_charge',
        workspaceId: res.body.workspace.id,
        kind: 'charge',
        reason: 'page',
        credits: -7,
        reference: 'test:1',
      },
    });
    expect((await t.call('GET', '/me', { key: admin })).body.credits).toEqual({
      granted: 1000,
      used: 7,
      remaining: 993,
    });
  });

  it('grants the welcome credits once, through the work stream', async () => {
    const ws = await t.createWorkspace('welcome');
    const until = Date.now() + 10_000;
    while (
      (await t.db.prisma.ledgerEntry.count({ where: { workspaceId: ws.workspaceId } })) === 0 &&
      Date.now() < until
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const entries = await t.db.prisma.ledgerEntry.findMany({ where: { workspaceId: ws.workspaceId } });
    expect(entries).toEqual([expect.objectContaining({ kind: 'grant', reason: 'welcome', credits: 1000 })]);
    await t.call('GET', '/me', { key: ws.apiKey });
    expect(await t.db.prisma.ledgerEntry.count({ where: { workspaceId: ws.workspaceId } })).toBe(1);
  });

  it('creates a key whose secret is shown once, lists keys without secrets, and revokes', async () => {
    const created = await t.call('POST', '/me/keys', {
      key: admin,
      body: { name: 'ci', scopes: ['read', 'write'], expires_in_days: 30, rpm: 100 },
    });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^service_[0-9A-Za-z]{40}$/);
    expect(created.body).toMatchObject({ name: 'ci', scopes: ['read', 'write'], rpm: 100, projects: [] });
    expect(new Date(created.body.expiresAt).getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    const me = await t.call('GET', '/me', { key: created.body.key });
    expect(me.body.key.scope).toBe('write');
    expect(me.body.can).toEqual({ read: true, write: true, admin: false });

    const list = await t.call('GET', '/me/keys', { key: admin });
    expect(list.status).toBe(200);
    expect(list.body.data.map((k: { name: string }) => k.name)).toEqual(['ci', 'admin']);
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);
    expect(list.body.data[0].prefix).toBe(created.body.key.slice(0, 14));
    // Only hashes are stored.
    const stored = await t.db.prisma.apiKey.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(JSON.stringify(stored)).not.toContain(created.body.key);

    expect((await t.call('DELETE', `/me/keys/${created.body.id}`, { key: admin })).status).toBe(204);
    expect((await t.call('DELETE', `/me/keys/${created.body.id}`, { key: admin })).status).toBe(404);
    expect((await t.call('GET', '/me/keys', { key: admin })).body.data).toHaveLength(1);
  });

  it('validates a key request field by field', async () => {
    const res = await t.call('POST', '/me/keys', { key: admin, body: { name: 'x', scopes: ['owner'] } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^body\.scopes\.0/);
    const extra = await t.call('POST', '/me/keys', {
      key: admin,
      body: { name: 'x', scopes: ['read'], colour: 'blue' },
    });
    expect(extra.body.error).toContain('"colour"');
  });

  it('PATCH /me validates max_rpm', async () => {
    expect((await t.call('PATCH', '/me', { key: admin, body: { max_rpm: 0 } })).status).toBe(422);
    expect((await t.call('PATCH', '/me', { key: admin, body: {} })).status).toBe(422);
  });

  it('GET /meta lists verdicts, engine costs, the ladder and config defaults', async () => {
    const res = await t.call('GET', '/meta', { key: admin });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.verdicts)).toEqual(['ok', 'thin', 'blocked', 'skipped', 'robots', 'cached']);
    expect(res.body.engines.map((e: { rung: string; credits: number }) => [e.rung, e.credits])).toEqual([
      ['http', 1],
      ['browser', 5],
      ['browser+exit', 10],
    ]);
    expect(res.body.ladder.order).toEqual(['http', 'browser', 'browser+exit']);
    expect(res.body.errorCodes).toHaveProperty('TIER_LIMIT');
    expect(res.body.config.defaults.fetch.render_js).toBe('auto');
    expect(res.body.config.keys.fetch.render_js).toMatchObject({ default: 'auto', type: { enum: ['auto', 'always'] } });
    expect(res.body.apiErrors.rate_limited).toEqual({ status: 429, retryable: true });
  });

  it('serves the OpenAPI 3.1 document and a readable page, without a key', async () => {
    const doc = (await t.call('GET', '/docs/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0');
    const operations = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${p}`),
    );
    const mounted = t.fleet.gateway.routes.map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(operations.sort()).toEqual(mounted.sort());
    const create = doc.paths['/projects'].post;
    expect(create.requestBody.content['application/json'].schema.required).toEqual(['seed']);
    expect(create.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    const page = await t.call('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.body).toContain('/v1/projects/{id}');
  });

  it('the admin CLI creates a workspace and prints its key as JSON', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        resolve(root, 'deploy/local/src/cli.ts'),
        'workspace',
        'create',
        '--name',
        'from-cli',
        '--json',
      ],
      {
        cwd: root,
        env: { ...process.env, ...t.env, LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    const code = await new Promise((r) => child.on('exit', r));
    expect([code, err]).toEqual([0, '']);
    const printed = JSON.parse(out) as { workspaceId: string; apiKey: string };
    expect(Object.keys(printed)).toEqual(['workspaceId', 'apiKey']);
    const me = await t.call('GET', '/me', { key: printed.apiKey });
    expect(me.body.workspace).toMatchObject({ id: printed.workspaceId, name: 'from-cli' });
  });
});
