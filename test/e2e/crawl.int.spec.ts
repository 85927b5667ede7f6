import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Bus } from '@tidemark/bus';
import { crawlJobEvent } from '@tidemark/contracts';
import { createLogger } from '@tidemark/telemetry';
import { startTestWeb, TEST_INFRA, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type Answer, type TestFleet } from '../support/fleet.js';
import { comparedRun } from '../support/runs.js';

interface Row {
  url: string;
  verdict: string;
  credits: number;
  foundVia: string;
  firstReferer: string | null;
  inSitemap: boolean;
  inLinks: number;
  orphan: boolean;
  unlisted: boolean;
  origin: string;
  depth: number;
  markdown?: string;
  html?: string;
}

describe('POST /v1/crawl through the fleet (map, crawl and scrape services over NATS and gRPC)', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let workspaceId: string;

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50' });
    const ws = await t.createWorkspace('crawl');
    key = ws.apiKey;
    workspaceId = ws.workspaceId;
    await t.db.prisma.workspace.update({ where: { id: workspaceId }, data: { plan: 'growth' } });
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
  });

  const origin = () => web.url('crawl.test', '').replace(/\/$/, '');
  const crawl = (body: Record<string, unknown>) => t.call('POST', '/crawl', { key, body });
  /** Polls the crawl until it ends. */
  const finished = async (id: string) => {
    for (let i = 0; i < 600; i++) {
      const res = await t.call('GET', `/crawl/${id}?formats=&limit=1`, { key });
      if (!['queued', 'running'].includes(res.body.status)) return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`crawl ${id} did not end`);
  };
  /** A project's latest change record, once the diff service has written it. */
  const changeRecordOf = async (projectId: string): Promise<any> => {
    for (let i = 0; i < 300; i++) {
      const changes = await t.call('GET', `/projects/${projectId}/changes`, { key });
      if (changes.status === 200) return changes.body;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`project ${projectId} has no change record`);
  };
  /** Every page of a crawl, following `next`. */
  const allRows = async (id: string, query = 'formats=&limit=7'): Promise<Row[]> => {
    const rows: Row[] = [];
    let url: string | null = `${t.apiUrl}/crawl/${id}?${query}`;
    for (let i = 0; url && i < 100; i++) {
      const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
      const body = (await res.json()) as { data: Row[]; next: string | null };
      rows.push(...body.data);
      url = body.next;
    }
    return rows;
  };
  const paths = (rows: Row[]) =>
    rows.map((r) => {
      const u = new URL(r.url);
      return `${u.host.startsWith('blog.') ? 'blog:' : ''}${u.pathname.replace(/(.)\/$/, '$1')}${u.search}`;
    });
  const hitsOf = (host: string) => web.hits.filter((h) => h.host === host).map((h) => h.path);

  it('follows links and the sitemap within the host, keeps robots rules and flags orphan and unlisted pages', async () => {
    const before = web.hits.length;
    const res = await crawl({ url: `${origin()}/`, webhook: { url: 'https://hooks.example/c', metadata: { a: 1 } } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ kind: 'crawl', data: [], stop: null });
    expect(res.body.id).toMatch(/^crawl_/);
    expect(res.body.webhookSecret).toMatch(/^whsec_/);
    const end = await finished(res.body.id);
    expect(end).toMatchObject({ status: 'done', stop: 'exhausted', progress: { done: 12, total: 12, queued: 0 } });
    expect(end.webhookSecret).toBeUndefined();
    // The run mirrors the job: what a project's run list shows once the crawl is kept.
    const job = await t.db.prisma.job.findUniqueOrThrow({ where: { id: res.body.id } });
    const run = await t.db.prisma.run.findUniqueOrThrow({ where: { id: job.runId! } });
    expect(run).toMatchObject({ status: 'done', stop: 'exhausted', counts: end.counts, creditsUsed: end.creditsUsed });
    expect(run.startedAt!.getTime()).toBeLessThanOrEqual(run.finishedAt!.getTime());
    expect(Object.values(end.counts as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(12);

    const rows = await allRows(res.body.id);
    expect(paths(rows).sort()).toEqual(
      [
        '/',
        '/about',
        '/docs',
        '/docs/a',
        '/docs/b',
        '/docs/deep/1',
        '/docs/deep/2',
        '/docs/deep/3',
        '/orphan',
        '/private/secret',
        '/search?b=2&a=1',
        '/unlisted',
      ].sort(),
    );
    const by = (p: string) => rows[paths(rows).indexOf(p)]!;
    expect(by('/')).toMatchObject({ foundVia: 'seed', depth: 0, inSitemap: true, orphan: false });
    expect(by('/about')).toMatchObject({ foundVia: 'sitemap', inSitemap: true, inLinks: 1, orphan: false });
    expect(by('/orphan')).toMatchObject({ foundVia: 'sitemap', inSitemap: true, inLinks: 0, orphan: true });
    expect(by('/unlisted')).toMatchObject({
      foundVia: 'link',
      firstReferer: `${origin()}/`,
      inSitemap: false,
      unlisted: true,
      depth: 1,
    });
    expect(by('/docs')).toMatchObject({ unlisted: true, orphan: false });
    expect(by('/docs/deep/3')).toMatchObject({ depth: 4, foundVia: 'link', firstReferer: `${origin()}/docs/deep/2` });
    expect(by('/docs/a').inLinks).toBe(3); // from /, /docs and /docs/b (the #fragment is the same page)
    expect(by('/private/secret')).toMatchObject({ verdict: 'robots', credits: 0 });
    expect(by('/about')).toMatchObject({ verdict: 'ok', credits: 1, origin: origin() });

    // Fetched once each; robots-forbidden, other hosts and the subdomain not at all.
    const fetched = web.hits.slice(before).filter((h) => h.host === 'crawl.test');
    // The map reads robots.txt, the sitemap and the home page (for feed links); the crawl the rest.
    const pagePaths = fetched.map((h) => h.path).filter((p) => !['/robots.txt', '/sitemap.xml'].includes(p));
    expect(pagePaths.filter((p) => p === '/')).toHaveLength(2);
    pagePaths.splice(pagePaths.indexOf('/'), 1);
    expect(pagePaths.length).toBe(new Set(pagePaths).size);
    expect(pagePaths).not.toContain('/private/secret');
    expect(hitsOf('blog.crawl.test')).toEqual([]);
    expect(hitsOf('elsewhere.test')).toEqual([]);
    // 11 pages at 1 credit (the robots row is free) and the sitemap files read.
    expect(end.creditsUsed).toBeGreaterThanOrEqual(11);
    expect(end.counts).toMatchObject({ ok: 11, robots: 1 });
  });

  it('keeps to includePaths, excludePaths and maxDepth, and says why it stopped', async () => {
    const res = await crawl({
      url: `${origin()}/`,
      includePaths: ['/docs/**'],
      excludePaths: ['/docs/b'],
      maxDepth: 3,
      useSitemap: false,
    });
    const end = await finished(res.body.id);
    // The seed is always fetched (links start there); /docs/deep/3 is four hops away.
    expect(paths(await allRows(res.body.id)).sort()).toEqual(
      ['/', '/docs', '/docs/a', '/docs/deep/1', '/docs/deep/2'].sort(),
    );
    expect(end).toMatchObject({ status: 'done', stop: 'depth' });
  });

  it('stops at the page limit', async () => {
    const res = await crawl({ url: `${origin()}/`, limit: 3, useSitemap: false });
    const end = await finished(res.body.id);
    expect(end).toMatchObject({ status: 'done', stop: 'limit', progress: { done: 3, total: 3, queued: 0 } });
    expect(await allRows(res.body.id)).toHaveLength(3);
  });

  it('starts when url_list names the seed again, in another spelling: one row per URL', async () => {
    const res = await crawl({
      url: `${origin()}/`,
      limit: 4,
      useSitemap: false,
      config: { url_list: [`${origin()}/`, `${origin()}/about/`, `${origin()}/about`] },
    });
    expect(res.status).toBe(202);
    const end = await finished(res.body.id);
    expect(end).toMatchObject({ status: 'done', stop: 'limit' });
    const urls = (await allRows(res.body.id)).map((r) => new URL(r.url).pathname);
    // Rows come in the order they settled; the first spellings were kept.
    expect(urls).toEqual(expect.arrayContaining(['/', '/about/']));
    expect(urls).not.toContain('/about');
    expect(new Set(urls.map((u) => u.replace(/\/$/, ''))).size).toBe(urls.length);
  });

  it('crawls subdomains only with allowSubdomains', async () => {
    const res = await crawl({ url: `${origin()}/`, allowSubdomains: true, useSitemap: false });
    await finished(res.body.id);
    const all = paths(await allRows(res.body.id));
    expect(all).toEqual(expect.arrayContaining(['blog:/', 'blog:/post']));
    expect(all).not.toContain('/orphan'); // no sitemap, so nothing links it
  });

  it('sitemap_first fetches every sitemap URL before any link-found one', async () => {
    const res = await crawl({ url: `${origin()}/`, crawlMode: 'sitemap_first', concurrency: 1 });
    await finished(res.body.id);
    const rows = await allRows(res.body.id);
    const firstUnlisted = rows.findIndex((r) => !r.inSitemap);
    const lastListed = rows.map((r) => r.inSitemap).lastIndexOf(true);
    expect(firstUnlisted).toBeGreaterThan(0);
    expect(lastListed).toBeLessThan(firstUnlisted);
  });

  it('fetches robots-forbidden pages when respectRobots is off', async () => {
    const res = await crawl({ url: `${origin()}/`, respectRobots: false, includePaths: ['/private/**'] });
    await finished(res.body.id);
    const rows = await allRows(res.body.id);
    expect(rows.find((r) => r.url.endsWith('/private/secret'))).toMatchObject({ verdict: 'ok' });
  });

  it('pages oldest first with next, returns bodies as asked, finds one page under either scheme and slash', async () => {
    const res = await crawl({ url: `${origin()}/`, scrapeOptions: { formats: ['markdown', 'rawHtml'] } });
    await finished(res.body.id);
    const first = (await t.call('GET', `/crawl/${res.body.id}?limit=5`, { key })).body;
    expect(first.data).toHaveLength(5);
    // A robots row has no bodies (nothing was fetched); every read page has both.
    for (const r of first.data.filter((x: Row) => x.verdict === 'ok')) {
      expect(r.markdown!.length).toBeGreaterThan(50);
      expect(r.html).toContain('<html');
    }
    expect(first.next).toContain(`/v1/crawl/${res.body.id}?`);
    const onlyMd = (await t.call('GET', `/crawl/${res.body.id}?limit=5&formats=markdown`, { key })).body;
    // The oldest row may be a robots row (settled at once, nothing fetched): a read page is asked.
    const readPage = onlyMd.data.find((x: Row) => x.verdict === 'ok');
    expect(readPage.html).toBeUndefined();
    expect(readPage.markdown).toBeDefined();
    const rows = await allRows(res.body.id, 'limit=4');
    expect(rows).toHaveLength(12);
    expect(new Set(rows.map((r) => r.url)).size).toBe(12);

    const https = `${origin().replace('http:', 'https:')}/about/`;
    const page = await t.call('GET', `/crawl/${res.body.id}/page?url=${encodeURIComponent(https)}`, { key });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ url: `${origin()}/about`, verdict: 'ok', inSitemap: true });
    expect(page.body.markdown).toContain('About');
    const missing = await t.call('GET', `/crawl/${res.body.id}/page?url=${encodeURIComponent(`${origin()}/nope`)}`, {
      key,
    });
    expect(missing.status).toBe(404);

    // Bodies limit the page size to 100 (said in the answer), never refused; without them up to 1,000.
    const clamped = await t.call('GET', `/crawl/${res.body.id}?limit=1000`, { key });
    expect(clamped.status).toBe(200);
    expect(clamped.body).toMatchObject({ limit: 100, next: null });
    expect(clamped.body.data).toHaveLength(12);
    const bare = await t.call('GET', `/crawl/${res.body.id}?limit=1000&formats=`, { key });
    expect(bare.status).toBe(200);
    expect(bare.body.limit).toBe(1000);
    // Past the spec's range is refused in the envelope.
    const over = await t.call('GET', `/crawl/${res.body.id}?limit=1001&formats=`, { key });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ code: 'validation', request_id: expect.any(String) });

    // Another workspace sees nothing.
    const other = await t.createWorkspace('other');
    expect((await t.call('GET', `/crawl/${res.body.id}`, { key: other.apiKey })).status).toBe(404);
    expect((await t.call('DELETE', `/crawl/${res.body.id}`, { key: other.apiKey })).status).toBe(404);
  });

  it('cancels: nothing more is fetched', async () => {
    const res = await crawl({ url: web.url('big.test', '/'), concurrency: 1, limit: 5000, useSitemap: false });
    for (let i = 0; i < 100; i++) {
      const body = (await t.call('GET', `/crawl/${res.body.id}?formats=&limit=1`, { key })).body;
      if (body.progress.done >= 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const cancelled = await t.call('DELETE', `/crawl/${res.body.id}`, { key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', stop: 'cancelled' });
    await new Promise((r) => setTimeout(r, 500));
    const hits = hitsOf('big.test').length;
    await new Promise((r) => setTimeout(r, 500));
    expect(hitsOf('big.test').length).toBe(hits);
    const end = (await t.call('GET', `/crawl/${res.body.id}?formats=&limit=1`, { key })).body;
    expect(end.progress.done).toBeLessThan(20);
    expect(end.progress.queued).toBe(0);
  });

  it('keep turns the crawl into a standing project whose run holds the same pages', async () => {
    const res = await crawl({ url: `${origin()}/`, limit: 4, useSitemap: false });
    await finished(res.body.id);
    // Hidden until kept.
    expect((await t.call('GET', `/projects/${res.body.projectId}`, { key })).status).toBe(404);
    const kept = await t.call('POST', `/crawl/${res.body.id}/keep`, {
      key,
      body: { name: 'Crawl site', schedule: 'weekly', retention: '30d' },
    });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ projectId: res.body.projectId, name: 'Crawl site', schedule: 'weekly' });
    const project = await t.call('GET', `/projects/${res.body.projectId}`, { key });
    expect(project.status).toBe(200);
    expect(project.body).toMatchObject({ name: 'Crawl site', schedule: 'weekly', retention: '30d' });
    const pages = await t.db.prisma.page.findMany({ where: { runId: res.body.runId } });
    expect(pages.map((p) => p.url).sort()).toEqual((await allRows(res.body.id)).map((r) => r.url).sort());
    expect((await t.call('POST', `/crawl/${res.body.id}/keep`, { key, body: { retention: 'always' } })).status).toBe(
      422,
    );

    // The kept run is the project's first change record (every page added) and the baseline
    // of the next run.
    const first = await changeRecordOf(res.body.projectId);
    const read = (await allRows(res.body.id)).filter((r) => ['ok', 'thin'].includes(r.verdict ?? '')).length;
    expect(read).toBeGreaterThan(0);
    expect(first).toMatchObject({ runId: res.body.runId, baseline: null, counts: { added: read, removed: 0 } });
    // Its coverage is stated, as for any compared run.
    expect(first.coverage).toEqual(
      expect.objectContaining({ verdict: expect.any(Boolean), read: expect.any(Number), expected: expect.any(Number) }),
    );
    const next = await comparedRun(t, res.body.projectId, { key });
    expect(next.record.baseline).toBe(res.body.runId);
    expect(next.record.counts.same).toBeGreaterThan(0);
  });

  it('a crawl kept while it runs gets its change record when it ends', async () => {
    const res = await crawl({ url: web.url('big.test', '/'), concurrency: 1, limit: 6, useSitemap: false });
    const kept = await t.call('POST', `/crawl/${res.body.id}/keep`, { key, body: { name: 'Kept early' } });
    expect(kept.status).toBe(200);
    const end = await finished(res.body.id);
    expect(end.status).toBe('done');
    const record = await changeRecordOf(res.body.projectId);
    const read = (await allRows(res.body.id)).filter((r) => ['ok', 'thin'].includes(r.verdict ?? '')).length;
    expect(read).toBeGreaterThan(0);
    expect(record).toMatchObject({ runId: res.body.runId, baseline: null, counts: { added: read } });
  });

  it('publishes crawl.started, crawl.page and crawl.completed with the webhook metadata', async () => {
    const bus = await Bus.connect({
      url: TEST_INFRA.natsUrl,
      prefix: t.env.NATS_PREFIX!,
      name: 'events-test',
      logger: createLogger('t', 'silent'),
    });
    try {
      const started = bus.waitForBroadcast(`events.${workspaceId}.crawl.started`, crawlJobEvent, 20_000);
      const page = bus.waitForBroadcast(`events.${workspaceId}.crawl.page`, crawlJobEvent, 20_000);
      const completed = bus.waitForBroadcast(`events.${workspaceId}.crawl.completed`, crawlJobEvent, 30_000);
      const res = await crawl({
        url: `${origin()}/`,
        webhook: { url: 'https://hooks.example/c', events: ['crawl.completed'], metadata: { run: 'nightly' } },
      });
      expect((await started)?.jobId).toBe(res.body.id);
      const pages = await page;
      expect(pages?.pages?.length).toBeGreaterThan(0);
      const done = await completed;
      expect(done).toMatchObject({
        jobId: res.body.id,
        status: 'done',
        progress: { done: 12, total: 12, queued: 0 },
        webhook: { url: 'https://hooks.example/c', events: ['crawl.completed'], metadata: { run: 'nightly' } },
      });
    } finally {
      await bus.close();
    }
  });

  it('tries a page again after no answer or a 5xx, and follows its links once it reads', async () => {
    let tries = 0;
    const html = (title: string, links: string[]) => ({
      type: 'text/html; charset=utf-8',
      body: `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${'Tide tables and berths. '.repeat(
        30,
      )}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`,
    });
    web.addSite('flaky.test', {
      '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
      '/': html('Home', ['/a']),
      '/a': () => (++tries === 1 ? { status: 503, type: 'text/plain', body: 'busy' } : html('A', ['/b'])),
      '/b': html('B', []),
    });
    const res = await crawl({ url: web.url('flaky.test', '/'), useSitemap: false });
    const end = await finished(res.body.id);
    expect(end).toMatchObject({ status: 'done', progress: { done: 3, total: 3 }, counts: { ok: 3 } });
    expect(tries).toBe(2);
  });

  it('reads robots.txt again on a new connection when the first broke before any answer, and logs why it could not, when it could not', async () => {
    const html = (title: string, links: string[]) => ({
      type: 'text/html; charset=utf-8',
      body: `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${'Tide tables and berths. '.repeat(
        30,
      )}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`,
    });
    /** A site whose robots.txt loses its connection before any answer, the first `breaks` times. */
    const site = (breaks: number) => {
      let asked = 0;
      return {
        '/robots.txt': (req: import('node:http').IncomingMessage) => {
          if (++asked <= breaks) req.socket.destroy();
          return { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' };
        },
        '/': html('Home', ['/a']),
        '/a': html('A', []),
      };
    };
    const logOf = async (id: string) =>
      (
        ((await t.db.prisma.job.findUniqueOrThrow({ where: { id } })).result as { log: { message: string }[] }).log ??
        []
      )
        .map((l) => l.message)
        .join('\n');

    // Broken once: read on the second try, the site crawled.
    web.addSite('reset-once.test', site(1));
    const once = await crawl({ url: web.url('reset-once.test', '/'), useSitemap: false });
    const read = await finished(once.body.id);
    expect(read).toMatchObject({ status: 'done', counts: { ok: 2 } });
    expect(hitsOf('reset-once.test').filter((p) => p === '/robots.txt')).toHaveLength(2);
    expect(await logOf(once.body.id)).toMatch(/robots\.txt answered 200/);

    // Broken every time: no answer, so the site counts as disallowing everything (RFC 9309), and
    // the log says why the crawl ended with its seed.
    web.addSite('reset-always.test', site(Infinity));
    const always = await crawl({ url: web.url('reset-always.test', '/'), useSitemap: false });
    const refused = await finished(always.body.id);
    expect(refused).toMatchObject({ progress: { done: 1, total: 1 }, counts: { robots: 1 } });
    expect(hitsOf('reset-always.test').filter((p) => p === '/robots.txt')).toHaveLength(2);
    expect(hitsOf('reset-always.test')).not.toContain('/');
    expect(await logOf(always.body.id)).toMatch(
      /robots\.txt unreachable \(ECONNRESET[^)]*\): the site counts as disallowing everything/,
    );
  });

  it('refuses bad requests in the error envelope and changes nothing', async () => {
    const jobs = await t.db.prisma.job.count({ where: { workspaceId, kind: 'crawl' } });
    for (const body of [
      {},
      { url: 'ftp://crawl.test/' },
      { url: `${origin()}/`, limit: 0 },
      { url: `${origin()}/`, crawlMode: 'random' },
      { url: `${origin()}/`, surprise: true },
      { url: `${origin()}/`, limit: 5, config: { max_pages: 6 } },
    ]) {
      const res = await crawl(body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), expect.any(Number)]);
      expect([400, 422]).toContain(res.status);
      expect(res.body).toEqual(expect.objectContaining({ code: expect.any(String), request_id: expect.any(String) }));
    }
    expect(await t.db.prisma.job.count({ where: { workspaceId, kind: 'crawl' } })).toBe(jobs);
    expect((await t.call('GET', '/crawl/crawl_nope', { key })).status).toBe(404);
  });
  it('lists pages heavier than one answer carries in pages cut by size, the cursor going on to every page', async () => {
    // Four ~6 MB pages kept in full: ~22 MB a row, ~90 MB in all, past the 64 MB a client takes.
    const entries = Array.from(
      { length: 60_000 },
      (_, i) =>
        `<p>Entry ${i} of the heavy ledger, kept since the first tide tables were printed: berth ${i % 40}.</p>`,
    );
    const heavy = (n: number) => ({
      type: 'text/html; charset=utf-8',
      body: `<!DOCTYPE html><html lang="en"><head><title>Ledger ${n}</title></head><body><main><article><h1>Ledger ${n}</h1>${[1, 2, 3, 4].map((k) => `<a href="/${k}">ledger ${k}</a>`).join(' ')}${entries.join('')}</article></main></body></html>`,
    });
    web.addSite('heavy.test', { '/1': heavy(1), '/2': heavy(2), '/3': heavy(3), '/4': heavy(4) });
    const res = await crawl({
      url: web.url('heavy.test', '/1'),
      limit: 4,
      scrapeOptions: { formats: ['markdown', 'text', 'rawHtml', 'cleanHtml'] },
    });
    expect(res.status).toBe(202);
    expect(await finished(res.body.id)).toMatchObject({ status: 'done' });
    const urls: string[] = [];
    let answers = 0;
    let bytes = 0;
    for (let cursor: string | null = null; ;) {
      const page: Answer = await t.call(
        'GET',
        `/crawl/${res.body.id}?limit=100&formats=markdown,text,rawHtml,cleanHtml${cursor ? `&cursor=${cursor}` : ''}`,
        { key },
      );
      expect(page.status).toBe(200);
      answers += 1;
      bytes += JSON.stringify(page.body).length;
      for (const row of page.body.data as Row[]) {
        expect(row.markdown).toContain('Entry 59999 of the heavy ledger');
        urls.push(new URL(row.url).pathname);
      }
      cursor = page.body.cursor;
      if (!cursor) break;
    }
    expect(bytes).toBeGreaterThan(64 * 1024 * 1024);
    expect(answers).toBeGreaterThan(1);
    expect(urls.sort()).toEqual(['/1', '/2', '/3', '/4']);
  }, 120_000);
});
