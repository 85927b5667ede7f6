import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { deliveryV1, diffV1 } from '@tidemark/contracts';
import type { DeliveryApp } from '../src/app.js';
import { DeliveryEnv } from './support/delivery-env.js';
import { ModelServer } from './support/model-server.js';
import { Receiver } from './support/receiver.js';

const KEY = 'sk-local-test-key-123456';
const DIGEST = {
  summary: 'Pricing changed: the team plan costs more and a refunds answer was added.',
  points: ['Team plan 39 → 49 a month', 'Refunds FAQ added', 'Footer year changed', 'p4', 'p5', 'p6', 'p7'],
  significant: true,
};

describe('connections and the change digest', () => {
  let env: DeliveryEnv;
  let app: DeliveryApp;
  let model: ModelServer;
  let ws: string;

  beforeAll(async () => {
    // The model wraps its JSON in a code fence now and then, as real ones do.
    model = await ModelServer.start(KEY, () => '```json\n' + JSON.stringify(DIGEST) + '\n```');
    env = await DeliveryEnv.create();
    app = await env.startApp();
    ws = await env.workspace();
  });
  afterAll(async () => {
    await env.close();
    await model.close();
  });

  const create = (config: Record<string, unknown> = {}, secrets: Record<string, string> = { api_key: KEY }) =>
    app.connections.create({
      workspaceId: ws,
      provider: 'openai_compatible',
      name: 'local model',
      config: { base_url: model.baseUrl, model: 'tiny-1', ...config },
      secrets,
    });

  it('keeps secrets encrypted at rest and never shows them', async () => {
    const c = await create();
    expect(c).toMatchObject({
      id: expect.stringMatching(/^con_/),
      provider: 'openai_compatible',
      config: { base_url: model.baseUrl, model: 'tiny-1' },
      secrets: ['api_key'],
      lastTest: null,
    });
    expect(JSON.stringify(c)).not.toContain(KEY);
    const row = await env.prisma.connection.findUnique({ where: { id: c.id } });
    expect(row!.secrets).not.toContain(KEY);
    expect(row!.secrets).toMatch(/^v1\./);
    const renamed = await app.connections.update({
      workspaceId: ws,
      connectionId: c.id,
      name: 'renamed',
      config: { model: 'tiny-2' },
    });
    expect(renamed).toMatchObject({
      name: 'renamed',
      config: { model: 'tiny-2', base_url: model.baseUrl },
      secrets: ['api_key'],
    });
    await expect(app.connections.get('ws_other', c.id)).rejects.toMatchObject({ code: 'not_found' });
    await app.connections.delete(ws, c.id);
    await expect(app.connections.get(ws, c.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses an unknown provider, field or secret, and a missing one, by name', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ provider: 'nope' }, 'body.provider'],
      [{ config: { base_url: model.baseUrl } }, 'body.config.model'],
      [{ config: { base_url: 'ftp://x', model: 'm' } }, 'body.config.base_url'],
      [{ config: { base_url: model.baseUrl, model: 'm', temperature: 1 } }, 'body.config.temperature'],
      [{ config: { base_url: model.baseUrl, model: 'm' }, secrets: { token: 'x' } }, 'body.secrets.token'],
      [{ provider: 'openai', config: {}, secrets: {} }, 'body.secrets.api_key'],
    ];
    const before = await env.prisma.connection.count();
    for (const [input, field] of cases)
      await expect(
        app.connections.create({
          workspaceId: ws,
          provider: 'openai_compatible',
          name: 'bad',
          config: {},
          secrets: {},
          ...input,
        } as never),
      ).rejects.toMatchObject({ code: 'validation', message: expect.stringContaining(field) });
    expect(await env.prisma.connection.count()).toBe(before);
  });

  it('tests a connection with one small call and records its tokens', async () => {
    const good = await create();
    const result = await app.connections.test(ws, good.id);
    expect(result).toMatchObject({ ok: true, error: null, model: 'tiny-1' });
    expect(model.calls.at(-1)).toMatchObject({
      authorization: `Bearer ${KEY}`,
      body: { model: 'tiny-1', max_tokens: 5 },
    });
    expect((await app.connections.get(ws, good.id)).lastTest).toMatchObject({ ok: true, error: null });
    const usage = await env.prisma.tokenUsage.findMany({ where: { connectionId: good.id } });
    expect(usage).toMatchObject([{ workspaceId: ws, purpose: 'test', model: 'tiny-1' }]);
    expect(usage[0]!.promptTokens).toBeGreaterThan(0);

    const wrongKey = await create({}, { api_key: 'sk-wrong' });
    const refused = await app.connections.test(ws, wrongKey.id);
    // The status and a fixed reason: not a word of what the endpoint answered.
    expect(refused).toMatchObject({ ok: false, status: 401, error: 'the model endpoint answered 401', model: null });
    expect(JSON.stringify(refused)).not.toContain('Incorrect API key');
    // A secret set to empty is removed; a required one cannot be.
    const keyless = await app.connections.update({
      workspaceId: ws,
      connectionId: wrongKey.id,
      secrets: { api_key: '' },
    });
    expect(keyless.secrets).toEqual([]);
  });

  it('never echoes what the endpoint answered: a 403 page, a JSON body, a model name', async () => {
    const SECRET = 'internal-admin-token-9f2c';
    const target = createServer((req, res) => {
      if (req.url === '/forbidden/chat/completions')
        return void res.writeHead(403, { 'content-type': 'text/html' }).end(`<h1>Forbidden</h1><p>${SECRET}</p>`);
      if (req.url === '/html/chat/completions')
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>${SECRET}</p>`);
      if (req.url === '/nomessage/chat/completions')
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ secret: SECRET }));
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ model: SECRET, choices: [{ message: { content: 'ok' } }], usage: {} }));
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    try {
      const outcomes = [];
      for (const path of ['/forbidden', '/html', '/nomessage', '/renamed']) {
        const c = await create({ base_url: `${base}${path}` });
        const result = await app.connections.test(ws, c.id);
        outcomes.push([path, result.ok, result.status, result.error, result.model]);
        expect(JSON.stringify(result)).not.toContain(SECRET);
        expect(JSON.stringify(await app.connections.get(ws, c.id))).not.toContain(SECRET);
      }
      expect(outcomes).toEqual([
        ['/forbidden', false, 403, 'the model endpoint answered 403', null],
        ['/html', false, 200, 'the model endpoint did not answer JSON', null],
        ['/nomessage', false, 200, 'the model endpoint answered no message', null],
        ['/renamed', true, 200, null, 'tiny-1'],
      ]);
    } finally {
      await new Promise<void>((r) => target.close(() => r()));
    }
  });

  it('refuses a base_url the fetch guard refuses when saved (422 naming the field), and when called', async () => {
    const before = await env.prisma.connection.count();
    for (const base_url of [
      'http://[::ffff:10.0.0.1]/v1',
      'http://[::ffff:a9fe:a9fe]/v1',
      'http://[64:ff9b::a9fe:a9fe]/v1',
      'http://169.254.169.254/v1',
      'http://0xa9fea9fe/v1',
      'http://[fd00::1]/v1',
    ]) {
      const err = await create({ base_url }).catch((e: unknown) => e);
      expect([base_url, err]).toMatchObject([
        base_url,
        { code: 'validation', message: expect.stringMatching(/^body\.config\.base_url: refused by the fetch guard: /) },
      ]);
    }
    expect(await env.prisma.connection.count()).toBe(before);
    // A name passes when saved and is judged when called: here it resolves (through the host
    // map) to a loopback address that is not exempt, and the call is refused with a fixed reason.
    const port = new URL(model.baseUrl).port;
    const guarded = await env.startApp({ FETCH_ALLOW_NETWORKS: '', FETCH_HOST_MAP: `llm.test=127.0.0.1:${port}` });
    const c = await guarded.connections.create({
      workspaceId: ws,
      provider: 'openai_compatible',
      name: 'named',
      config: { base_url: 'http://llm.test/v1', model: 'tiny-1' },
      secrets: { api_key: KEY },
    });
    const calls = model.calls.length;
    expect(await guarded.connections.test(ws, c.id)).toMatchObject({
      ok: false,
      status: null,
      error: 'refused by the fetch guard: base_url is a private or reserved address',
    });
    expect(model.calls.length).toBe(calls);
    await env.stopApp(guarded);
  });

  it('writes a digest over gRPC (ChangeDigest): a paragraph, five points at most, the flag', async () => {
    const c = await create();
    const K = deliveryV1.ChangeSummary.fromPartial;
    const { CHANGE_KIND_ADDED, CHANGE_KIND_MODIFIED, CHANGE_KIND_SAME } = diffV1.ChangeKind;
    const answer = await env.rpc().call('changeDigest', {
      workspaceId: ws,
      connectionId: c.id,
      focus: 'pricing and plans',
      projectId: 'prj_x',
      runId: 'run_x',
      counts: { added: 1, modified: 1 },
      changes: [
        K({
          url: 'https://s.test/pricing',
          kind: CHANGE_KIND_MODIFIED,
          wordsAdded: 12,
          wordsRemoved: 4,
          excerpt: 'Team 39 → 49',
        }),
        K({ url: 'https://s.test/faq/refunds', kind: CHANGE_KIND_ADDED, wordsAdded: 80 }),
      ],
    });
    expect(answer.digest).toEqual({ summary: DIGEST.summary, points: DIGEST.points.slice(0, 5), significant: true });
    expect(answer.usage!.completionTokens).toBeGreaterThan(0);
    const call = model.calls.at(-1)!;
    expect(call.body.response_format).toEqual({ type: 'json_object' });
    const prompt = call.body.messages.map((m) => m.content).join('\n');
    expect(prompt).toContain('pricing and plans');
    expect(prompt).toContain('modified https://s.test/pricing');
    expect(prompt).toContain('Team 39 → 49');
    expect(
      await env.prisma.tokenUsage.count({ where: { connectionId: c.id, purpose: 'digest', runId: 'run_x' } }),
    ).toBe(1);
    await expect(
      env
        .rpc()
        .call(
          'changeDigest',
          deliveryV1.ChangeDigestRequest.fromPartial({ workspaceId: 'ws_other', connectionId: c.id }),
        ),
    ).rejects.toMatchObject({ code: 'not_found' });
    // A change of a kind a digest does not read is refused by name.
    await expect(
      env.rpc().call(
        'changeDigest',
        deliveryV1.ChangeDigestRequest.fromPartial({
          workspaceId: ws,
          connectionId: c.id,
          changes: [K({ url: 'x', kind: CHANGE_KIND_SAME })],
        }),
      ),
    ).rejects.toMatchObject({ code: 'validation', message: 'changes[0].kind: added, removed or modified' });
  });

  it('puts the digest on run.finished when change_digest is configured, null otherwise', async () => {
    const hook = await Receiver.start();
    try {
      const c = await create();
      const withDigest = await env.project(ws, {
        webhook_url: hook.url('/digest'),
        change_digest: { connection_id: c.id, focus: 'prices' },
      });
      const without = await env.project(ws, { webhook_url: hook.url('/plain') });
      const run = (projectId: string, runId: string) =>
        env.publish(ws, 'run.finished', {
          projectId,
          runId,
          status: 'done',
          pages: 3,
          counts: { added: 0, removed: 0, modified: 1, same: 2 },
          stop: 'exhausted',
          changes: [
            { url: 'https://s.test/pricing', kind: 'modified', wordsAdded: 3, wordsRemoved: 1, section: '/pricing' },
          ],
        });
      await run(withDigest, 'run_d');
      await run(without, 'run_p');
      await hook.waitFor(2);
      const byPath = Object.fromEntries(hook.received.map((r) => [r.path, r.json]));
      expect(byPath['/digest'].data.digest).toEqual({
        summary: DIGEST.summary,
        points: DIGEST.points.slice(0, 5),
        significant: true,
      });
      expect(byPath['/plain'].data.digest).toBeNull();
      // The digest's input stays out of the message.
      expect(byPath['/digest'].data.changes).toBeUndefined();
      expect(model.calls.at(-1)!.body.messages.at(-1)!.content).toContain('Focus of the people watching: prices');
    } finally {
      await hook.close();
    }
  });
});
