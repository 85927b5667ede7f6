import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { openApiChecker } from '../support/openapi.js';

interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

/** A webhook receiver on loopback, reached as http://hooks.test:<port> through FETCH_HOST_MAP. */
const startReceiver = async () => {
  const hits: Hit[] = [];
  let status = 200;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      hits.push({ path: req.url ?? '/', headers: req.headers, body, json: JSON.parse(body) });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  return {
    hits,
    port,
    answer: (s: number) => void (status = s),
    url: (path: string) => `http://hooks.test:${port}${path}`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
};

/** Standard Webhooks: HMAC-SHA256 of `id.timestamp.body` under the base64 key after whsec_. */
const standardSignature = (h: IncomingHttpHeaders, body: string, secret: string) =>
  `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${h['webhook-id']}.${h['webhook-timestamp']}.${body}`)
    .digest('base64')}`;
const serviceSignature = (body: string, secret: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

const until = async <T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('delivery through the fleet', () => {
  let web: TestWeb;
  let hooks: Awaited<ReturnType<typeof startReceiver>>;
  let t: TestFleet;
  let key: string;

  beforeAll(async () => {
    web = await startTestWeb();
    hooks = await startReceiver();
    t = await startTestFleet({
      FETCH_HOST_MAP: `hooks.test=127.0.0.1:${hooks.port},${web.hostMap}`,
      CRAWL_TICK_MS: '50',
      DELIVERY_POLL_MS: '50',
      DELIVERY_RETRY_SCALE: '0.0001',
    });
    key = (await t.createWorkspace('delivery')).apiKey;
  });
  afterAll(async () => {
    await t.stop();
    await hooks.close();
    await web.close();
  });

  it('sends a batch’s batch.finished to its webhook_url, signed with the secret shown once', async () => {
    const res = await t.call('POST', '/scrape', {
      key,
      body: { urls: [web.url('pages.test', '/article')], webhook_url: hooks.url('/batch') },
    });
    expect(res.status).toBe(202);
    const secret = res.body.webhookSecret as string;
    // Kept sealed (AES-256-GCM under SECRETS_KEY), never as the text the caller was given.
    const stored = (await t.db.prisma.job.findUniqueOrThrow({ where: { id: res.body.id } })).secret!;
    expect(stored).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(stored).not.toContain(secret.slice(6, 20));
    const hits = await until(
      async () => hooks.hits.filter((h) => h.path === '/batch'),
      (h) => h.length >= 2,
    );
    const finished = hits.find((h) => h.json.event === 'batch.finished')!;
    expect(finished.json).toMatchObject({ job: { id: res.body.id, kind: 'scrape' }, data: { status: 'done' } });
    expect(finished.headers['x-service-signature']).toBe(serviceSignature(finished.body, secret));
    expect(finished.headers['webhook-signature']).toBe(standardSignature(finished.headers, finished.body, secret));
    expect(hits.map((h) => h.json.event).sort()).toEqual(['batch.finished', 'scrape.completed']);
  });

  it('sends a crawl’s chosen events with its metadata', async () => {
    const res = await t.call('POST', '/crawl', {
      key,
      body: {
        url: web.url('pages.test', '/article'),
        limit: 2,
        webhook: { url: hooks.url('/crawl'), events: ['crawl.started', 'crawl.completed'], metadata: { team: 'docs' } },
      },
    });
    expect(res.status).toBe(202);
    const hits = await until(
      async () => hooks.hits.filter((h) => h.path === '/crawl'),
      (h) => h.some((x) => x.json.event === 'crawl.completed'),
      30_000,
    );
    expect(hits.map((h) => h.json.event)).toEqual(['crawl.started', 'crawl.completed']);
    const stored = (await t.db.prisma.job.findUniqueOrThrow({ where: { id: res.body.id } })).secret!;
    expect(stored.startsWith('v1.') && !stored.includes(res.body.webhookSecret.slice(6, 20))).toBe(true);
    for (const h of hits) {
      expect(h.json).toMatchObject({ job: { id: res.body.id, kind: 'crawl' }, metadata: { team: 'docs' } });
      expect(h.headers['webhook-signature']).toBe(standardSignature(h.headers, h.body, res.body.webhookSecret));
    }
  });
});

describe('webhook routes', () => {
  let hooks: Awaited<ReturnType<typeof startReceiver>>;
  let t: TestFleet;
  let admin: string;
  let reader: string;
  let writer: string;
  let stranger: string;
  let check: ReturnType<typeof openApiChecker>;

  beforeAll(async () => {
    hooks = await startReceiver();
    t = await startTestFleet({
      FETCH_HOST_MAP: `hooks.test=127.0.0.1:${hooks.port},hooks.slack.com=127.0.0.1:${hooks.port}`,
      DELIVERY_POLL_MS: '50',
      DELIVERY_RETRY_SCALE: '0.0001',
    });
    admin = (await t.createWorkspace('routes')).apiKey;
    reader = await t.createKey(admin, { scopes: ['read'] });
    writer = await t.createKey(admin, { scopes: ['write'] });
    stranger = (await t.createWorkspace('stranger')).apiKey;
    check = openApiChecker((await t.call('GET', '/docs/openapi.json')).body);
  });
  afterAll(async () => {
    await t.stop();
    await hooks.close();
  });

  /** The answer validates against the OpenAPI document's schema for its route and status. */
  const conforms = (path: string, method: string, res: { status: number; body: unknown }) =>
    check.conforms(path, method, res);

  const project = async (config: Record<string, unknown>) => {
    const res = await t.call('POST', '/projects', { key: admin, body: { seed: 'https://watched.example/', config } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const hitsAt = (path: string) => hooks.hits.filter((h) => h.path === path);

  it('shows the secret to admins only; a reader’s look mints none', async () => {
    const id = await project({ webhook_url: hooks.url('/p1') });
    const asReader = await t.call('GET', `/projects/${id}/webhooks`, { key: reader });
    conforms('/projects/{id}/webhooks', 'get', asReader);
    expect(asReader.body).toMatchObject({ projectId: id, url: hooks.url('/p1'), secretHidden: true, chat: null });
    expect(asReader.body.secret).toBeUndefined();
    expect(await t.db.prisma.webhook.count({ where: { projectId: id } })).toBe(0);
    const asAdmin = await t.call('GET', `/projects/${id}/webhooks`, { key: admin });
    expect(asAdmin.body.secret).toMatch(/^whsec_/);
    expect(asAdmin.body.events).toEqual(['run.finished', 'page.changed']);
    // Stored sealed, not as it is.
    const row = await t.db.prisma.webhook.findUnique({ where: { projectId: id } });
    expect(row!.secret).not.toContain(asAdmin.body.secret.slice(6));
    expect((await t.call('GET', `/projects/${id}/webhooks`, { key: admin })).body.secret).toBe(asAdmin.body.secret);
    expect((await t.call('GET', `/projects/${id}/webhooks`, { key: stranger })).status).toBe(404);
  });

  it('sends a signed test run.finished, lists it attempt by attempt, and redelivers it', async () => {
    const id = await project({ webhook_url: hooks.url('/p2') });
    const { secret } = (await t.call('GET', `/projects/${id}/webhooks`, { key: admin })).body;
    const sent = await t.call('POST', `/projects/${id}/webhooks/test`, { key: writer });
    conforms('/projects/{id}/webhooks/test', 'post', sent);
    expect(sent.status).toBe(202);
    expect(sent.body.deliveries).toHaveLength(1);
    const deliveryId = sent.body.deliveries[0].id;
    const [hit] = await until(
      async () => hitsAt('/p2'),
      (h) => h.length >= 1,
    );
    expect(hit!.json).toMatchObject({
      event: 'run.finished',
      test: true,
      project: { id, host: 'watched.example' },
      data: { test: true, status: 'done' },
    });
    expect(hit!.headers['webhook-signature']).toBe(standardSignature(hit!.headers, hit!.body, secret));
    expect(hit!.headers['x-service-delivery']).toBe(deliveryId);

    const list = await until(
      () => t.call('GET', `/webhooks/deliveries?projectId=${id}`, { key: reader }),
      (r) => r.body.data?.[0]?.status === 'delivered',
    );
    conforms('/webhooks/deliveries', 'get', list);
    expect(list.body.data[0]).toMatchObject({
      id: deliveryId,
      event: 'run.finished',
      channel: 'webhook',
      test: true,
      attempts: 1,
      lastStatus: 200,
      nextAt: null,
      log: [{ attempt: 1, status: 200, outcome: 'delivered', manual: false }],
    });

    hooks.answer(500);
    const again = await t.call('POST', `/webhooks/deliveries/${deliveryId}/redeliver`, { key: writer });
    conforms('/webhooks/deliveries/{id}/redeliver', 'post', again);
    expect(again.body).toMatchObject({ id: deliveryId, status: 'pending', attempts: 1 });
    const after = await until(
      () => t.call('GET', `/webhooks/deliveries?projectId=${id}`, { key: reader }),
      (r) => r.body.data?.[0]?.attempts === 2,
    );
    hooks.answer(200);
    // One manual send; its 500 leaves the delivery paused, not retried.
    expect(after.body.data[0]).toMatchObject({ status: 'paused', lastStatus: 500 });
    expect(after.body.data[0].log.map((a: any) => [a.attempt, a.outcome, a.manual])).toEqual([
      [1, 'delivered', false],
      [2, 'paused', true],
    ]);
    expect(hitsAt('/p2').map((h) => h.headers['webhook-id'])).toEqual([deliveryId, deliveryId]);
    expect((await t.call('POST', `/webhooks/deliveries/${deliveryId}/redeliver`, { key: stranger })).status).toBe(404);
  });

  it('rotates the secret for admins only; the next message signs with the new one', async () => {
    const id = await project({ webhook_url: hooks.url('/p3') });
    const before = (await t.call('GET', `/projects/${id}/webhooks`, { key: admin })).body.secret;
    const refused = await t.call('POST', `/projects/${id}/webhooks/secret`, { key: writer });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'forbidden', request_id: expect.any(String) });
    expect((await t.call('GET', `/projects/${id}/webhooks`, { key: admin })).body.secret).toBe(before);
    const rotated = await t.call('POST', `/projects/${id}/webhooks/secret`, { key: admin });
    conforms('/projects/{id}/webhooks/secret', 'post', rotated);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(before);
    await t.call('POST', `/projects/${id}/webhooks/test`, { key: writer });
    const [hit] = await until(
      async () => hitsAt('/p3'),
      (h) => h.length >= 1,
    );
    expect(hit!.headers['webhook-signature']).toBe(standardSignature(hit!.headers, hit!.body, rotated.body.secret));
    expect(hit!.headers['webhook-signature']).not.toBe(standardSignature(hit!.headers, hit!.body, before));
  });

  it('lists every project’s channel with health, within the key’s allow-list', async () => {
    const id = await project({ webhook_url: hooks.url('/p4'), webhook_events: ['run.finished'] });
    await t.call('POST', `/projects/${id}/webhooks/test`, { key: admin });
    await until(
      () => t.call('GET', `/webhooks/deliveries?projectId=${id}`, { key: reader }),
      (r) => r.body.data?.[0]?.status === 'delivered',
    );
    const all = await t.call('GET', '/webhooks', { key: reader });
    conforms('/webhooks', 'get', all);
    expect(all.body.data.find((c: any) => c.projectId === id)).toMatchObject({
      kind: 'webhook',
      service: null,
      url: hooks.url('/p4'),
      events: ['run.finished'],
      health: { status: 'healthy', lastStatus: 200, recent: { delivered: 1, pending: 0, failed: 0, paused: 0 } },
    });
    const paged = await t.call('GET', '/webhooks?limit=1', { key: reader });
    expect(paged.body.data).toHaveLength(1);
    expect(paged.body.next).toContain('cursor=');
    const narrow = await t.createKey(admin, { scopes: ['read'], projects: [id] });
    const mine = await t.call('GET', '/webhooks', { key: narrow });
    expect(new Set(mine.body.data.map((c: any) => c.projectId))).toEqual(new Set([id]));
    expect((await t.call('GET', '/webhooks', { key: stranger })).body.data).toEqual([]);
  });

  it('refuses bad input in the error envelope, and another workspace’s things are 404', async () => {
    const id = await project({});
    const bare = await t.call('POST', `/projects/${id}/webhooks/test`, { key: admin });
    expect(bare.status).toBe(409);
    expect(bare.body).toMatchObject({ code: 'conflict', request_id: expect.any(String), error: expect.any(String) });
    expect(await t.db.prisma.delivery.count({ where: { projectId: id } })).toBe(0);
    for (const q of ['limit=0', 'limit=201', 'limit=x', 'cursor=nope']) {
      const res = await t.call('GET', `/webhooks/deliveries?${q}`, { key: admin });
      expect([q, res.status, res.body.code]).toEqual([q, 400, 'validation']);
    }
    expect((await t.call('GET', `/webhooks/deliveries?projectId=${id}`, { key: stranger })).status).toBe(404);
    expect((await t.call('GET', '/webhooks/deliveries?runId=run_nothere', { key: admin })).status).toBe(404);
    expect((await t.call('POST', `/projects/${id}/webhooks/test`, { key: stranger })).status).toBe(404);
    expect((await t.call('POST', `/projects/${id}/webhooks/secret`, { key: stranger })).status).toBe(404);
    expect((await t.call('POST', '/webhooks/deliveries/dlv_nothere/redeliver', { key: admin })).status).toBe(404);
    const other = await project({});
    const limited = await t.createKey(admin, { scopes: ['admin'], projects: [other] });
    expect((await t.call('GET', `/projects/${id}/webhooks`, { key: limited })).status).toBe(404);
  });

  it('gives a key no inbox: notifications belong to signed-in members', async () => {
    for (const [method, path] of [
      ['GET', '/me/notifications'],
      ['POST', '/me/notifications/ntf_0000000000aaaaaaaaaaaaaaaa/seen'],
    ] as const) {
      const res = await t.call(method, path, { key: admin });
      conforms(path.startsWith('/me/notifications/') ? '/me/notifications/{id}/seen' : path, method.toLowerCase(), res);
      expect([path, res.status, res.body.code]).toEqual([path, 403, 'forbidden']);
      expect(res.body.error).toContain('no inbox');
    }
  });

  it('masks chat_url everywhere; the masked value sent back keeps it, an empty string removes it', async () => {
    const chatUrl = 'http://hooks.slack.com/services/T0/B0/secretpart9876';
    const masked = 'http://hooks.slack.com/****9876';
    const id = await project({ chat_url: chatUrl });
    expect((await t.call('GET', `/projects/${id}`, { key: reader })).body.config.output.chat_url).toBe(masked);
    const webhooks = await t.call('GET', `/projects/${id}/webhooks`, { key: admin });
    expect(webhooks.body.chat).toMatchObject({ url: masked, service: 'slack', health: { status: 'idle' } });
    const channels = (await t.call('GET', '/webhooks', { key: reader })).body.data;
    expect(channels.find((c: any) => c.projectId === id)).toMatchObject({
      kind: 'chat',
      service: 'slack',
      url: masked,
    });
    expect(JSON.stringify(channels)).not.toContain('secretpart');

    // The test message goes to the chat channel too, in Slack's shape, listed masked.
    const sent = await t.call('POST', `/projects/${id}/webhooks/test`, { key: writer });
    expect(sent.body.deliveries).toMatchObject([{ channel: 'chat', service: 'slack', url: masked }]);
    const [post] = await until(
      async () => hitsAt('/services/T0/B0/secretpart9876'),
      (h) => h.length >= 1,
    );
    expect(post!.json.text).toContain('a test message from Tidemark');
    expect(post!.json.blocks[0]).toMatchObject({ type: 'header' });

    const stored = async () =>
      ((await t.db.prisma.project.findUnique({ where: { id } }))!.config as any).output.chat_url as string | null;
    await t.call('PATCH', `/projects/${id}`, { key: writer, body: { config: { chat_url: masked, delay: 2 } } });
    expect(await stored()).toBe(chatUrl);
    await t.call('PATCH', `/projects/${id}`, { key: writer, body: { config: { chat_url: '' } } });
    expect(await stored()).toBeNull();
    expect((await t.call('GET', `/projects/${id}/webhooks`, { key: admin })).body.chat).toBeNull();
  });
});

describe('connection routes', () => {
  let t: TestFleet;
  let admin: string;
  let writer: string;
  let stranger: string;
  let model: Server;
  let modelUrl: string;

  beforeAll(async () => {
    // Just enough of the chat-completions protocol for POST /connections/{id}/test.
    model = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.headers.authorization !== 'Bearer sk-e2e') return void res.writeHead(401).end('{}');
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            model: 'tiny',
            choices: [{ message: { role: 'assistant', content: 'ok' } }],
            usage: { prompt_tokens: 7, completion_tokens: 1 },
          }),
        );
      });
    });
    await new Promise<void>((ok) => model.listen(0, '127.0.0.1', ok));
    modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
    t = await startTestFleet();
    admin = (await t.createWorkspace('connections')).apiKey;
    writer = await t.createKey(admin, { scopes: ['write'] });
    stranger = (await t.createWorkspace('stranger')).apiKey;
  });
  afterAll(async () => {
    await t.stop();
    await new Promise<void>((ok) => model.close(() => ok()));
  });

  it('lists providers, and keeps connection secrets to itself', async () => {
    const providers = await t.call('GET', '/connections/providers', { key: writer });
    expect(providers.status).toBe(200);
    expect(providers.body.data.map((p: any) => p.provider)).toEqual(['openai_compatible', 'openai']);
    expect(providers.body.data[0]).toMatchObject({ kind: 'llm', verified: true, secrets: [{ name: 'api_key' }] });

    const made = await t.call('POST', '/connections', {
      key: admin,
      body: {
        provider: 'openai_compatible',
        name: 'local',
        config: { base_url: modelUrl, model: 'tiny' },
        secrets: { api_key: 'sk-e2e' },
      },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ provider: 'openai_compatible', name: 'local', secrets: ['api_key'] });
    const id = made.body.id;
    for (const res of [
      made,
      await t.call('GET', `/connections/${id}`, { key: admin }),
      await t.call('GET', '/connections', { key: admin }),
      await t.call('PATCH', `/connections/${id}`, { key: admin, body: { name: 'local model' } }),
    ]) {
      expect(res.status).toBe(200 + (res === made ? 1 : 0));
      expect(JSON.stringify(res.body)).not.toContain('sk-e2e');
    }
    const tested = await t.call('POST', `/connections/${id}/test`, { key: admin });
    expect(tested.body).toMatchObject({ ok: true, model: 'tiny', error: null });
    expect((await t.call('GET', `/connections/${id}`, { key: admin })).body.lastTest).toMatchObject({ ok: true });

    expect((await t.call('GET', `/connections/${id}`, { key: writer })).status).toBe(403);
    expect((await t.call('GET', `/connections/${id}`, { key: stranger })).status).toBe(404);
    expect((await t.call('DELETE', `/connections/${id}`, { key: stranger })).status).toBe(404);
    const bad = await t.call('POST', '/connections', {
      key: admin,
      body: { provider: 'openai_compatible', name: 'x', config: { model: 'tiny' } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ code: 'validation', error: expect.stringContaining('body.config.base_url') });
    expect(
      (await t.call('POST', '/connections', { key: admin, body: { provider: 'x', name: 'x', extra: 1 } })).status,
    ).toBe(422);
    expect((await t.call('GET', '/connections', { key: admin })).body.data).toHaveLength(1);
    expect((await t.call('DELETE', `/connections/${id}`, { key: admin })).status).toBe(204);
    expect((await t.call('GET', `/connections/${id}`, { key: admin })).status).toBe(404);
  });
});
