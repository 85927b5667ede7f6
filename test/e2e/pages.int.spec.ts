import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type Answer, type TestFleet } from '../support/fleet.js';
import { openApiChecker } from '../support/openapi.js';

interface Row {
  url: string;
  verdict: string | null;
  words: number;
  crawledAt: string;
  markdown?: string;
  html?: string;
  [k: string]: unknown;
}

/** crawl.test's twelve pages (libs/testkit/src/crawl-site.ts), as a crawl with its sitemap finds them. */
const ALL = [
  '/',
  '/about',
  '/docs/',
  '/docs/a',
  '/docs/b',
  '/docs/deep/1',
  '/docs/deep/2',
  '/docs/deep/3',
  '/orphan',
  '/private/secret',
  '/search?b=2&a=1',
  '/unlisted',
];

describe('the pages of a project’s runs through the fleet (crawl and scrape services over gRPC)', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let otherKey: string;
  /** crawl.test with markdown and raw html kept, run twice. */
  let project: string;
  let run1: string;
  let run2: string;
  let check: ReturnType<typeof openApiChecker>;

  const origin = () => web.url('crawl.test', '').replace(/\/$/, '');
  const path = (url: string) => {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  };
  const paths = (rows: { url: string }[]) => rows.map((r) => path(r.url));
  const sorted = (list: string[]) => [...list].sort();

  const makeProject = async (apiKey: string, config: Record<string, unknown>) => {
    const res = await t.call('POST', '/projects', { key: apiKey, body: { seed: web.url('crawl.test', '/'), config } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  /** Starts a run and waits for it to end. */
  const runOf = async (apiKey: string, projectId: string) => {
    const started = await t.call('POST', `/projects/${projectId}/runs`, { key: apiKey });
    expect(started.status).toBe(202);
    for (let i = 0; i < 600; i++) {
      const res = await t.call('GET', `/projects/${projectId}/runs/${started.body.id}`, { key: apiKey });
      if (!['queued', 'running'].includes(res.body.status))
        return res.body as { id: string; status: string; stop: string };
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('run did not end');
  };
  const get = (p: string, apiKey = key) => t.call('GET', p, { key: apiKey });
  const list = async (query: string) => {
    const res = await get(`/projects/${project}/pages?limit=1000&${query}`);
    expect([query, res.status]).toEqual([query, 200]);
    return paths(res.body.data as Row[]);
  };
  const q = (query: string) => list(`q=${encodeURIComponent(query)}`);
  const search = (body: Record<string, unknown>, projectId = project) =>
    t.call('POST', `/projects/${projectId}/pages/search`, { key, body });
  /** The answer validates against the OpenAPI document's schema for it. */
  const conforms = (p: string, method: string, res: Answer) => check.conforms(p, method, res);

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50' });
    const ws = await t.createWorkspace('pages');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
    otherKey = (await t.createWorkspace('other')).apiKey;
    project = await makeProject(key, { formats: ['markdown', 'rawHtml'] });
    run1 = (await runOf(key, project)).id;
    run2 = (await runOf(key, project)).id;
    check = openApiChecker((await t.call('GET', '/docs/openapi.json')).body);
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
  });

  it('lists the latest finished run’s rows exactly as GET /crawl/{id} shows the same run', async () => {
    const crawl = await t.call('POST', '/crawl', { key, body: { url: web.url('crawl.test', '/') } });
    for (let i = 0; i < 600; i++) {
      const res = await get(`/crawl/${crawl.body.id}?formats=&limit=1`);
      if (!['queued', 'running'].includes(res.body.status)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const kept = await t.call('POST', `/crawl/${crawl.body.id}/keep`, { key, body: { name: 'kept' } });
    const fromCrawl = (await get(`/crawl/${crawl.body.id}?formats=&limit=1000`)).body.data as Row[];
    const res = await get(`/projects/${kept.body.projectId}/pages`);
    expect(res.status).toBe(200);
    conforms('/projects/{id}/pages', 'get', res);
    expect(res.body).toMatchObject({ runId: crawl.body.runId, next: null, cursor: null });
    const byUrl = (rows: Row[]) => [...rows].sort((a, b) => (a.url < b.url ? -1 : 1));
    expect(byUrl(res.body.data)).toEqual(byUrl(fromCrawl));
    expect(sorted(paths(res.body.data))).toEqual(sorted(ALL));
    // In the order the run found the URLs: the seed, then the sitemap's.
    expect(paths(res.body.data).slice(0, 2)).toEqual(['/', '/about']);
    // Bodies only when asked, at most 100 rows then.
    const withBodies = await get(`/projects/${kept.body.projectId}/pages?formats=markdown&limit=2`);
    expect((withBodies.body.data as Row[]).map((r) => typeof r.markdown)).toEqual(['string', 'string']);
    expect(res.body.data[0].markdown).toBeUndefined();
  });

  it('filters by verdict and flag: exact row sets', async () => {
    expect(await list('v=robots')).toEqual(['/private/secret']);
    expect(sorted(await list('v=ok,thin'))).toEqual(sorted(ALL.filter((p) => p !== '/private/secret')));
    expect(sorted(await list('flag=orphan'))).toEqual(['/orphan', '/private/secret']);
    expect(await list('flag=orphan&v=ok')).toEqual(['/orphan']);
    expect(sorted(await list('flag=unlisted'))).toEqual(
      sorted(['/docs/', '/docs/deep/1', '/docs/deep/2', '/docs/deep/3', '/search?b=2&a=1', '/unlisted']),
    );
    // Read pages with no link to a page in scope: /docs/deep/3 and /search link nowhere; the
    // home page's links to other hosts do not make it one (it links /about too).
    expect(sorted(await list('flag=dead_end'))).toEqual(['/docs/deep/3', '/search?b=2&a=1']);
    // The default run is the latest finished one; run_id picks another.
    const res = await get(`/projects/${project}/pages?limit=1&run_id=${run1}`);
    expect(res.body.runId).toBe(run1);
    expect((await get(`/projects/${project}/pages?limit=1`)).body.runId).toBe(run2);
  });

  it('applies the query language: comparisons, fields, quoted values, negation, bare words', async () => {
    expect(sorted(await q('depth:>2'))).toEqual(['/docs/deep/2', '/docs/deep/3']);
    expect(sorted(await q('depth:>=2 depth:<4'))).toEqual(['/docs/deep/1', '/docs/deep/2']);
    expect(sorted(await q('foundVia:sitemap'))).toEqual(['/about', '/docs/a', '/docs/b', '/orphan', '/private/secret']);
    expect(sorted(await q('url:/docs/'))).toEqual(
      sorted(['/docs/', '/docs/a', '/docs/b', '/docs/deep/1', '/docs/deep/2', '/docs/deep/3']),
    );
    expect(sorted(await q('docs -deep'))).toEqual(['/docs/', '/docs/a', '/docs/b']);
    expect(await q('words:<100')).toEqual(['/private/secret']);
    expect(await q('-status:200')).toEqual(['/private/secret']);
    expect(await q('status:403')).toEqual([]);
    expect(await q('verdict:blocked')).toEqual([]);
    expect(sorted(await q('status:200 verdict:ok inSitemap:false'))).toEqual(
      sorted(['/docs/', '/docs/deep/1', '/docs/deep/2', '/docs/deep/3', '/search?b=2&a=1', '/unlisted']),
    );
    expect(sorted(await q('title:"deep t"'))).toEqual(['/docs/deep/2', '/docs/deep/3']);
    expect(sorted(await q('referer:/docs/deep'))).toEqual(['/docs/deep/2', '/docs/deep/3']);
    expect(sorted(await q('deadEnd:true foundVia:link'))).toEqual(['/docs/deep/3', '/search?b=2&a=1']);
    expect(await q('orphan:yes verdict:ok')).toEqual(['/orphan']);
    expect(sorted(await q('unlisted:false orphan:false'))).toEqual(['/', '/about', '/docs/a', '/docs/b']);
    expect(sorted(await q('inLinks:>=3'))).toEqual(['/', '/docs/a']);
    expect(await q('verdict:robots,blocked errorCode:OK')).toEqual([]);
    expect(sorted(await q('status:200,404 depth:0,4'))).toEqual(['/', '/docs/deep/3']);
    expect(await q('"?b=2"')).toEqual(['/search?b=2&a=1']);
    // The brief's example: no page of crawl.test is all of these.
    expect(await q('status:403 depth:>2 verdict:blocked foundVia:sitemap url:/docs/ words:<100')).toEqual([]);
    // LIKE's wildcards are plain characters in a value.
    expect(await q('url:%')).toEqual([]);
    expect(await q('url:_')).toEqual([]);
  });

  it('pages through a filtered set with cursor and next, keeping the query', async () => {
    const seen: string[] = [];
    let next: string | null = `${t.apiUrl}/projects/${project}/pages?limit=4&q=${encodeURIComponent('verdict:ok')}`;
    const sizes: number[] = [];
    while (next) {
      const res = await fetch(next, { headers: { authorization: `Bearer ${key}` } });
      const body = (await res.json()) as { data: Row[]; next: string | null };
      sizes.push(body.data.length);
      seen.push(...paths(body.data));
      next = body.next;
    }
    expect(sizes).toEqual([4, 4, 3]);
    expect(sorted(seen)).toEqual(sorted(ALL.filter((p) => p !== '/private/secret')));
    expect(new Set(seen).size).toBe(11);
  });

  it('answers 400 naming the bad term, and every bad input in the envelope', async () => {
    const bad = async (query: string, term: string, says: RegExp) => {
      const res = await get(`/projects/${project}/pages?q=${encodeURIComponent(query)}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation', request_id: expect.any(String), details: { term } });
      expect(res.body.error).toContain(`term ${term}:`);
      expect(res.body.error).toMatch(says);
    };
    await bad('depth:>two', 'depth:>two', /whole number/);
    await bad('verdict:ok foo:1', 'foo:1', /unknown field "foo"/);
    await bad('url:"unclosed', 'url:"unclosed', /unclosed quote/);
    await bad('verdict:>ok', 'verdict:>ok', /no comparison/);
    await bad('verdict:great', 'verdict:great', /ok, thin, blocked/);
    await bad('orphan:maybe', 'orphan:maybe', /true or false/);
    await bad('depth:', 'depth:', /no value/);
    await bad('url:a"b', 'url:a"b', /quote inside a value/);
    conforms('/projects/{id}/pages', 'get', await get(`/projects/${project}/pages?q=foo:1`));
    for (const query of [
      'v=great',
      'flag=lonely',
      'limit=0',
      'limit=1001',
      'cursor=%25%25',
      'formats=markdown&limit=101',
    ]) {
      const res = await get(`/projects/${project}/pages?${query}`);
      expect([query, res.status, res.body.code]).toEqual([query, 400, 'validation']);
    }
    const cursor = Buffer.from('not a position').toString('base64url');
    expect((await get(`/projects/${project}/pages?cursor=${cursor}`)).status).toBe(400);
    expect((await get(`/projects/${project}/pages/content?url=nope`)).status).toBe(400);
    expect((await get(`/projects/${project}/runs/${run2}/links?kind=hubs`)).status).toBe(400);
    expect((await get(`/projects/${project}/pages?run_id=run_nothere`)).status).toBe(404);
  });

  it('returns one stored page in full under either scheme and slash, with its versions in earlier runs', async () => {
    const https = `${origin().replace('http:', 'https:')}/about/`;
    const res = await get(`/projects/${project}/pages/content?url=${encodeURIComponent(https)}`);
    expect(res.status).toBe(200);
    conforms('/projects/{id}/pages/content', 'get', res);
    expect(res.body).toMatchObject({
      url: `${origin()}/about`,
      runId: run2,
      verdict: 'ok',
      foundVia: 'sitemap',
      inSitemap: true,
      head: { title: 'About' },
    });
    expect(res.body.markdown).toMatch(/^# About\n/);
    expect(res.body.html).toContain('<title>About</title>');
    const first = await get(
      `/projects/${project}/pages/content?url=${encodeURIComponent(`${origin()}/about`)}&run_id=${run1}`,
    );
    expect(first.body.runId).toBe(run1);
    expect(first.body.versions).toEqual([]);
    expect(res.body.versions).toEqual([
      { runId: run1, runStatus: 'done', crawledAt: first.body.crawledAt, verdict: 'ok', words: first.body.words },
    ]);
    // format picks the bodies.
    const md = await get(`/projects/${project}/pages/content?url=${encodeURIComponent(https)}&format=markdown`);
    expect(md.body.markdown).toBe(res.body.markdown);
    expect(md.body.html).toBeUndefined();
    // A robots row is a page of the run with no bodies.
    const robots = await get(
      `/projects/${project}/pages/content?url=${encodeURIComponent(`${origin()}/private/secret`)}`,
    );
    expect(robots.body).toMatchObject({ verdict: 'robots', versions: [{ runId: run1, verdict: 'robots', words: 0 }] });
    expect(robots.body.markdown).toBeUndefined();
    const missing = await get(`/projects/${project}/pages/content?url=${encodeURIComponent(`${origin()}/nope`)}`);
    expect(missing.status).toBe(404);
    conforms('/projects/{id}/pages/content', 'get', missing);
  });

  it('serves the stored JPEG, and 404 when the page has none', async () => {
    const home = encodeURIComponent(`${origin()}/`);
    const none = await get(`/projects/${project}/pages/screenshot?url=${home}`);
    expect(none.status).toBe(404);
    expect(none.body).toMatchObject({ code: 'not_found' });
    // No browser runs in these tests: a JPEG written onto the stored row stands in for a render.
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0xff, 0xd9]);
    const updated = await t.db.prisma.page.updateMany({
      where: { runId: run2, url: `${origin()}/` },
      data: { screenshot: new Uint8Array(jpeg) },
    });
    expect(updated.count).toBe(1);
    const res = await fetch(`${t.apiUrl}/projects/${project}/pages/screenshot?url=${home}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(jpeg);
    // Only that run's row has it.
    expect((await get(`/projects/${project}/pages/screenshot?url=${home}&run_id=${run1}`)).status).toBe(404);
  });

  it('lists link-graph sets by URL with their coverage', async () => {
    const set = async (projectId: string, runId: string, kind: string, extra = '') => {
      const res = await get(`/projects/${projectId}/runs/${runId}/links?kind=${kind}${extra}`);
      expect(res.status).toBe(200);
      conforms('/projects/{id}/runs/{run}/links', 'get', res);
      return res.body;
    };
    const orphans = await set(project, run2, 'orphans');
    expect(paths(orphans.data)).toEqual(['/orphan', '/private/secret']);
    expect(orphans.coverage).toEqual({
      verdict: true,
      reason: null,
      stop: 'exhausted',
      read: 11,
      unread: 0,
      sitemapUrls: 6,
      unscanned: 0,
    });
    expect(orphans.data[0]).toEqual({
      url: `${origin()}/orphan`,
      depth: 1,
      foundVia: 'sitemap',
      firstReferer: null,
      inSitemap: true,
      inLinks: 0,
      outLinks: 1,
      verdict: 'ok',
      errorCode: 'OK',
      httpStatus: 200,
    });
    // orphans is the default set.
    expect((await get(`/projects/${project}/runs/${run2}/links`)).body.data).toEqual(orphans.data);
    const dead = await set(project, run2, 'dead_ends');
    expect(paths(dead.data)).toEqual(['/docs/deep/3', '/search?b=2&a=1']);
    expect(dead.coverage).toMatchObject({ verdict: true, unscanned: 0 });

    // Paged by URL.
    const pages: string[][] = [];
    let cursor = '';
    for (let i = 0; i < 10; i++) {
      const body = await set(project, run2, 'unlisted', `&limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(paths(body.data));
      if (!body.cursor) break;
      expect(body.next).toContain(`kind=unlisted`);
      cursor = body.cursor;
    }
    expect(pages).toEqual([
      ['/docs/', '/docs/deep/1', '/docs/deep/2', '/docs/deep/3'],
      ['/search?b=2&a=1', '/unlisted'],
    ]);

    // Without the sitemap no page is listed: nothing is an orphan or unlisted, and neither set is a verdict.
    const noMap = await makeProject(key, { useSitemap: false });
    const noMapRun = (await runOf(key, noMap)).id;
    const noOrphans = await set(noMap, noMapRun, 'orphans');
    expect(noOrphans.data).toEqual([]);
    expect(noOrphans.coverage).toMatchObject({ verdict: false, sitemapUrls: 0 });
    expect(noOrphans.coverage.reason).toMatch(/no sitemap/);
    expect((await set(noMap, noMapRun, 'unlisted')).coverage.verdict).toBe(false);

    // A run stopped at its limit: its orphans are not a verdict (unread pages may link them);
    // its unlisted pages still are (each was linked and is in no sitemap).
    const limited = await makeProject(key, { limit: 4 });
    const limitedRun = await runOf(key, limited);
    expect(limitedRun.stop).toBe('limit');
    const limitedOrphans = await set(limited, limitedRun.id, 'orphans');
    expect(limitedOrphans.coverage).toMatchObject({ verdict: false, stop: 'limit' });
    expect(limitedOrphans.coverage.reason).toMatch(/stopped early \(limit\)/);
    expect((await set(limited, limitedRun.id, 'unlisted')).coverage).toMatchObject({ verdict: true, reason: null });

    // A run of another project is not this project's.
    expect((await get(`/projects/${project}/runs/${noMapRun}/links`)).status).toBe(404);
  });

  it('searches stored markdown for words and quoted phrases, counting pages without it', async () => {
    const res = await search({ q: 'doca7', mode: 'content' });
    expect(res.status).toBe(200);
    conforms('/projects/{id}/pages/search', 'post', res);
    // The robots row stored nothing: counted, not guessed.
    expect(res.body).toMatchObject({
      runId: run2,
      mode: 'content',
      counts: { pages: 12, scanned: 11, unscanned: 1, matched: 1 },
      truncated: false,
    });
    // "doca7" appears twice on Doc A (60 words numbered i*7 mod 31: i = 1 and 32).
    expect(res.body.matches).toEqual([
      { url: `${origin()}/docs/a`, count: 2, snippet: expect.stringContaining('doca7 tide harbour'), body: 'markdown' },
    ]);
    // All terms must appear; a phrase counts as one term; case does not matter.
    const phrase = await search({ q: '"TIDE harbour" doca7' });
    expect(phrase.body.matches).toEqual([expect.objectContaining({ url: `${origin()}/docs/a`, count: 62 })]);
    expect((await search({ q: 'doca7 deepone0' })).body.counts).toMatchObject({ matched: 0 });
    // Whole words: "doca" is not "doca7".
    expect((await search({ q: 'doca' })).body.matches).toEqual([]);
    // Every read page says "tide harbour"; the most matches first, then by URL.
    const all = await search({ q: '"tide harbour"', run_id: run1 });
    expect(all.body).toMatchObject({ runId: run1, counts: { matched: 11, unscanned: 1 } });
    expect(all.body.matches.every((m: { count: number }) => m.count === 60)).toBe(true);
    expect(all.body.matches.map((m: { url: string }) => m.url)).toEqual(
      sorted(ALL.filter((p) => p !== '/private/secret').map((p) => `${origin()}${p}`)),
    );
    const empty = await search({ q: '"" doca7' });
    expect(empty.status).toBe(422);
    expect(empty.body).toMatchObject({ code: 'validation' });
    expect(empty.body.error).toMatch(/^body\.q: /);
    expect((await search({ q: 'x', mode: 'regex' })).status).toBe(422);
    expect((await search({ q: '' })).status).toBe(422);
  });

  it('searches stored html with CSS or XPath; pages without html are counted, not guessed', async () => {
    const css = await search({ q: 'article h1', mode: 'selector' });
    expect(css.status).toBe(200);
    expect(css.body.counts).toEqual({ pages: 12, scanned: 11, unscanned: 1, matched: 11 });
    expect(css.body.matches.find((m: { url: string }) => m.url === `${origin()}/docs/deep/2`)).toEqual({
      url: `${origin()}/docs/deep/2`,
      count: 1,
      snippet: 'Deep two',
      body: 'html',
    });
    const xpath = await search({ q: '//li/a[contains(@href, "docs")]', mode: 'selector' });
    expect(xpath.body.matches.map((m: { url: string; count: number }) => [path(m.url), m.count])).toEqual([
      ['/docs/', 3],
      ['/', 2],
      ['/docs/a', 1],
      ['/docs/b', 1],
      ['/docs/deep/1', 1],
      ['/docs/deep/2', 1],
    ]);
    // "(" starts XPath too: the first list item of each page that has one.
    const firstItem = await search({ q: '(//li)[1]', mode: 'selector' });
    expect(sorted(firstItem.body.matches.map((m: { url: string }) => path(m.url)))).toEqual(
      sorted(['/', '/about', '/docs/', '/docs/a', '/docs/b', '/docs/deep/1', '/docs/deep/2', '/orphan', '/unlisted']),
    );
    expect(firstItem.body.matches.find((m: { url: string }) => path(m.url) === '/').snippet).toBe('/about');
    const invalid = await search({ q: 'a[[', mode: 'selector' });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error).toMatch(/^body\.q: invalid CSS selector/);
    expect(invalid.body.details).toEqual({ fields: [{ field: 'body.q', message: expect.any(String) }] });
    const badXPath = await search({ q: '//li[', mode: 'selector' });
    expect(badXPath.status).toBe(422);
    expect(badXPath.body.error).toMatch(/^body\.q: invalid XPath selector/);

    // A project that keeps markdown only: the home page's html is kept (store_html home, the
    // default), no other page's.
    const mdOnly = await makeProject(key, { useSitemap: false, limit: 3 });
    await runOf(key, mdOnly);
    const homeOnly = await search({ q: 'h1', mode: 'selector' }, mdOnly);
    expect(homeOnly.body).toMatchObject({ counts: { pages: 3, scanned: 1, unscanned: 2, matched: 1 } });
    expect(homeOnly.body.matches.map((m: { url: string }) => path(m.url))).toEqual(['/']);
    // store_html always keeps every page's.
    const allHtml = await makeProject(key, { useSitemap: false, limit: 3, store_html: 'always' });
    await runOf(key, allHtml);
    const every = await search({ q: 'h1', mode: 'selector' }, allHtml);
    expect(every.body).toMatchObject({ counts: { pages: 3, scanned: 3, unscanned: 0, matched: 3 } });
  });

  it('counts selector matches on stored html, and previews the content filters on a stored page', async () => {
    const match = await t.call('POST', `/projects/${project}/selectors/match`, {
      key,
      body: { selectors: ['article h1', '//li/a[contains(@href, "docs")]', '.nothing-here'] },
    });
    expect(match.status).toBe(200);
    expect(match.body.runId).toBe(run2);
    expect(
      match.body.selectors.map((r: { selector: string; pages: number; nodes: number }) => [
        r.selector,
        r.pages,
        r.nodes,
      ]),
    ).toEqual([
      ['article h1', 11, 11],
      ['//li/a[contains(@href, "docs")]', 6, 9],
      ['.nothing-here', 0, 0],
    ]);
    expect(match.body.selectors[0]).toMatchObject({ scanned: 11, unscanned: 1 });
    conforms('/projects/{id}/selectors/match', 'post', match);
    const bad = await t.call('POST', `/projects/${project}/selectors/match`, { key, body: { selectors: ['a[['] } });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatch(/^body\.selectors\[0\]: /);

    const home = await t.call('POST', `/projects/${project}/content/preview`, { key, body: {} });
    expect(home.status).toBe(200);
    expect(home.body).toMatchObject({ runId: run2, url: `${origin()}/`, verdict: expect.any(String) });
    expect(home.body.markdown.length).toBeGreaterThan(0);
    conforms('/projects/{id}/content/preview', 'post', home);
    // Unsaved changes apply to the preview only: a field, and the whole page instead of its main content.
    const draft = await t.call('POST', `/projects/${project}/content/preview`, {
      key,
      body: { page: `${origin()}/docs/a`, config: { fields: { heading: 'h1' }, only_main_content: false } },
    });
    expect(draft.status).toBe(200);
    expect(draft.body.fields).toEqual({ heading: 'Doc A' });
    conforms('/projects/{id}/content/preview', 'post', draft);
    const main = await t.call('POST', `/projects/${project}/content/preview`, {
      key,
      body: { page: `${origin()}/docs/a` },
    });
    expect(draft.body.words).toBeGreaterThan(main.body.words);
    expect((await get(`/projects/${project}`)).body.config.content.fields).toEqual({});
    // A page whose html was not stored cannot be previewed; a bad config key is named.
    const mdOnly = await makeProject(key, { useSitemap: false, limit: 3 });
    await runOf(key, mdOnly);
    const notStored = await t.call('POST', `/projects/${mdOnly}/content/preview`, {
      key,
      body: { page: `${origin()}/about` },
    });
    expect(notStored.status).toBe(409);
    const badKey = await t.call('POST', `/projects/${project}/content/preview`, { key, body: { config: { nope: 1 } } });
    expect(badKey.status).toBe(422);
    expect((await t.call('POST', `/projects/${project}/content/preview`, { key: otherKey, body: {} })).status).toBe(
      404,
    );
  });

  it('answers 404 for another workspace, and for a run of another workspace named under this project', async () => {
    const url = encodeURIComponent(`${origin()}/`);
    for (const p of [
      `/projects/${project}/pages`,
      `/projects/${project}/pages/content?url=${url}`,
      `/projects/${project}/pages/screenshot?url=${url}`,
      `/projects/${project}/runs/${run2}/links`,
    ]) {
      const res = await get(p, otherKey);
      expect([p, res.status, res.body.code]).toEqual([p, 404, 'not_found']);
    }
    const searched = await t.call('POST', `/projects/${project}/pages/search`, { key: otherKey, body: { q: 'x' } });
    expect(searched.status).toBe(404);
    const theirs = await makeProject(otherKey, { useSitemap: false, limit: 2 });
    const theirRun = (await runOf(otherKey, theirs)).id;
    for (const p of [
      `/projects/${project}/pages?run_id=${theirRun}`,
      `/projects/${project}/pages/content?url=${url}&run_id=${theirRun}`,
      `/projects/${project}/runs/${theirRun}/links`,
    ]) {
      expect([p, (await get(p)).status]).toEqual([p, 404]);
    }
    expect((await search({ q: 'x', run_id: theirRun })).status).toBe(404);
    // Their own project has its pages.
    expect((await get(`/projects/${theirs}/pages`, otherKey)).body.data).toHaveLength(2);
    // A project without a finished run has no default run.
    const fresh = await makeProject(key, {});
    expect((await get(`/projects/${fresh}/pages`)).status).toBe(404);
  });

  it('never takes a re-crawl run for the site: not the default run, and its graph sets are no verdict', async () => {
    const started = await t.call('POST', `/projects/${project}/pages/recrawl`, {
      key,
      body: { urls: [`${origin()}/about`, `${origin()}/docs/deep/3`] },
    });
    expect(started.status).toBe(202);
    let recrawl = started.body;
    for (let i = 0; i < 600 && ['queued', 'running'].includes(recrawl.status); i++) {
      await new Promise((r) => setTimeout(r, 100));
      recrawl = (await get(`/projects/${project}/runs/${started.body.id}`)).body;
    }
    expect(recrawl).toMatchObject({ status: 'done', trigger: 'recrawl' });
    expect((await get(`/projects/${project}/pages?limit=1`)).body.runId).toBe(run2);
    const its = await get(`/projects/${project}/pages?run_id=${recrawl.id}`);
    expect(sorted(paths(its.body.data))).toEqual(['/about', '/docs/deep/3']);
    const orphans = await get(`/projects/${project}/runs/${recrawl.id}/links?kind=orphans`);
    expect(orphans.body.coverage).toMatchObject({ verdict: false, reason: expect.stringMatching(/^a re-crawl run/) });
    // Each page's own links still say whether it is a dead end.
    const dead = await get(`/projects/${project}/runs/${recrawl.id}/links?kind=dead_ends`);
    expect(dead.body).toMatchObject({ coverage: { verdict: true } });
    expect(paths(dead.body.data)).toEqual(['/docs/deep/3']);
    // Its copy of /about is a version of the page, newest first.
    const latest = await get(
      `/projects/${project}/pages/content?url=${encodeURIComponent(`${origin()}/about`)}&run_id=${recrawl.id}`,
    );
    expect(latest.body.versions.map((v: { runId: string }) => v.runId)).toEqual([run2, run1]);
  });
});
