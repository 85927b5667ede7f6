import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FORMULA_TITLES, patternsSite, PATTERNS_SITE, startTestWeb, type TestWeb } from '@tidemark/testkit';
import { parseCsv } from '../support/csv.js';
import { openApiChecker } from '../support/openapi.js';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

/**
 * Work on patterns a caller writes (globs, XPath, CSS) over pages the web wrote: bounded by
 * construction or by a budget, answering 422 or a per-page reason, never holding a worker.
 * docs/security.md, "Bounded work on untrusted patterns".
 */
describe('bounded work on untrusted patterns, through the fleet', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let readKey: string;

  /** XPath 3.1 that counts to a trillion for every <p>: it ends only when its thread is ended. */
  const LOOPING_XPATH = '//p[count(for $i in 1 to 1000000000000 return $i) > 0]';

  /** picomatch's regex for this backtracks for minutes against PATTERNS_SITE.longA (41 characters). */
  const PATHOLOGICAL_GLOB = '*a*a*a*a*a*a*a*a*a*a*a*b';

  beforeAll(async () => {
    web = await startTestWeb();
    web.addSite('patterns.test', patternsSite());
    // A short reading budget, so a selector that never ends is ended soon (15 s by default).
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50', SCRAPE_READ_BUDGET_MS: '1500' });
    const ws = await t.createWorkspace('patterns');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
    readKey = await t.createKey(key, { scopes: ['read'] });
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
  });

  const seed = () => web.url('patterns.test', '/');
  const pathsOf = (urls: string[]) => urls.map((u) => new URL(u).pathname).sort();

  const finishedRun = async (projectId: string) => {
    const started = await t.call('POST', `/projects/${projectId}/runs`, { key });
    expect(started.status).toBe(202);
    for (const until = Date.now() + 150_000; Date.now() < until;) {
      const res = await t.call('GET', `/projects/${projectId}/runs/${started.body.id}`, { key });
      if (!['queued', 'running'].includes(res.body.status)) return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('run did not end');
  };

  describe('globs', () => {
    let projectId: string;

    beforeAll(async () => {
      const res = await t.call('POST', '/projects', { key, body: { seed: seed(), config: { useSitemap: false } } });
      expect(res.status).toBe(201);
      projectId = res.body.id;
      expect(await finishedRun(projectId)).toMatchObject({ status: 'done' });
    }, 180_000);

    it('dry-runs a backtracking glob with a read key: it answers, and judges each URL right', async () => {
      const dry = await t.call('POST', `/projects/${projectId}/dry-run`, {
        key: readKey,
        body: { include_paths: [PATHOLOGICAL_GLOB] },
      });
      expect(dry.status).toBe(200);
      // The seed is always in; of the rest only the path ending in b matches.
      expect(pathsOf(dry.body.verdicts.in.urls)).toEqual(['/', PATTERNS_SITE.longAB]);
      expect(dry.body.verdicts.in.count).toBe(2);
      expect(dry.body.verdicts.not_included.count).toBe(dry.body.known - 2);
      expect(pathsOf(dry.body.verdicts.not_included.urls)).toContain(PATTERNS_SITE.longA);
    });

    it('refuses a draft whose globs would cost more than a request may spend, with a clear 422', async () => {
      // Four globs of 486 characters (the list may hold 2,000) over eight known paths of 1,950 a's and b's.
      const costly = Array.from({ length: 4 }, (_, i) => `/*a${'?'.repeat(480)}${'cdef'[i]}*`);
      const dry = await t.call('POST', `/projects/${projectId}/dry-run`, {
        key: readKey,
        body: { exclude_paths: costly },
      });
      expect(dry.status).toBe(422);
      expect(dry.body).toMatchObject({ code: 'validation', request_id: expect.any(String) });
      expect(dry.body.error).toMatch(/more matching work than a request may spend.*fewer or simpler globs/);

      const preview = await t.call('POST', `/projects/${projectId}/sources/preview`, {
        key,
        body: { include_paths: costly },
      });
      expect(preview.status).toBe(422);
      expect(preview.body.error).toMatch(/more matching work than a request may spend/);
    });

    it('bounds glob lists at the API: 500 characters a glob, 200 globs, 2,000 characters a list', async () => {
      const tooLong = await t.call('POST', `/projects/${projectId}/dry-run`, {
        key: readKey,
        body: { include_paths: [`/${'x'.repeat(500)}`] },
      });
      expect(tooLong.status).toBe(422);
      expect(tooLong.body.error).toMatch(/include_paths/);
      const tooMuch = await t.call('PATCH', `/projects/${projectId}`, {
        key,
        body: { config: { exclude_paths: Array.from({ length: 5 }, (_, i) => `/${String(i).repeat(450)}`) } },
      });
      expect(tooMuch.status).toBe(422);
      expect(tooMuch.body.error).toMatch(/exclude_paths.*2,000 characters of globs/);
      const crawl = await t.call('POST', '/crawl', {
        key,
        body: { url: seed(), includePaths: Array.from({ length: 201 }, (_, i) => `/p${i}`) },
      });
      expect(crawl.status).toBe(422);
      expect(crawl.body.error).toMatch(/includePaths|include_paths/);
    });

    it('crawls with the backtracking glob as includePaths: the crawl ends, with the one long path it matches', async () => {
      const res = await t.call('POST', '/crawl', {
        key,
        body: { url: seed(), includePaths: [PATHOLOGICAL_GLOB], useSitemap: false },
      });
      expect(res.status).toBe(202);
      let end: any;
      for (let i = 0; i < 600 && !end; i++) {
        const poll = await t.call('GET', `/crawl/${res.body.id}?formats=&limit=100`, { key });
        if (!['queued', 'running'].includes(poll.body.status)) end = poll.body;
        else await new Promise((r) => setTimeout(r, 100));
      }
      expect(end).toMatchObject({ status: 'done' });
      expect(pathsOf(end.data.map((r: { url: string }) => r.url))).toEqual(['/', PATTERNS_SITE.longAB]);
      expect(web.hits.filter((h) => h.host === 'patterns.test' && h.path === PATTERNS_SITE.longA).length).toBe(1);
    });
  });

  describe('XPath and CSS over pages', () => {
    let projectId: string;

    beforeAll(async () => {
      const res = await t.call('POST', '/projects', {
        key,
        body: { seed: seed(), config: { useSitemap: false, store_html: 'always' } },
      });
      expect(res.status).toBe(201);
      projectId = res.body.id;
      expect(await finishedRun(projectId)).toMatchObject({ status: 'done' });
    }, 180_000);

    it('answers 422 for a search selector that outruns the reading budget on a page, and searches on after it', async () => {
      const res = await t.call('POST', `/projects/${projectId}/pages/search`, {
        key: readKey,
        body: { mode: 'selector', q: LOOPING_XPATH },
      });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'validation', request_id: expect.any(String) });
      expect(res.body.error).toMatch(
        /^body\.q: matching the selector took more than its budget of 1500 ms on http:\/\/patterns\.test:\d+\/.*; use a simpler selector$/,
      );
      const after = await t.call('POST', `/projects/${projectId}/pages/search`, {
        key: readKey,
        body: { mode: 'selector', q: '//span[@class="price"]' },
      });
      expect(after.status).toBe(200);
      expect(after.body.matches.map((m: { url: string }) => new URL(m.url).pathname).sort()).toEqual(
        [...PATTERNS_SITE.products].sort(),
      );
    });

    it('answers 422 for such a selector in selectors/match', async () => {
      const res = await t.call('POST', `/projects/${projectId}/selectors/match`, {
        key: readKey,
        body: { selectors: ['.price', LOOPING_XPATH] },
      });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatch(/took more than its budget of 1500 ms/);
    });

    it("answers 422 when the project's own exclude selectors outrun the budget in pages/removed", async () => {
      // A page with a long list, stored as read under a plain config; then the project's
      // exclude_tags become :nth-last-child(), which counts each item's siblings: quadratic in the
      // list (the selector alone 8.9 s at 10,000 items here, 44 s at 20,000). At 10,000 the plain
      // reading (~0.25 s) and the selectors (~6× the budget) are as far from the 1.5 s budget on
      // either side. The budget is the thread's CPU time: on a loaded machine the plain reading
      // took over 1.5 s on the wall clock once, when the budget was wall time.
      const items = 10_000;
      web.addSite('deep.test', {
        '/': {
          type: 'text/html',
          body: `<html><head><title>Deep</title></head><body><h1>Deep</h1><p>${'Words of a page. '.repeat(40)}</p><a href="/deep">deep</a></body></html>`,
        },
        '/deep': {
          type: 'text/html',
          body: `<html><head><title>Deeper</title></head><body><p>${'Words of a page. '.repeat(40)}</p><ul>${'<li>High water 06:12</li>'.repeat(items)}</ul></body></html>`,
        },
      });
      const made = await t.call('POST', '/projects', {
        key,
        body: { seed: web.url('deep.test', '/'), config: { useSitemap: false, store_html: 'always' } },
      });
      expect(made.status).toBe(201);
      expect(await finishedRun(made.body.id)).toMatchObject({ status: 'done' });
      const removed = () =>
        t.call(
          'GET',
          `/projects/${made.body.id}/pages/removed?url=${encodeURIComponent(web.url('deep.test', '/deep'))}`,
          {
            key: readKey,
          },
        );
      const first = await removed();
      expect([first.status, first.body.error]).toEqual([200, undefined]);
      const patched = await t.call('PATCH', `/projects/${made.body.id}`, {
        key,
        body: { config: { exclude_tags: [':nth-last-child(2)'] } },
      });
      expect(patched.status).toBe(200);
      const res = await removed();
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'validation', request_id: expect.any(String) });
      // The budget's verdict: the selectors' thread was ended at 1500 ms of CPU, not left to run for minutes.
      expect(res.body.error).toMatch(
        /^config\.content: finding what the content filters remove took more than its budget of 1500 ms on this page; use simpler include_tags and exclude_tags selectors$/,
      );
      openApiChecker((await t.call('GET', '/docs/openapi.json')).body).conforms(
        '/projects/{id}/pages/removed',
        'get',
        res,
      );
    }, 200_000);

    it('scrapes and crawls with such a field: every page read, its fields null with the reason', async () => {
      const fields = { heading: 'h1', forever: LOOPING_XPATH };
      const one = await t.call('POST', '/scrape', {
        key,
        body: { url: web.url('patterns.test', PATTERNS_SITE.products[0]!), formats: 'markdown', config: { fields } },
      });
      expect(one.status).toBe(200);
      const page = one.body.data[0];
      expect(page).toMatchObject({ verdict: 'ok', errorCode: 'OK', fields: { heading: null, forever: null } });
      expect(page.markdown).toContain('Product anchor-chain');
      expect(page.warnings).toContain("fields not read: the page's fields outran its reading budget of 1500 ms");

      const crawl = await t.call('POST', '/crawl', {
        key,
        body: { url: seed(), useSitemap: false, limit: 4, config: { fields } },
      });
      expect(crawl.status).toBe(202);
      // Each page's fields run out a budget and its thread is replaced: on a loaded machine a
      // crawl of four such pages may take a while, so the wait is by the clock, not by polls.
      let end: any;
      for (const until = Date.now() + 150_000; !end && Date.now() < until;) {
        const poll = await t.call('GET', `/crawl/${crawl.body.id}?formats=markdown&limit=100`, { key });
        if (!['queued', 'running'].includes(poll.body.status)) end = poll.body;
        else await new Promise((r) => setTimeout(r, 100));
      }
      expect(end?.status).toBe('done');
      expect(end.data.length).toBe(4);
      for (const row of end.data) {
        expect([row.url, row.verdict, row.fields]).toEqual([row.url, 'ok', { heading: null, forever: null }]);
        expect(row.markdown.length).toBeGreaterThan(500);
      }
    }, 200_000);
  });

  describe('CSV exports', () => {
    it('neutralises every cell that starts with =, +, -, @, tab or CR: a quote in front, the cell quoted', async () => {
      // Field names are cells too (the fields dataset's header): one per dangerous character.
      const fields = {
        '=title': 'h1',
        '+note': '.formula',
        '-price': '.price',
        '@sku': '.sku',
        '\tlead': '.lead',
        '\rh1': 'h1',
      };
      const made = await t.call('POST', '/projects', {
        key,
        body: { seed: seed(), config: { useSitemap: false, fields } },
      });
      expect(made.status).toBe(201);
      const run = await finishedRun(made.body.id);
      expect(run).toMatchObject({ status: 'done' });
      const exported = async (dataset: string) => {
        const res = await fetch(`${t.apiUrl}/projects/${made.body.id}/export?dataset=${dataset}&format=csv`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(res.status).toBe(200);
        return res.text();
      };

      // pages: the titles the site wrote (=, +, - and @ first; tab and CR are trimmed from titles).
      const pagesText = await exported('pages');
      const pages = parseCsv(pagesText);
      const titleAt = pages[0]!.indexOf('title');
      const titles = pages.slice(1).map((r) => r[titleAt]);
      for (const title of FORMULA_TITLES.slice(0, 4)) {
        expect(titles).toContain(`'${title}`);
        expect(pagesText).toContain(`"'${title.replace(/"/g, '""')}"`);
      }
      // Nothing else was touched: every other title reads as written.
      expect(titles.filter((x) => x?.startsWith("'"))).toHaveLength(4);

      // fields: the header's names, and values a page wrote.
      const fieldsText = await exported('fields');
      const rows = parseCsv(fieldsText);
      // Columns come sorted by name.
      expect(rows[0]).toEqual([
        'url',
        ...Object.keys(fields)
          .sort()
          .map((name) => `'${name}`),
      ]);
      for (const name of Object.keys(fields)) expect(fieldsText).toContain(`"'${name}"`);
      const noteAt = rows[0]!.indexOf("'+note");
      const notes = rows.slice(1).map((r) => r[noteAt]);
      expect(notes).toEqual(expect.arrayContaining(FORMULA_TITLES.slice(0, 4).map((title) => `'${title}`)));
      // A value that does not start like a formula stays as it is.
      const priceAt = rows[0]!.indexOf("'-price");
      expect(rows.slice(1).map((r) => r[priceAt])).toContain('19.50');
    });
  });
});
