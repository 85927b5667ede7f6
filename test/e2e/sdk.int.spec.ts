import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { describeApi } from '@tidemark/gateway';
import { Tidemark, TidemarkApiError, verifyWebhook, type CrawlEnvelope, type TidemarkError } from '@tidemark/sdk';
import { HANDBOOK, startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const sdkSource = join(root, 'libs/sdk/src');

/** A webhook receiver on loopback (reached as hooks.test through FETCH_HOST_MAP). */
const startReceiver = async () => {
  const hits: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { hits, port: (server.address() as AddressInfo).port, close: () => new Promise((ok) => server.close(ok)) };
};

describe('the TypeScript client (libs/sdk) against the fleet', () => {
  let web: TestWeb;
  let hooks: Awaited<ReturnType<typeof startReceiver>>;
  let t: TestFleet;
  let tm: Tidemark;
  let adminKey: string;
  const handbook = (path = '/') => web.url('handbook.test', path);

  beforeAll(async () => {
    web = await startTestWeb();
    hooks = await startReceiver();
    t = await startTestFleet({
      FETCH_HOST_MAP: `hooks.test=127.0.0.1:${hooks.port},${web.hostMap}`,
      CRAWL_TICK_MS: '50',
      DELIVERY_POLL_MS: '50',
    });
    const ws = await t.createWorkspace('sdk');
    adminKey = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
    tm = new Tidemark({ apiKey: adminKey, baseUrl: t.apiUrl });
  });
  afterAll(async () => {
    await t.stop();
    await hooks.close();
    await web.close();
  });

  describe('its types come from the route table', () => {
    const generated = () => JSON.parse(readFileSync(join(sdkSource, 'generated/openapi.json'), 'utf8')) as unknown;

    it('the generated OpenAPI document is the route table’s, and the one the gateway serves', async () => {
      expect(generated()).toEqual(JSON.parse(JSON.stringify(describeApi())));
      const served = await (await fetch(`${t.apiUrl}/docs/openapi.json`)).json();
      expect(served).toEqual(generated());
    });

    it('has a method for every route a key can call (the /auth session routes excepted)', () => {
      const doc = generated() as { paths: Record<string, Record<string, unknown>> };
      const routes = Object.entries(doc.paths)
        .filter(([path]) => !path.startsWith('/auth/'))
        .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`))
        .sort();
      const called = new Set<string>();
      for (const file of readdirSync(join(sdkSource, 'resources'))) {
        const text = readFileSync(join(sdkSource, 'resources', file), 'utf8');
        for (const m of text.matchAll(/\.(?:call|callWithResponse|stream)\(\s*'(get|post|patch|delete)',\s*'([^']+)'/g))
          called.add(`${m[1]} ${m[2]}`);
      }
      expect(routes.length).toBeGreaterThan(50);
      expect(routes.filter((r) => !called.has(r))).toEqual([]);
      expect([...called].filter((c) => !routes.includes(c))).toEqual([]);
    });
  });

  it('scrapes one page: 200, its row, the credits header', async () => {
    const res = await tm.scrape.start({ url: handbook('/guides/tides'), formats: 'markdown,links' });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('x-service-credits'))).toBe(res.data.creditsUsed);
    const [row] = res.data.data;
    expect(row).toMatchObject({ verdict: 'ok', httpStatus: 200 });
    expect(row!.markdown).toContain('# Tides');
    expect(row!.links!.length).toBeGreaterThan(20);
  });

  it('crawls, waits with progress, and pages through every row following next', async () => {
    const started = await tm.crawl.start({ url: handbook(), limit: 30 });
    expect(started.status).toMatch(/queued|running/);
    const seen: CrawlEnvelope['progress'][] = [];
    const end = await tm.crawl.wait(started.id, { intervalMs: 200, onProgress: (s) => seen.push(s.progress) });
    expect(end.status).toBe('done');
    expect(end.progress.done).toBe(HANDBOOK.pages.length + HANDBOOK.disallowed.length);
    expect(seen.at(-1)).toEqual(end.progress);
    const urls: string[] = [];
    for await (const row of tm.crawl.pages(started.id, { limit: 5, formats: '' })) urls.push(row.url);
    expect(urls).toHaveLength(end.progress.done);
    expect(new Set(urls).size).toBe(urls.length);
    const one = await tm.crawl.page(started.id, handbook('/reference/bylaws'));
    expect(one.markdown!.length).toBeGreaterThan(12_000);
  });

  it('maps a site', async () => {
    const res = await tm.map.start({ url: handbook() });
    const job = res.status === 202 ? await tm.map.wait(res.data.id) : res.data;
    expect(job.status).toBe('done');
    const urls: string[] = [];
    for await (const row of tm.map.rows(job.id, { limit: 10 })) urls.push(row.url);
    expect(urls.sort()).toEqual(HANDBOOK.pages.map((p) => handbook(p)).sort());
  });

  it('lists projects page by page, runs one and waits for its change record, reads its pages and exports', async () => {
    const created = [];
    for (const name of ['one', 'two', 'three'])
      created.push(await tm.projects.create({ seed: handbook(), name, config: { max_pages: 30 } }));
    const listed: string[] = [];
    for await (const p of tm.projects.all({ limit: 2 })) listed.push(p.id);
    expect(listed.sort()).toEqual(created.map((p) => p.id).sort());

    const project = created[0]!;
    const run = await tm.runs.start(project.id);
    const { run: ended, changes } = await tm.runs.waitForChanges(project.id, run.id, { intervalMs: 300 });
    expect(ended.status).toBe('done');
    expect(changes.runId).toBe(run.id);
    expect(changes.counts.added).toBe(HANDBOOK.pages.length);

    const rows = [];
    for await (const row of tm.pages.all(project.id, { limit: 10 })) rows.push(row);
    expect(rows).toHaveLength(HANDBOOK.pages.length + HANDBOOK.disallowed.length);
    const page = await tm.pages.content(project.id, { url: handbook('/guides/locks') });
    expect(page.markdown).toContain('# Locks');

    const file = await tm.exports.download(project.id, { dataset: 'llms' });
    expect(file.headers.get('x-run-id')).toBe(run.id);
    const text = await file.text();
    expect(text).toContain('# Harbour Handbook');
    expect(text).toContain(handbook('/guides/locks'));
  });

  it('answers errors as typed errors with the envelope’s code and request id', async () => {
    const missing = await tm.projects.get('p_nope').catch((e: TidemarkError) => e);
    expect(missing).toBeInstanceOf(TidemarkApiError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    expect((missing as TidemarkError).requestId).toMatch(/\S/);

    const readKey = await t.createKey(adminKey, { scopes: ['read'] });
    const reader = new Tidemark({ apiKey: readKey, baseUrl: t.apiUrl });
    await expect(reader.projects.create({ seed: handbook() })).rejects.toMatchObject({
      status: 403,
      code: 'forbidden',
    });
    await expect(reader.workspace.me()).resolves.toMatchObject({ can: { read: true, write: false } });
  });

  it('verifies a real webhook from the fleet under both signature schemes', async () => {
    const crawl = await tm.crawl.start({
      url: handbook('/guides/'),
      limit: 2,
      webhook: { url: `http://hooks.test:${hooks.port}/crawl`, events: ['crawl.completed'] },
    });
    const secret = crawl.webhookSecret!;
    for (let i = 0; i < 300 && hooks.hits.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    const [hit] = hooks.hits;
    expect(hit!.headers['x-service-signature']).toMatch(/^sha256=/);
    expect(hit!.headers['webhook-signature']).toMatch(/^v1,/);
    const message = verifyWebhook(secret, hit!.body, hit!.headers as Record<string, string>);
    expect(message).toMatchObject({ event: 'crawl.completed', job: { id: crawl.id } });
    expect(() =>
      verifyWebhook(secret, hit!.body.replace('completed', 'failed'), hit!.headers as Record<string, string>),
    ).toThrow();
  });

  // Last: it stops a service of the fleet.
  it('retries the gateway’s 503 only when the call is safe to repeat', async () => {
    const crawl = await tm.crawl.start({ url: handbook('/changelog'), limit: 1 });
    await t.fleet.stopService('crawl');
    const read = await tm.crawl.get(crawl.id).catch((e: TidemarkError) => e);
    expect(read).toMatchObject({ status: 503, code: 'unavailable' });
    expect((read as TidemarkError).meta.attempts).toBe(3);
    const keyed = await tm.crawl.start({ url: handbook('/changelog') }).catch((e: TidemarkError) => e);
    expect(keyed).toMatchObject({ status: 503 });
    expect((keyed as TidemarkError).meta.attempts).toBe(3);
    const unkeyed = await tm.crawl
      .start({ url: handbook('/changelog') }, { idempotencyKey: false })
      .catch((e: TidemarkError) => e);
    expect(unkeyed).toMatchObject({ status: 503 });
    expect((unkeyed as TidemarkError).meta.attempts).toBe(1);
  });
});
