import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

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
    for (const h of hits) {
      expect(h.json).toMatchObject({ job: { id: res.body.id, kind: 'crawl' }, metadata: { team: 'docs' } });
      expect(h.headers['webhook-signature']).toBe(standardSignature(h.headers, h.body, res.body.webhookSecret));
    }
  });
});
