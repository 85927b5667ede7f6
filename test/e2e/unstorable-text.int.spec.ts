import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  GUESTBOOK_ENTRIES,
  LINK_FARM_LINKS,
  TAG_CLOUD_LINKS,
  TAG_SOUP_REPEATS,
  startTestWeb,
  type TestWeb,
} from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { expectStorable } from '../support/storable.js';
import { until as pollUntil } from '../support/until.js';

/**
 * Issue 12, item 8: pages with NUL bytes, lone surrogates and bytes that are not UTF-8 are stored
 * and read back (scrape, batch, crawl, map); requests carrying them are refused by name.
 */
describe('text that PostgreSQL cannot hold, from pages and from callers', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '100' });
    const ws = await t.createWorkspace('hostile');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
  });

  const url = (path: string) => web.url('hostile.test', path);
  const until = (what: string, read: () => Promise<any>, ok: (v: any) => boolean, ms = 60_000): Promise<any> =>
    pollUntil(what, read, ok, { timeoutMs: ms, everyMs: 200, shown: 500 });
  const ended = (body: { status: string }) => !['queued', 'running'].includes(body.status);
  /** A crawl started with `body` and read (its first 100 rows, no bodies) once it has ended. */
  const crawlToEnd = async (body: Record<string, unknown>): Promise<{ id: string; job: any }> => {
    const res = await t.call('POST', '/crawl', { key, body });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const job = await until(
      'the crawl',
      async () => (await t.call('GET', `/crawl/${id}?formats=&limit=100`, { key })).body,
      ended,
      120_000,
    );
    return { id, job };
  };

  describe('pages', () => {
    it('scrapes a page with NUL bytes, NUL and surrogate escapes and broken UTF-8: stored, and read back whole', async () => {
      const res = await t.call('POST', '/scrape', {
        key,
        body: { url: url('/nul-article'), formats: 'markdown,text,cleanHtml,rawHtml,links' },
      });
      expect(res.status).toBe(200);
      const row = res.body.data[0];
      expect(row).toMatchObject({ status: 'done', verdict: 'ok', httpStatus: 200 });
      expectStorable(row, 'row');
      // What the page said is kept, less what cannot be stored.
      expect(row.head.title).toMatch(/^Annual report 2024/);
      expect(row.head.jsonLd[0]).toMatchObject({ headline: 'Annualreport', author: { name: 'A\ufffdB' } });
      expect(row.markdown).toContain('Exported from the old CMS with its stray bytes');
      expect(row.html).toContain('Annual report');
      expect(row.links).toContain(url('/p/3'));

      const again = await t.call('GET', `/scrape/${res.body.id}?formats=markdown,rawHtml,links`, { key });
      expect(again.status).toBe(200);
      expect(again.body.data[0]).toMatchObject({ status: 'done', verdict: 'ok', head: row.head });
      expect(again.body.data[0].markdown).toBe(row.markdown);
    });

    it('scrapes a page declared UTF-16 with a stray surrogate', async () => {
      const res = await t.call('POST', '/scrape', { key, body: { url: url('/utf16'), formats: 'markdown' } });
      expect(res.status).toBe(200);
      expect(res.body.data[0]).toMatchObject({ status: 'done', verdict: 'ok' });
      expect(res.body.data[0].markdown).toContain('Gezeiten\ufffd');
      expectStorable(res.body.data[0], 'row');
    });

    it('reads a page whose markup nests 40,000 deep: every entry in its content, none lost to the stack', async () => {
      const res = await t.call('POST', '/scrape', {
        key,
        body: { url: url('/guestbook'), formats: 'markdown,text,links' },
      });
      expect(res.status).toBe(200);
      const row = res.body.data[0];
      // Read as fetched: a page that cannot be read over http climbs to a browser, whose parser
      // flattens the markup below its depth limit; this one needs no browser.
      expect(row).toMatchObject({ status: 'done', verdict: 'ok', httpStatus: 200, tier: 'http' });
      expect(row.markdown).toContain('Signed by every visitor since 1999.');
      for (const i of [0, 1, 511, 512, 10_000, GUESTBOOK_ENTRIES - 1]) expect(row.text).toContain(`entry ${i} tide`);
      expect(row.markdown).toContain('Last entry of the guestbook.');
    });

    it('reads tag soup and a tag cloud whole: pages that cost a reader the square of their size', async () => {
      // 300,000 elements open at once took the parser 69 s, and 40,000 links in one paragraph
      // the markdown ~18 s: both ended as TIMEOUT at the reading budget (15 s), not read.
      const soup = (await t.call('POST', '/scrape', { key, body: { url: url('/tag-soup'), formats: 'markdown,text' } }))
        .body.data[0];
      expect(soup).toMatchObject({ status: 'done', verdict: 'ok', tier: 'http' });
      for (const i of [0, 511, 512, TAG_SOUP_REPEATS - 1]) expect(soup.text).toContain(`e${i}`);
      const cloud = (await t.call('POST', '/scrape', { key, body: { url: url('/tag-cloud'), formats: 'markdown' } }))
        .body.data[0];
      expect(cloud).toMatchObject({ status: 'done', verdict: 'ok', tier: 'http' });
      expect(cloud.markdown.match(/\[tag\d+\]\(http:\/\/hostile\.test:\d+\/tag\/\d+\)/g)?.length).toBe(TAG_CLOUD_LINKS);
    });

    it('finishes a batch of such pages, every row readable', async () => {
      const res = await t.call('POST', '/scrape', {
        key,
        body: { urls: [url('/nul-article'), url('/utf16'), url('/p/0')], formats: 'markdown,links' },
      });
      expect(res.status).toBe(202);
      const job = await until(
        'the batch',
        async () => (await t.call('GET', `/scrape/${res.body.id}`, { key })).body,
        ended,
      );
      expect(job).toMatchObject({ status: 'done', progress: { done: 3, total: 3, queued: 0 }, counts: { ok: 3 } });
      expect(job.data.map((r: { status: string }) => r.status)).toEqual(['done', 'done', 'done']);
      expectStorable(job, 'job');
    });

    it('crawls the site to the end: hostile pages, robots.txt and sitemap stored; an over-long link left out', async () => {
      const { id, job } = await crawlToEnd({ url: url('/'), limit: 100 });
      expect(job).toMatchObject({ status: 'done', stop: 'exhausted' });
      expect(job.progress.queued).toBe(0);
      const paths = job.data.map((r: { url: string }) => new URL(r.url).pathname).sort();
      for (const p of ['/', '/nul-article', '/utf16', '/long-link', '/guestbook', '/p/5', '/p/19'])
        expect([p, paths.includes(p)]).toEqual([p, true]);
      // The campaign link is longer than any URL is kept: not followed (it would not fit the index).
      expect(paths.filter((p: string) => p.startsWith('/campaign/'))).toEqual([]);
      expect(job.data.every((r: { status: string }) => r.status === 'done')).toBe(true);
      expectStorable(job, 'crawl');

      const page = await t.call('GET', `/crawl/${id}/page?url=${encodeURIComponent(url('/nul-article'))}`, { key });
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ verdict: 'ok', foundVia: expect.any(String) });
      expect(page.body.markdown).toContain('Exported from the old CMS');
      expectStorable(page.body, 'page');
      // robots.txt (with its NULs) was kept with the crawl's run, out of the state every step rewrites.
      const stored = await t.db.prisma.job.findUniqueOrThrow({ where: { id } });
      const run = await t.db.prisma.run.findUniqueOrThrow({ where: { id: stored.runId! } });
      expect(run.robotsTxt).toContain('generated by the CMS');
      expect(run.robotsStatus).toBe(200);
      expect(JSON.stringify(stored.result)).not.toContain('generated by the CMS');
    }, 180_000);

    it('crawls from a page whose links alone pass a message: its links read from its row and followed', async () => {
      const { id, job } = await crawlToEnd({ url: url('/link-farm'), limit: 25, useSitemap: false });
      expect(job).toMatchObject({ status: 'done', stop: 'limit' });
      expect(job.data).toHaveLength(25);
      const farm = job.data.find((r: { url: string }) => new URL(r.url).pathname === '/link-farm');
      expect(farm).toMatchObject({ status: 'done', verdict: 'ok' });
      expect(job.data.every((r: { verdict: string }) => r.verdict === 'ok')).toBe(true);
      // Every link of the page taken in (its nav's and footer's besides the archive's), and the
      // crawl's other pages found through it, in the page's order.
      const stored = await t.db.prisma.job.findUniqueOrThrow({ where: { id } });
      const frontier = await t.db.prisma.crawlUrl.findMany({ where: { runId: stored.runId! } });
      const farmUrl = frontier.find((u) => new URL(u.url).pathname === '/link-farm')!;
      expect(farmUrl.outLinks).toBeGreaterThan(LINK_FARM_LINKS);
      const others = frontier.filter((u) => u !== farmUrl);
      expect(others.length).toBeGreaterThanOrEqual(24);
      expect(others.every((u) => u.foundVia === 'link' && u.firstReferer === farmUrl.url)).toBe(true);
    }, 180_000);

    it('maps a sitemap whose lines carry NUL bytes', async () => {
      const res = await t.call('POST', '/map', { key, body: { url: url('/') } });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('done');
      const urls = res.body.data.map((r: { url: string }) => r.url);
      expect(urls).toEqual(expect.arrayContaining([url('/nul-article'), url('/p/6')]));
      expectStorable(res.body, 'map');
    });
  });

  describe('requests', () => {
    const refused = (res: { status: number; body: any }, status: number, field: string) => {
      expect([res.status, res.body.code]).toEqual([status, 'validation']);
      expect(res.body.error.startsWith(`${field}: `)).toBe(true);
      expect(res.body.request_id).toEqual(expect.any(String));
    };

    it('refuses NUL and lone surrogates in a body by name (422), and keeps no idempotency record of it', async () => {
      refused(
        await t.call('POST', '/projects', { key, body: { seed: url('/'), name: 'Harbour\u0000 news' } }),
        422,
        'body.name',
      );
      refused(
        await t.call('POST', '/projects', {
          key,
          rawBody: '{"seed":"http://hostile.test/","name":"half \\ud800 an emoji"}',
          headers: { 'content-type': 'application/json' },
        }),
        422,
        'body.name',
      );
      refused(
        await t.call('POST', '/scrape', {
          key,
          body: { url: url('/p/1\u0000') },
          headers: { 'idempotency-key': 'nul-1' },
        }),
        422,
        'body.url',
      );
      expect(await t.db.prisma.idempotencyRecord.count({ where: { key: 'nul-1' } })).toBe(0);
      refused(
        await t.call('POST', '/crawl', { key, body: { url: url('/'), includePaths: ['/p/\u0000*'] } }),
        422,
        'body.includePaths.0',
      );
      const byKey = await t.call('POST', '/projects', { key, body: { seed: url('/'), 'na\u0000me': 'x' } });
      refused(byKey, 422, 'body."na\\u0000me"');
      // A public route (no key) gets the same.
      refused(
        await t.call('POST', '/auth/signup', {
          body: { email: 'a\u0000@crew.test', password: 'correct horse battery' },
        }),
        422,
        'body.email',
      );
    });

    it('refuses them in query strings and paths (400)', async () => {
      refused(await t.call('GET', '/projects?cursor=%00', { key }), 400, 'query.cursor');
      refused(await t.call('GET', '/projects/prj_%00', { key }), 400, 'path.id');
      refused(await t.call('GET', '/scrape?unknown=a%00b', { key }), 400, 'query.unknown');
    });

    it('answers a header with a NUL in the envelope, naming the header (Node refuses it before any route)', async () => {
      const port = new URL(t.apiUrl).port;
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let out = '';
        socket.on('data', (d) => (out += d.toString()));
        socket.on('end', () => resolve(out));
        socket.on('error', reject);
        socket.write(
          `GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
            `X-Service-Tenant: ws\u0000x\r\nConnection: close\r\n\r\n`,
        );
      });
      const [head, body] = raw.split('\r\n\r\n');
      expect(head!.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
      const envelope = JSON.parse(body!);
      expect(envelope).toMatchObject({ code: 'validation', request_id: expect.any(String) });
      expect(envelope.error.startsWith('header.x-service-tenant: ')).toBe(true);
    });
  });
});
