import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Bus } from '@tidemark/bus';
import { scrapeJobEvent } from '@tidemark/contracts';
import { createLogger } from '@tidemark/telemetry';
import { startTestWeb, TEST_INFRA, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type Answer, type TestFleet } from '../support/fleet.js';

describe('POST /v1/scrape through the fleet (http rung; no browser pool in this fleet)', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let workspaceId: string;

  beforeAll(async () => {
    web = await startTestWeb();
    // An archive page of ~6 MB: read in full, its answer passes gRPC's default 4 MB message.
    const paragraph = (i: number) =>
      `<p>Entry ${i} of the harbour archive, kept since the first tide tables were printed: berth ${i % 40}.</p>`;
    web.addSite('archive.test', {
      '/': {
        type: 'text/html; charset=utf-8',
        body: `<!DOCTYPE html><html lang="en"><head><title>Harbour archive</title></head><body><main><article><h1>Harbour archive</h1>${Array.from({ length: 60_000 }, (_, i) => paragraph(i)).join('')}</article></main></body></html>`,
      },
    });
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap });
    const ws = await t.createWorkspace('scrape');
    key = ws.apiKey;
    workspaceId = ws.workspaceId;
    await t.db.prisma.workspace.update({ where: { id: workspaceId }, data: { plan: 'growth' } });
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
  });

  const scrape = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.call('POST', '/scrape', { key, body, headers });
  const row = async (path: string, extra: Record<string, unknown> = {}) => {
    const res = await scrape({ url: web.url('pages.test', path), ...extra });
    expect([path, res.status]).toEqual([path, 200]);
    return { res, row: res.body.data[0] };
  };

  it('reads an article: ok, http tier, 1 credit, markdown and the envelope of the spec', async () => {
    const { res, row: page } = await row('/article', { formats: 'markdown,links,text' });
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'id',
        'kind',
        'status',
        'progress',
        'creditsUsed',
        'counts',
        'data',
        'next',
        'cursor',
        'stop',
        'request_id',
        'error',
        'createdAt',
      ].sort(),
    );
    expect(res.body).toMatchObject({
      kind: 'scrape',
      status: 'done',
      progress: { done: 1, total: 1, queued: 0 },
      creditsUsed: 1,
    });
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    expect(res.headers.get('x-service-credits')).toBe('1');
    expect(page).toMatchObject({
      verdict: 'ok',
      errorCode: 'OK',
      method: 'http',
      tier: 'http',
      credits: 1,
      climbedTo: 'http',
      httpStatus: 200,
      billedAs: null,
    });
    expect(page.markdown).toContain('How tides work');
    expect(page.text).toContain('How tides work');
    expect(page.words).toBeGreaterThan(200);
    expect(page.head.title).toBe('How tides work');
    expect(page.signals).toEqual(expect.arrayContaining(['main']));
  });

  it.each([
    ['/missing', 'blocked', 'NOT_FOUND'],
    ['/gone', 'blocked', 'NOT_FOUND'],
    ['/soft-404', 'blocked', 'NOT_FOUND'],
    ['/login', 'blocked', 'LOGIN_REQUIRED'],
    ['/short', 'thin', 'OK'],
    ['/table', 'thin', 'OK'],
    ['/rate-limited', 'blocked', 'RATE_LIMITED'],
    ['/redirect', 'ok', 'OK'],
    ['/latin1', 'ok', 'OK'],
    ['/gzip', 'ok', 'OK'],
    ['/brotli', 'ok', 'OK'],
    ['/geo', 'blocked', 'GEO_RESTRICTED'],
    ['/server-error', 'blocked', 'BLOCKED'],
  ])('%s reads as %s / %s', async (path, verdict, errorCode) => {
    const { row: page } = await row(path);
    expect([path, page.verdict, page.errorCode]).toEqual([path, verdict, errorCode]);
    expect(page.credits).toBe(1);
  });

  it('keeps shape, warnings and Retry-After', async () => {
    expect((await row('/short')).row).toMatchObject({ shape: 'form', warnings: ['short'] });
    expect((await row('/table')).row.shape).toBe('table');
    expect((await row('/rate-limited')).row.retryAfter).toBe(30);
    expect((await row('/soft-404')).row.signals).toContain('soft 404');
    expect((await row('/latin1', { formats: 'markdown' })).row.markdown).toContain('Café crème');
    expect((await row('/redirect')).row.finalUrl).toBe(web.url('pages.test', '/article'));
  });

  it('skips a page under the word floor or outside the language list, keeping the row', async () => {
    expect((await row('/article', { config: { min_words: 5000 } })).row).toMatchObject({
      verdict: 'skipped',
      errorCode: 'OK',
      credits: 1,
    });
    expect((await row('/article', { config: { languages: ['de'] } })).row.verdict).toBe('skipped');
    expect((await row('/gzip', { formats: 'markdown' })).row.markdown).toContain('Gzipped page');
  });

  it('serves a stored copy under maxAge: verdict cached, nothing charged', async () => {
    const url = web.url('pages.test', '/article');
    const fresh = await scrape({ url, formats: 'markdown' });
    expect(fresh.body.data[0]).toMatchObject({ verdict: 'ok', credits: 1 });
    const hitsBefore = web.hits.filter((h) => h.path === '/article').length;
    const cached = await scrape({ url, formats: 'markdown', config: { maxAge: 60_000 } });
    expect(cached.body.data[0]).toMatchObject({ verdict: 'cached', credits: 0, errorCode: 'OK' });
    expect(cached.body.data[0].markdown).toContain('How tides work');
    expect(cached.headers.get('x-service-credits')).toBe('0');
    expect(web.hits.filter((h) => h.path === '/article').length).toBe(hitsBefore);
  });

  it('extracts fields by CSS selector or XPath, attribute and list', async () => {
    const { row: page } = await row('/article', {
      config: {
        fields: {
          title: 'h1',
          sections: { selector: 'h2', all: true },
          lang: { selector: 'html', attr: 'lang' },
          none: '.absent',
          viaXPath: '//article/h2[2]',
          items: { selector: '(//li)', all: true },
        },
      },
    });
    expect(page.fields).toEqual({
      title: 'How tides work',
      sections: ['The moon', 'The sun'],
      lang: 'en',
      none: null,
      viaXPath: 'The sun',
      items: ['Spring tides', 'Neap tides'],
    });
  });

  it('stops an app shell at maxTier http with TIER_LIMIT', async () => {
    const { row: page } = await row('/app', { config: { maxTier: 'http' } });
    expect(page).toMatchObject({
      verdict: 'blocked',
      errorCode: 'TIER_LIMIT',
      method: 'http',
      climbedTo: 'http',
      credits: 1,
    });
    expect(page.signals).toEqual(expect.arrayContaining(['app shell', 'no script']));
  });

  it('keeps the http answer when the browser tier is unreachable, and says so', async () => {
    const { row: page } = await row('/challenge');
    expect(page).toMatchObject({ verdict: 'blocked', errorCode: 'BLOCKED', method: 'http', credits: 1 });
    expect(page.warnings).toContain('browser tier unavailable');
    expect((await t.call('GET', '/me', { key })).body.credits.remaining).toBeGreaterThan(0);
  });

  it('caps a page with maxCredits below the browser price: BUDGET_EXHAUSTED', async () => {
    const { row: page } = await row('/app', { maxCredits: 2 });
    expect(page).toMatchObject({ errorCode: 'BUDGET_EXHAUSTED', credits: 1, climbedTo: 'http' });
  });

  it('gives a workspace with 3 credits left BUDGET_EXHAUSTED rather than a browser fetch', async () => {
    const poor = await t.createWorkspace('poor');
    await t.call('GET', '/me', { key: poor.apiKey }); // welcome credits in
    await t.db.prisma.ledgerEntry.create({
      data: {
        id: 'led_poor',
        workspaceId: poor.workspaceId,
        kind: 'charge',
        reason: 'test',
        credits: -997,
        reference: 'test:poor',
      },
    });
    const res = await t.call('POST', '/scrape', { key: poor.apiKey, body: { url: web.url('pages.test', '/app') } });
    expect(res.body.data[0]).toMatchObject({ errorCode: 'BUDGET_EXHAUSTED', method: 'http', credits: 1 });
    expect(res.body.data[0].warnings).not.toContain('browser tier unavailable');
    expect((await t.call('GET', '/me', { key: poor.apiKey })).body.credits.remaining).toBe(2);
  });

  it("draws a workspace's one-URL scrapes on one block of credits: each page charged exactly, the block given back", async () => {
    const ws = await t.createWorkspace('one-url-block');
    const remaining = async () => (await t.call('GET', '/me', { key: ws.apiKey })).body.credits.remaining as number;
    const before = await remaining();
    for (let i = 0; i < 4; i++) {
      const res = await t.call('POST', '/scrape', { key: ws.apiKey, body: { url: web.url('pages.test', '/article') } });
      expect([res.status, res.headers.get('x-service-credits')]).toEqual([200, '1']);
    }
    // One hold for the four pages (a block), none of a page's own; one charge per page.
    const holds = await t.db.prisma.creditHold.findMany({ where: { workspaceId: ws.workspaceId } });
    expect(holds.map((h) => h.reference)).toEqual([expect.stringMatching(/^block:one-url:/)]);
    const charges = await t.db.prisma.ledgerEntry.findMany({
      where: { workspaceId: ws.workspaceId, reference: { startsWith: 'page:' } },
    });
    expect(charges.map((c) => c.credits)).toEqual([-1, -1, -1, -1]);
    // Idle, the block is given back: what stays spent is the four pages.
    for (let i = 0; i < 100 && (await t.db.prisma.creditHold.count({ where: { workspaceId: ws.workspaceId } })); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await remaining()).toBe(before - 4);
  });

  it('keeps robots.txt when the scrape asks for it: verdict robots, not fetched, not charged', async () => {
    const secret = web.url('crawl.test', '/private/secret');
    const hitsBefore = web.hits.length;
    const asked = await scrape({ url: secret, config: { respectRobots: true } });
    expect(asked.status).toBe(200);
    expect(asked.body.data[0]).toMatchObject({
      verdict: 'robots',
      status: 'done',
      credits: 0,
      method: null,
      reason: 'robots.txt forbids fetching it',
    });
    const paths = () => web.hits.slice(hitsBefore).map((h) => h.path);
    expect(paths()).toEqual(['/robots.txt']);
    // An allowed page of the same site is read, robots.txt not asked again (kept per site).
    const allowed = await scrape({ url: web.url('crawl.test', '/about'), config: { respectRobots: true } });
    expect(allowed.body.data[0]).toMatchObject({ verdict: 'ok', credits: 1 });
    expect(paths()).toEqual(['/robots.txt', '/about']);
    // Not asked (the default for a scrape): robots.txt is not read and the page is fetched.
    const plain = await scrape({ url: secret });
    expect(plain.body.data[0]).toMatchObject({ verdict: 'ok' });
    expect(paths()).toEqual(['/robots.txt', '/about', '/private/secret']);
  });

  it('keeps robots.txt in a batch that asks for it: the forbidden row is robots, unfetched, free', async () => {
    const handbook = (path: string) => web.url('handbook.test', path);
    const hitsBefore = web.hits.length;
    const res = await scrape({
      urls: [handbook('/account'), handbook('/guides/locks')],
      config: { respectRobots: true },
    });
    expect(res.status).toBe(202);
    let job = res.body;
    for (let i = 0; i < 200 && job.status !== 'done'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      job = (await t.call('GET', `/scrape/${res.body.id}`, { key })).body;
    }
    expect(job.status).toBe('done');
    const byPath = Object.fromEntries(
      (job.data as { url: string }[]).map((r) => [new URL(r.url).pathname, r as Record<string, unknown>]),
    );
    expect(byPath['/account']).toMatchObject({ verdict: 'robots', credits: 0, method: null });
    expect(byPath['/guides/locks']).toMatchObject({ verdict: 'ok', credits: 1 });
    const paths = web.hits
      .slice(hitsBefore)
      .filter((h) => h.host === 'handbook.test')
      .map((h) => h.path);
    expect(paths).toContain('/robots.txt');
    expect(paths).toContain('/guides/locks');
    expect(paths).not.toContain('/account');
  });

  it('refuses private and metadata addresses, and a redirect to them, at no cost', async () => {
    for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/']) {
      const res = await scrape({ url, timeout: 10 });
      expect([url, res.status, res.body.data[0].status, res.body.data[0].errorCode, res.body.data[0].credits]).toEqual([
        url,
        200,
        'error',
        'NETWORK',
        0,
      ]);
      expect(res.body.data[0].reason).toMatch(/private or reserved/);
    }
  });

  it('answers 202 with the id when the timeout passes, and the fetch goes on', async () => {
    const res = await scrape({ url: web.url('pages.test', '/slow'), timeout: 1 });
    expect(res.status).toBe(202);
    expect(res.body.status).toMatch(/queued|running/);
    let job = res.body;
    for (let i = 0; i < 50 && job.status !== 'done'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      job = (await t.call('GET', `/scrape/${res.body.id}`, { key })).body;
    }
    expect(job).toMatchObject({ status: 'done', data: [{ verdict: 'ok' }] });
  });

  it('scrapes a batch of 200 URLs across 4 hosts, one row each, in the order asked', async () => {
    const urls = ['a.test', 'b.test', 'c.test', 'd.test'].flatMap((h) =>
      Array.from({ length: 50 }, (_, i) => web.url(h, `/p/${i}`)),
    );
    const res = await scrape({ urls });
    expect(res.status).toBe(202);
    expect(res.body.progress).toEqual({ done: 0, total: 200, queued: 200 });
    let job = res.body;
    for (let i = 0; i < 150 && job.status !== 'done'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      job = (await t.call('GET', `/scrape/${res.body.id}?limit=1000`, { key })).body;
    }
    expect(job.status).toBe('done');
    expect(job.progress).toEqual({ done: 200, total: 200, queued: 0 });
    expect(job.data.map((r: { url: string }) => r.url)).toEqual(urls);
    expect(job.data.every((r: { verdict: string }) => r.verdict === 'ok')).toBe(true);
    expect(job.creditsUsed).toBe(200);
    expect(job.counts.ok).toBe(200);
    // Paged reading with next links.
    const first = (await t.call('GET', `/scrape/${res.body.id}?limit=150`, { key })).body;
    expect(first.data).toHaveLength(150);
    const next = await fetch(first.next, { headers: { authorization: `Bearer ${key}` } });
    const second = (await next.json()) as { data: { url: string }[]; next: string | null };
    expect(second.data.map((r) => r.url)).toEqual(urls.slice(150));
    expect(second.next).toBeNull();
  });

  it('publishes batch.finished and scrape.completed on the events stream, with the webhook named', async () => {
    const bus = await Bus.connect({
      url: TEST_INFRA.natsUrl,
      prefix: t.env.NATS_PREFIX!,
      name: 'events-test',
      logger: createLogger('t', 'silent'),
    });
    try {
      const finished = bus.waitForBroadcast(`events.${workspaceId}.batch.finished`, scrapeJobEvent, 20_000);
      const completed = bus.waitForBroadcast(`events.${workspaceId}.scrape.completed`, scrapeJobEvent, 20_000);
      const res = await scrape({
        urls: [web.url('pages.test', '/article'), web.url('pages.test', '/missing')],
        webhook_url: 'https://hooks.example/tidemark',
      });
      expect(res.body.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      const event = await finished;
      expect(event).toMatchObject({
        jobId: res.body.id,
        status: 'done',
        progress: { done: 2, total: 2, queued: 0 },
        creditsUsed: 2,
        counts: { ok: 1, blocked: 1 },
        webhookUrl: 'https://hooks.example/tidemark',
      });
      expect((await completed)?.jobId).toBe(res.body.id);
      // The secret is shown once: reading the job again does not return it.
      expect((await t.call('GET', `/scrape/${res.body.id}`, { key })).body.webhookSecret).toBeUndefined();
    } finally {
      await bus.close();
    }
  });

  it('cancels a batch: URLs not yet fetched are not fetched', async () => {
    const urls = Array.from({ length: 30 }, () => web.url('pages.test', '/slow'));
    const res = await scrape({ urls: urls.map((u, i) => `${u}?n=${i}`) });
    const cancelled = await t.call('DELETE', `/scrape/${res.body.id}`, { key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    // Pages taken before the cancel finish their fetch (/slow answers after 3 s) and are then
    // counted into the job (a row is written before its count): wait until every row is closed
    // and counted rather than for a fixed time, which a loaded machine outruns.
    type Read = { status: string; creditsUsed: number; progress: { done: number }; data: { status: string }[] };
    let job: Read;
    let statuses: string[] = [];
    for (const deadline = Date.now() + 30_000; ;) {
      job = (await t.call('GET', `/scrape/${res.body.id}?limit=100`, { key })).body;
      statuses = job.data.map((r) => r.status);
      const open = statuses.some((s) => s === 'queued' || s === 'running');
      const counted = job.progress.done === statuses.filter((s) => s === 'done').length;
      if ((!open && counted) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(job.status).toBe('cancelled');
    expect(statuses.filter((s: string) => s === 'cancelled').length).toBeGreaterThan(20);
    expect(statuses.every((s: string) => s === 'cancelled' || s === 'done')).toBe(true);
    expect(job.creditsUsed).toBe(statuses.filter((s: string) => s === 'done').length);
  });

  it('answers a page whose answer passes 4 MB (a ~6 MB archive in full), and reads it back', async () => {
    const res = await scrape({ url: web.url('archive.test', '/'), formats: 'markdown,text,rawHtml,cleanHtml' });
    expect(res.status).toBe(200);
    const page = res.body.data[0];
    expect(page).toMatchObject({ status: 'done', verdict: 'ok' });
    expect(page.html.length).toBeGreaterThan(5_000_000);
    expect(page.markdown).toContain('Entry 59999 of the harbour archive');
    const again = await t.call('GET', `/scrape/${res.body.id}`, { key });
    expect(again.status).toBe(200);
    expect(again.body.data[0].markdown).toBe(page.markdown);
  }, 60_000);

  it('answers a batch of rows heavier than one answer carries in pages cut by size, next going on to every row', async () => {
    // Four ~6 MB archive pages in full: ~22 MB a row, ~90 MB in all, past the 64 MB a client takes.
    const urls = [1, 2, 3, 4].map((n) => web.url('archive.test', `/?copy=${n}`));
    const started = await scrape({ urls, formats: 'markdown,text,rawHtml,cleanHtml' });
    expect(started.status).toBe(202);
    const id = started.body.id as string;
    for (let i = 0; i < 240 && (await t.db.prisma.job.findUnique({ where: { id } }))?.status !== 'done'; i++)
      await new Promise((r) => setTimeout(r, 250));
    const read: { url: string; markdown: string }[] = [];
    let answers = 0;
    let bytes = 0;
    for (let cursor: string | null = null; ;) {
      const res: Answer = await t.call('GET', `/scrape/${id}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { key });
      expect(res.status).toBe(200);
      answers += 1;
      read.push(...res.body.data);
      bytes += JSON.stringify(res.body).length;
      cursor = res.body.cursor;
      if (!cursor) break;
      expect(res.body.next).toContain(`cursor=${cursor}`);
    }
    expect(bytes).toBeGreaterThan(64 * 1024 * 1024);
    expect(answers).toBeGreaterThan(1);
    expect(read.map((r) => r.url)).toEqual(urls);
    for (const r of read) expect(r.markdown).toContain('Entry 59999 of the harbour archive');
  }, 120_000);

  it('lists jobs, hides other workspaces, and replays an idempotent scrape', async () => {
    const headers = { 'idempotency-key': 'scrape-once' };
    const a = await scrape({ url: web.url('pages.test', '/article') }, headers);
    const b = await scrape({ url: web.url('pages.test', '/article') }, headers);
    expect(b.body.id).toBe(a.body.id);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    const list = await t.call('GET', '/scrape?limit=2', { key });
    expect(list.body.data).toHaveLength(2);
    expect(list.body.data[0].id).toBe(a.body.id);
    expect(list.body.next).toMatch(/\/v1\/scrape\?cursor=/);
    const other = (await t.createWorkspace('other')).apiKey;
    expect((await t.call('GET', `/scrape/${a.body.id}`, { key: other })).status).toBe(404);
    expect((await t.call('DELETE', `/scrape/${a.body.id}`, { key: other })).status).toBe(404);
  });

  it('validates the request', async () => {
    expect((await scrape({})).status).toBe(422);
    expect((await scrape({ url: 'ftp://x' })).body.error).toMatch(/^body\.url/);
    expect((await scrape({ url: web.url('pages.test', '/article'), formats: 'markdown,pdf' })).body.error).toContain(
      '"pdf"',
    );
    expect((await scrape({ urls: Array.from({ length: 501 }, () => 'https://x.example/') })).status).toBe(422);
    expect(
      (await scrape({ url: web.url('pages.test', '/article'), webhook_url: 'https://hook.example/' })).body.error,
    ).toMatch(/batches/);
    expect((await scrape({ url: web.url('pages.test', '/article'), timeout: 121 })).status).toBe(422);
    expect((await scrape({ url: web.url('pages.test', '/article'), destination: 'dst_x' })).status).toBe(404);
  });
});
