import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { openApiChecker } from '../support/openapi.js';
import { comparedRun } from '../support/runs.js';

/**
 * STORE_HTML (spec: "always stores html of every page; otherwise only the home page's html is
 * stored"), seen through the four routes that read stored html: the markup comparison, the
 * content preview, what the filters removed, and the selector search. Two projects on
 * harbour.test keep markdown only (no rawHtml, no cleanHtml asked): one with the default (home),
 * one with STORE_HTML always. Each runs twice; the site publishes a new edition every run.
 */
describe('STORE_HTML through the fleet: the routes that read stored html', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  const projects: Record<'home' | 'always', { id: string; runs: string[] }> = {
    home: { id: '', runs: [] },
    always: { id: '', runs: [] },
  };

  const url = (path: string) => web.url('harbour.test', path);
  const get = (p: string) => t.call('GET', p, { key });

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50' });
    const ws = await t.createWorkspace('store-html');
    key = ws.apiKey;
    // A plan whose rate the polling below stays under.
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
    for (const [name, config] of [
      ['home', { formats: ['markdown'] }],
      ['always', { formats: ['markdown'], STORE_HTML: 'always' }],
    ] as const) {
      const created = await t.call('POST', '/projects', { key, body: { seed: url('/'), config } });
      expect(created.status).toBe(201);
      expect(created.body.config.output.store_html).toBe(name);
      projects[name].id = created.body.id;
      // Two runs in a row see two editions of the site (version A, then B).
      for (let i = 0; i < 2; i++) projects[name].runs.push((await comparedRun(t, created.body.id, { key })).runId);
    }
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await web?.close();
  });

  it('keeps no html in the rows it answers unless rawHtml is asked: it is stored, not shown', async () => {
    for (const name of ['home', 'always'] as const) {
      const rows = (await get(`/projects/${projects[name].id}/pages?formats=markdown`)).body.data as {
        html?: string;
      }[];
      expect(rows.length).toBeGreaterThan(5);
      for (const row of rows) expect(row.html).toBeUndefined();
    }
    // Asked for, the stored html comes back: the home page's under home, every page's under always.
    const content = async (name: 'home' | 'always', path: string) =>
      (await get(`/projects/${projects[name].id}/pages/content?url=${encodeURIComponent(url(path))}&format=rawHtml`))
        .body;
    expect((await content('home', '/')).html).toContain('Welcome to the harbour');
    expect((await content('home', '/prices')).html).toBeUndefined();
    expect((await content('always', '/prices')).html).toContain('mooring-price');
  });

  it('compares the markup of the home page under home, and of every page under always', async () => {
    const markup = (name: 'home' | 'always', path: string) =>
      get(`/projects/${projects[name].id}/changes/markup?url=${encodeURIComponent(url(path))}`);
    for (const name of ['home', 'always'] as const) {
      const home = await markup(name, '/');
      expect([name, home.status]).toEqual([name, 200]);
      expect(home.body).toMatchObject({ runId: projects[name].runs[1], baseline: projects[name].runs[0] });
      // Version B lists the new pontoon article on the home page.
      const added = (home.body.changes as { kind: string; after: string | null }[]).filter((c) => c.kind === 'added');
      expect(added.map((c) => c.after)).toContain('A new visitor pontoon');
    }
    const notKept = await markup('home', '/prices');
    expect(notKept.status).toBe(409);
    expect(notKept.body.error).toMatch(/html in both runs/);
    const prices = await markup('always', '/prices');
    expect(prices.status).toBe(200);
    const changes = prices.body.changes as { kind: string; before: string | null; after: string | null }[];
    expect(changes.some((c) => c.before?.includes('$19') && c.after?.includes('$24'))).toBe(true);
  });

  it('previews the content filters on the home page under home, and on any page under always', async () => {
    const preview = (name: 'home' | 'always', page?: string) =>
      t.call('POST', `/projects/${projects[name].id}/content/preview`, {
        key,
        body: page ? { page: url(page), config: { fields: { price: '.mooring-price' } } } : {},
      });
    for (const name of ['home', 'always'] as const) {
      const home = await preview(name);
      expect([name, home.status]).toEqual([name, 200]);
      expect(home.body).toMatchObject({ runId: projects[name].runs[1], verdict: 'ok' });
      expect(home.body.markdown).toContain('Welcome to the harbour');
    }
    const notKept = await preview('home', '/prices');
    expect(notKept.status).toBe(409);
    const prices = await preview('always', '/prices');
    expect(prices.status).toBe(200);
    expect(prices.body.fields).toEqual({ price: '$24' });
  });

  it('explains what the filters removed from the home page under home, and from any page under always', async () => {
    const removed = (name: 'home' | 'always', path: string) =>
      get(`/projects/${projects[name].id}/pages/removed?url=${encodeURIComponent(url(path))}`);
    for (const name of ['home', 'always'] as const) {
      const home = await removed(name, '/');
      expect([name, home.status]).toEqual([name, 200]);
      // The cookie banner is taken out of every harbour page.
      expect(JSON.stringify(home.body)).toContain('We use cookies');
    }
    expect((await removed('home', '/tides')).status).toBe(409);
    const tides = await removed('always', '/tides');
    expect(tides.status).toBe(200);
    expect(JSON.stringify(tides.body)).toContain('We use cookies');
    openApiChecker((await get('/docs/openapi.json')).body).conforms('/projects/{id}/pages/removed', 'get', tides);
  });

  it('searches by selector over the home page under home, and over every page under always', async () => {
    const search = (name: 'home' | 'always') =>
      t.call('POST', `/projects/${projects[name].id}/pages/search`, {
        key,
        body: { q: '#cookie-banner', mode: 'selector' },
      });
    const home = await search('home');
    expect(home.status).toBe(200);
    const pages = home.body.counts.pages as number;
    expect(pages).toBeGreaterThan(5);
    expect(home.body.counts).toMatchObject({ scanned: 1, unscanned: pages - 1, matched: 1 });
    expect(home.body.matches.map((m: { url: string }) => new URL(m.url).pathname)).toEqual(['/']);
    const always = await search('always');
    expect(always.status).toBe(200);
    // Every row that was fetched has its html; the harbour's pages all carry the banner.
    expect(always.body.counts).toMatchObject({ pages, scanned: pages, unscanned: 0 });
    expect(always.body.counts.matched).toBeGreaterThanOrEqual(pages - 1);
  });
});
