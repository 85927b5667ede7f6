import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Bus } from '@tidemark/bus';
import { mapV1 } from '@tidemark/contracts';
import { connectClient, type RpcClient } from '@tidemark/rpc';
import { createLogger } from '@tidemark/telemetry';
import {
  createTestDatabase,
  MAP_SITE,
  startTestWeb,
  TEST_INFRA,
  uniquePrefix,
  type TestDatabase,
  type TestWeb,
} from '@tidemark/testkit';
import { buildApp, MAP_GRPC_MESSAGE_BYTES, type MapApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const BIG = 50_000;

/** The map service alone over gRPC, against the test web, with billing replaced by a recorder. */
describe('MapService.Discover (what the crawl service calls)', () => {
  let web: TestWeb;
  let db: TestDatabase;
  let bus: Bus;
  let app: MapApp;
  let client: RpcClient<mapV1.MapServiceClient>;
  const prefix = uniquePrefix();
  const charges: { workspaceId: string; reference: string; credits: number }[] = [];
  let O: string;

  beforeAll(async () => {
    web = await startTestWeb();
    O = web.url('maps.test', '');
    const big = web.url('big.test', '');
    web.addSite('big.test', {
      '/robots.txt': { type: 'text/plain', body: `User-agent: *\nDisallow: /p/1\nSitemap: ${big}/sitemap.xml\n` },
      '/sitemap.xml': {
        type: 'application/xml',
        body:
          '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
          Array.from({ length: BIG }, (_, i) => `<url><loc>${big}/p/${i}</loc></url>`).join('') +
          '</urlset>',
      },
    });
    db = await createTestDatabase();
    bus = await Bus.connect({ url: TEST_INFRA.natsUrl, prefix, name: 'test', logger: createLogger('t', 'silent') });
    app = await buildApp(
      loadConfig({
        DATABASE_URL: db.url,
        NATS_URL: TEST_INFRA.natsUrl,
        NATS_PREFIX: prefix,
        MAP_GRPC_LISTEN: '127.0.0.1:0',
        FETCH_HOST_MAP: web.hostMap,
        FETCH_ALLOW_NETWORKS: '127.0.0.0/8',
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      }),
      {
        prisma: db.prisma,
        bus,
        credits: (workspaceId, prefixRef) => ({
          authorize: async () => undefined,
          charge: async (n, credits) =>
            void charges.push({ workspaceId, reference: `${prefixRef}:file:${n}`, credits }),
        }),
      },
    );
    const { grpcPort } = await app.start();
    client = connectClient(mapV1.MapServiceClient, `127.0.0.1:${grpcPort}`, 'map', {
      'grpc.max_receive_message_length': MAP_GRPC_MESSAGE_BYTES,
    });
  });
  afterAll(async () => {
    client.close();
    await app.stop();
    await bus.destroyStreams();
    await bus.close();
    await db.drop();
    await web.close();
  });

  const discover = (req: Partial<mapV1.DiscoverRequest>) =>
    client.call(
      'discover',
      {
        workspaceId: 'ws_test',
        url: '',
        sitemapMode: mapV1.SitemapMode.SITEMAP_MODE_UNSPECIFIED,
        limit: 0,
        timeoutMs: 0,
        billingReference: 'run_1:discover',
        feeds: [],
        robotsOnly: false,
        ...req,
      },
      30_000,
    );

  it('answers every entry, blocked ones flagged, with robots.txt as read and no job', async () => {
    charges.length = 0;
    const res = await discover({ url: web.url('maps.test', '/blog/') });
    expect(res.entries.filter((e) => !e.blocked).map((e) => e.url)).toEqual(MAP_SITE.order.map((p) => O + p));
    expect(res.entries.filter((e) => e.blocked).map((e) => e.url)).toEqual(MAP_SITE.blocked.map((p) => O + p));
    expect(res.entries.find((e) => e.url === `${O}/about`)).toEqual({
      url: `${O}/about`,
      lastmod: '2024-11-02T10:00:00+00:00',
      source: mapV1.MapSource.MAP_SOURCE_SITEMAP,
      file: `${O}/sitemaps/pages.xml`,
      blocked: false,
      changefreq: 'monthly',
    });
    expect(res.robotsStatus).toBe(200);
    expect(res.robotsTxt).toContain('Disallow: /private/');
    expect(res.totals).toEqual({ files: 10, urls: 18, indexes: 3, blocked: 2 });
    expect([res.creditsUsed, res.stop, res.method, res.errors]).toEqual([
      10,
      mapV1.MapStop.MAP_STOP_COMPLETED,
      mapV1.MapMethod.MAP_METHOD_ROBOTS,
      [],
    ]);
    expect(charges).toEqual(
      Array.from({ length: 10 }, (_, i) => ({
        workspaceId: 'ws_test',
        reference: `run_1:discover:file:${i + 1}`,
        credits: 1,
      })),
    );
    expect(await db.prisma.job.count()).toBe(0);
    expect(await db.prisma.mapUrl.count()).toBe(0);
  });

  it('reads extra feeds in mode skip, and no sitemap', async () => {
    const res = await discover({
      url: web.url('maps.test', '/'),
      sitemapMode: mapV1.SitemapMode.SITEMAP_MODE_SKIP,
      feeds: [web.url('maps.test', '/news/feed.xml')],
    });
    const feed = mapV1.MapSource.MAP_SOURCE_FEED;
    expect(res.entries.map((e) => [e.url.slice(O.length), e.source])).toEqual([
      ['/news/storm-warning', feed],
      ['/news/new-pier', feed],
      ['/news/regatta', feed],
      ['/blog/2025/tide-tables', feed],
      ['/blog/2025/moon-phases', feed],
    ]);
    expect(res.method).toBe(mapV1.MapMethod.MAP_METHOD_FEEDS);
  });

  it('reads robots.txt alone when asked for robotsOnly (a crawl that uses no sitemap)', async () => {
    const before = web.hits.length;
    const res = await discover({
      url: web.url('maps.test', '/'),
      sitemapMode: mapV1.SitemapMode.SITEMAP_MODE_AUTO,
      robotsOnly: true,
      feeds: [web.url('maps.test', '/news/feed.xml')],
    });
    expect(res.entries).toEqual([]);
    expect(res.robotsTxt).toContain('Sitemap:');
    expect(web.hits.slice(before).map((h) => h.path)).toEqual(['/robots.txt']);
  });

  it('answers 50,000 entries in one message', async () => {
    const big = web.url('big.test', '');
    const res = await discover({ url: `${big}/`, limit: BIG, sitemapMode: mapV1.SitemapMode.SITEMAP_MODE_ONLY });
    expect(res.entries).toHaveLength(BIG);
    expect(res.entries[BIG - 1]!.url).toBe(`${big}/p/${BIG - 1}`);
    // Disallow: /p/1 is a prefix: /p/1, /p/10…/p/19, /p/100…, /p/1000…, /p/10000…/p/19999.
    expect(res.entries.filter((e) => e.blocked)).toHaveLength(1 + 10 + 100 + 1000 + 10_000);
    expect(res.totals).toMatchObject({ files: 1, urls: BIG - 11_111, blocked: 11_111 });
  });

  it('refuses private addresses through the fetch guard: robots unreachable, nothing read', async () => {
    const res = await discover({ url: 'http://10.1.2.3/' });
    expect([res.robotsStatus, res.robotsTxt, res.entries, res.creditsUsed]).toEqual([0, '', [], 0]);
    expect(res.errors[0]).toEqual({
      file: 'http://10.1.2.3/robots.txt',
      reason:
        'unreachable (refused by the fetch guard: 10.1.2.3 is a private or reserved address (private-use 10.0.0.0/8)): the site counts as disallowing everything (RFC 9309)',
    });
  });

  it('refuses a bad request as validation', async () => {
    await expect(discover({ url: 'ftp://maps.test/' })).rejects.toMatchObject({ code: 'validation' });
    await expect(
      discover({ url: web.url('maps.test', '/'), sitemapMode: 99 as mapV1.SitemapMode }),
    ).rejects.toMatchObject({ code: 'validation', message: 'sitemapMode: 99 is not a SitemapMode this service knows' });
    await expect(discover({ url: web.url('maps.test', '/'), limit: 50_001 })).rejects.toMatchObject({
      code: 'validation',
    });
  });

  it('runs a map job by MapNow and pages it by GetMap', async () => {
    const now = await client.call(
      'mapNow',
      {
        workspaceId: 'ws_test',
        url: web.url('maps.test', '/'),
        search: '',
        limit: 0,
        sitemapMode: mapV1.SitemapMode.SITEMAP_MODE_ONLY,
        waitMs: 20_000,
        requestId: 'req_1',
      },
      30_000,
    );
    expect(now.done).toBe(true);
    expect(now.job).toMatchObject({
      status: mapV1.JobStatus.JOB_STATUS_DONE,
      requestId: 'req_1',
      totals: { urls: 16 },
      stop: mapV1.MapStop.MAP_STOP_COMPLETED,
      nextPosition: undefined,
    });
    const jobId = now.job!.id;
    const page = (await client.call('getMap', { workspaceId: 'ws_test', jobId, after: 10, limit: 4 })).job!;
    expect(page.rows.map((r) => r.url)).toEqual(MAP_SITE.order.slice(10, 14).map((p) => O + p));
    expect(page.nextPosition).toBe(14);
    await expect(client.call('getMap', { workspaceId: 'ws_other', jobId, after: 0, limit: 1 })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
