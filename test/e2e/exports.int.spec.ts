import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type Page, type Site, type TestWeb } from '@tidemark/testkit';
import { decodeBodies } from '@tidemark/page-store';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { parseCsv } from '../support/csv.js';
import { MB, readJsonlSlowly } from '../support/memory.js';
import { openApiChecker } from '../support/openapi.js';

/** Prose that reads as a real page (the verdict's word floor and the main-content finder). */
const prose = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `<p>The ${topic} notes, part ${i + 1}, cover the pontoon, the fuel berth and the walk along the quay.</p>`,
  ).join('');

const page = (title: string, body: string, head = ''): Page => ({
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>
<nav><a href="/">Home</a></nav><main><h1>${title}</h1>${body}</main></body></html>`,
});
const describe_ = (text: string) => `<meta name="description" content="${text}">`;

/**
 * A small site that changes between runs: the price goes up, /about goes, /guides/new comes.
 * Titles and descriptions are what llms.txt is made of; /knots has a title CSV must quote.
 */
const quaySite = (state: { edition: number }): Site => ({
  '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
  '/': () =>
    page(
      'Quay Guide — Home',
      `${prose('home', 6)}<ul><li><a href="/about">About</a></li><li><a href="/guides/">Guides</a></li>
       <li><a href="/prices">Prices</a></li><li><a href="/knots">Knots</a></li><li><a href="/missing">Old</a></li></ul>`,
      `${describe_('Moorings, tides and prices for visiting boats.')}<meta property="og:site_name" content="Quay Guide">`,
    ),
  '/about': () =>
    state.edition === 1
      ? page('About us', prose('about', 6), describe_('Who runs the quay.'))
      : { status: 404, ...page('Not found', '<p>Nothing here.</p>') },
  '/guides/': () =>
    page(
      'Guides',
      `${prose('guide', 6)}<a href="/guides/tides">Tides</a> <a href="/guides/moorings">Moorings</a>${
        state.edition === 2 ? ' <a href="/guides/new">New</a>' : ''
      }`,
      describe_('All our guides'),
    ),
  '/guides/tides': page(
    'Tides',
    prose('tide', 7),
    `${describe_('When the water comes and goes')}<script type="application/ld+json">{"@type":"Article","dateModified":"2026-02-03T04:05:06+02:00"}</script>`,
  ),
  '/guides/moorings': page(
    'Moorings',
    prose('mooring', 7),
    '<meta property="og:updated_time" content="2025-12-24T18:00:00Z">',
  ),
  '/guides/new': page('New berths', prose('berth', 7), describe_('Ten more berths')),
  '/prices': () =>
    page(
      'Prices',
      `<p class="price">${state.edition === 1 ? '$19' : '$24'}</p>${
        state.edition === 2 ? '<p>Showers are now free for every boat staying two nights in a row.</p>' : ''
      }${prose('price', 6)}<a class="book" href="https://booking.example/quay">Book a berth</a>`,
      describe_('What a night costs'),
    ),
  '/knots': page(
    'Knots, &quot;Rope&quot; &amp; Lines',
    prose('knot', 6),
    describe_('Bowline, cleat hitch and reef knot.'),
  ),
  '/missing': { status: 404, ...page('Not found', '<p>Nothing here.</p>') },
});

/** A tree of `n` pages of about 30 KB of prose each: a run whose export is far larger than a batch. */
const heavySite = (n: number): Site => {
  const body = (i: number) =>
    Array.from(
      { length: 260 },
      (_, k) =>
        `<p>Berth ${i}-${k}: the ${k % 2 ? 'north' : 'south'} pontoon takes boats up to ${(k % 9) + 8} metres.</p>`,
    ).join('');
  const tree = (i: number): Page => {
    const kids = [2 * i + 1, 2 * i + 2].filter((k) => k < n).map((k) => `<a href="/p/${k}">p${k}</a>`);
    return page(`Berth list ${i}`, `${body(i)}${kids.join(' ')}`);
  };
  return {
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
    '/': page('Berths', `${prose('berth', 6)}<a href="/p/0">start</a>`),
    '*': (req) => {
      const m = /^\/p\/(\d+)$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
      const i = m ? Number(m[1]) : -1;
      return i >= 0 && i < n ? tree(i) : { status: 404, ...page('Not found', '<p>Nothing here.</p>') };
    },
  };
};

/** What a JSON value looks like in a CSV cell (text that starts like a formula gets a quote first). */
const cell = (v: unknown): string =>
  v === null || v === undefined
    ? ''
    : typeof v === 'string'
      ? /^[=+\-@\t\r]/.test(v)
        ? `'${v}`
        : v
      : typeof v === 'object'
        ? JSON.stringify(v)
        : String(v);

const jsonl = (text: string): Record<string, unknown>[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const PAGE_COLUMNS = [
  'url',
  'status',
  'httpStatus',
  'verdict',
  'errorCode',
  'shape',
  'warnings',
  'signals',
  'method',
  'tier',
  'credits',
  'billedAs',
  'climbedTo',
  'words',
  'language',
  'title',
  'description',
  'canonical',
  'reason',
  'widget',
  'solved',
  'exitBytes',
  'finalUrl',
  'crawledAt',
  'depth',
  'foundVia',
  'firstReferer',
  'inSitemap',
  'inLinks',
  'orphan',
  'unlisted',
  'origin',
  'head',
  'fields',
];
const CHANGE_COLUMNS = [
  'id',
  'url',
  'kind',
  'wordsAdded',
  'wordsRemoved',
  'section',
  'volatile',
  'volatileBlocks',
  'fields',
  'selectorBreaks',
  'reason',
  'movedFrom',
  'movedTo',
  'reviewed',
  'reviewedAt',
];

describe('exports: datasets of a run streamed as files', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let otherKey: string;
  let projectId: string;
  let firstRun: string;
  let secondRun: string;
  const state = { edition: 1 };
  const u = (path: string) => web.url('quay.test', path);

  /** An export as raw text with its headers. */
  const exportOf = async (
    query: string,
    opts: { key?: string; body?: unknown; project?: string } = {},
  ): Promise<{ status: number; headers: Headers; text: string }> => {
    const res = await fetch(`${t.apiUrl}/projects/${opts.project ?? projectId}/export${query}`, {
      method: opts.body ? 'POST' : 'GET',
      headers: {
        authorization: `Bearer ${opts.key ?? key}`,
        ...(opts.body ? { 'content-type': 'application/json' } : {}),
      },
      body: opts.body ? JSON.stringify(opts.body) : undefined,
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const ok = async (query: string, opts: Parameters<typeof exportOf>[1] = {}) => {
    const res = await exportOf(query, opts);
    expect([res.status, res.status === 200 ? '' : res.text]).toEqual([200, '']);
    return res;
  };
  /** The same dataset as JSON Lines and as CSV: the CSV read back is the JSONL, cell by cell. */
  const bothFormats = async (dataset: string, columns: string[], opts: Parameters<typeof exportOf>[1] = {}) => {
    const runQuery = `&run_id=${secondRun}`;
    const lines = jsonl((await ok(`?dataset=${dataset}${runQuery}`, opts)).text);
    const csv = parseCsv((await ok(`?dataset=${dataset}&format=csv${runQuery}`, opts)).text);
    expect(csv[0]).toEqual(columns);
    for (const row of lines) expect(Object.keys(row)).toEqual(columns);
    expect(csv.slice(1)).toEqual(lines.map((row) => columns.map((c) => cell(row[c]))));
    return lines;
  };

  const runToEnd = async (id: string): Promise<string> => {
    const res = await t.call('POST', `/projects/${id}/runs`, { key });
    expect(res.status).toBe(202);
    for (let i = 0; i < 1200; i++) {
      const changes = await t.call('GET', `/projects/${id}/changes?run_id=${res.body.id}`, { key });
      if (changes.status === 200) return res.body.id as string;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the run did not end');
  };

  beforeAll(async () => {
    web = await startTestWeb();
    web.addSite('quay.test', quaySite(state));
    web.addSite('berths.test', heavySite(2000));
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50' });
    const ws = await t.createWorkspace('exports');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
    await t.db.prisma.ledgerEntry.create({
      data: {
        id: 'led_exports',
        workspaceId: ws.workspaceId,
        kind: 'grant',
        reason: 'test',
        credits: 10_000,
        reference: 'exports',
      },
    });
    otherKey = (await t.createWorkspace('other')).apiKey;
    const project = await t.call('POST', '/projects', {
      key,
      body: {
        seed: u('/'),
        name: 'Quay guide',
        config: {
          useSitemap: false,
          fields: { price: '.price', heading: 'h1', url: { selector: 'a.book', attr: 'href' } },
        },
      },
    });
    expect(project.status).toBe(201);
    projectId = project.body.id;
    firstRun = await runToEnd(projectId);
    state.edition = 2;
    secondRun = await runToEnd(projectId);
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await web?.close();
  });

  /** The run's stored rows, as the oracle for what the export must say. */
  const storedPages = async (runId: string) => {
    const rows = await t.db.prisma.page.findMany({ where: { runId }, orderBy: { url: 'asc' } });
    return rows.map((r) => ({
      url: r.url,
      verdict: r.verdict,
      data: r.data as Record<string, any>,
      markdown: decodeBodies(r.bodies).markdown ?? null,
    }));
  };

  it('lists the datasets, their formats, defaults and fields', async () => {
    const res = await t.call('GET', '/exports', { key });
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: any) => [d.dataset, d.formats, d.defaultFormat])).toEqual([
      ['pages', ['jsonl', 'csv'], 'jsonl'],
      ['markdown', ['jsonl', 'csv'], 'jsonl'],
      ['changes', ['jsonl', 'csv'], 'jsonl'],
      ['fields', ['jsonl', 'csv'], 'jsonl'],
      ['sitemap', ['jsonl', 'csv'], 'jsonl'],
      ['llms', ['txt'], 'txt'],
      ['llms-full', ['txt'], 'txt'],
    ]);
    expect(res.body.data[0].fields).toEqual(PAGE_COLUMNS);
    expect(res.body.data[2].fields).toEqual(CHANGE_COLUMNS);
    // Every field of the catalog is what the OpenAPI document declares.
    openApiChecker((await t.call('GET', '/docs/openapi.json')).body).conforms('/exports', 'get', res);
  });

  it('pages: every row of the run by URL, with the link graph, alike in jsonl and csv', async () => {
    const rows = await bothFormats('pages', PAGE_COLUMNS);
    const stored = await storedPages(secondRun);
    expect(rows.map((r) => r.url)).toEqual(stored.map((s) => s.url));
    const byPath = Object.fromEntries(rows.map((r) => [new URL(String(r.url)).pathname, r]));
    expect(Object.keys(byPath)).toEqual([
      '/',
      '/about',
      '/guides/',
      '/guides/moorings',
      '/guides/new',
      '/guides/tides',
      '/knots',
      '/missing',
      '/prices',
    ]);
    expect(
      Object.fromEntries(Object.entries(byPath).map(([p, r]) => [p, [r.verdict, r.errorCode, r.httpStatus, r.depth]])),
    ).toEqual({
      '/': ['ok', 'OK', 200, 0],
      '/about': ['blocked', 'NOT_FOUND', 404, 1],
      '/guides/': ['ok', 'OK', 200, 1],
      '/guides/moorings': ['ok', 'OK', 200, 2],
      '/guides/new': ['ok', 'OK', 200, 2],
      '/guides/tides': ['ok', 'OK', 200, 2],
      '/knots': ['ok', 'OK', 200, 1],
      '/missing': ['blocked', 'NOT_FOUND', 404, 1],
      '/prices': ['ok', 'OK', 200, 1],
    });
    expect(byPath['/']).toMatchObject({
      status: 'done',
      title: 'Quay Guide — Home',
      description: 'Moorings, tides and prices for visiting boats.',
      foundVia: 'seed',
      firstReferer: null,
      inSitemap: false,
      orphan: false,
      unlisted: false,
      origin: new URL(u('/')).origin,
      tier: 'http',
      credits: 1,
    });
    expect(byPath['/guides/tides']).toMatchObject({
      title: 'Tides',
      foundVia: 'link',
      firstReferer: u('/guides/'),
      inLinks: 1,
    });
    expect(byPath['/knots']!.title).toBe('Knots, "Rope" & Lines');
    expect(byPath['/prices']!.fields).toEqual(stored.find((s) => s.url === u('/prices'))!.data.fields);
    expect(byPath['/prices']!.head).toEqual(stored.find((s) => s.url === u('/prices'))!.data.head);
    // The playground's rung evidence is not part of a row.
    expect(rows.some((r) => 'attempts' in r)).toBe(false);
  });

  it('markdown: url, title and the stored markdown of every page that has one', async () => {
    const rows = await bothFormats('markdown', ['url', 'title', 'markdown']);
    const stored = (await storedPages(secondRun)).filter((s) => s.markdown !== null);
    expect(rows).toEqual(stored.map((s) => ({ url: s.url, title: s.data.head?.title ?? null, markdown: s.markdown })));
    expect(rows.find((r) => r.url === u('/prices'))!.markdown).toContain('$24');
    expect(rows.some((r) => String(r.markdown).includes('\n'))).toBe(true); // multi-line cells went through CSV
  });

  it('changes: the entries of the run’s change record', async () => {
    const rows = await bothFormats('changes', CHANGE_COLUMNS);
    const record = (await t.call('GET', `/projects/${projectId}/changes?run_id=${secondRun}`, { key })).body;
    expect(rows.map((r) => [r.id, r.url, r.kind, r.wordsAdded, r.wordsRemoved, r.section, r.reviewed])).toEqual(
      [...record.entries]
        .sort((a: any, b: any) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0))
        .map((e: any) => [e.id, e.url, e.kind, e.wordsAdded, e.wordsRemoved, e.section, e.reviewed]),
    );
    const kinds = Object.fromEntries(rows.map((r) => [new URL(String(r.url)).pathname, r.kind]));
    expect(kinds).toEqual({
      '/about': 'removed',
      '/guides/': 'modified', // it links /guides/new now
      '/guides/new': 'added',
      '/prices': 'modified',
    });
    expect(rows.find((r) => r.url === u('/prices'))!.fields).toEqual(['price']);

    // A reviewed entry says so in the next export.
    const prices = rows.find((r) => r.url === u('/prices'))!;
    await t.call('POST', `/projects/${projectId}/changes/${String(prices.id)}/review`, {
      key,
      body: { reviewed: true },
    });
    const again = jsonl((await ok(`?dataset=changes&run_id=${secondRun}`)).text).find((r) => r.id === prices.id)!;
    expect(again.reviewed).toBe(true);
    expect(typeof again.reviewedAt).toBe('string');
  });

  it('fields: url and one column per field (a field named url is fields.url); jsonl keeps them nested', async () => {
    const lines = jsonl((await ok(`?dataset=fields&run_id=${secondRun}`)).text);
    const csv = parseCsv((await ok(`?dataset=fields&format=csv&run_id=${secondRun}`)).text);
    const stored = (await storedPages(secondRun)).filter((s) => s.data.fields);
    expect(lines).toEqual(stored.map((s) => ({ url: s.url, fields: s.data.fields })));
    expect(csv[0]).toEqual(['url', 'heading', 'price', 'fields.url']);
    expect(csv.slice(1)).toEqual(
      stored.map((s) => [s.url, cell(s.data.fields.heading), cell(s.data.fields.price), cell(s.data.fields.url)]),
    );
    expect(csv.find((r) => r[0] === u('/prices'))).toEqual([
      u('/prices'),
      'Prices',
      '$24',
      'https://booking.example/quay',
    ]);
    expect(csv.find((r) => r[0] === u('/'))).toEqual([u('/'), 'Quay Guide — Home', '', '']);
  });

  it('sitemap: the usable pages with the lastmod they declare, how they were found, their section', async () => {
    const rows = await bothFormats('sitemap', ['url', 'lastmod', 'source', 'inSitemap', 'section']);
    expect(rows.map((r) => [new URL(String(r.url)).pathname, r.lastmod, r.source, r.inSitemap, r.section])).toEqual([
      ['/', null, 'seed', false, '/'],
      ['/guides/', null, 'link', false, '/guides'],
      ['/guides/moorings', '2025-12-24T18:00:00.000Z', 'link', false, '/guides'],
      ['/guides/new', null, 'link', false, '/guides'],
      ['/guides/tides', '2026-02-03T02:05:06.000Z', 'link', false, '/guides'],
      ['/knots', null, 'link', false, '/knots'],
      ['/prices', null, 'link', false, '/prices'],
    ]);
  });

  it('llms: the usable pages as links with descriptions, grouped by first path segment, under the site title', async () => {
    const res = await ok(`?dataset=llms&run_id=${firstRun}`);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="llms.txt"');
    expect(res.headers.get('x-run-id')).toBe(firstRun);
    expect(res.text).toBe(
      [
        '# Quay Guide',
        '',
        '> Moorings, tides and prices for visiting boats.',
        '',
        `- [Quay Guide — Home](${u('/')}): Moorings, tides and prices for visiting boats.`,
        '',
        '## about',
        '',
        `- [About us](${u('/about')}): Who runs the quay.`,
        '',
        '## guides',
        '',
        `- [Guides](${u('/guides/')}): All our guides`,
        `- [Moorings](${u('/guides/moorings')})`,
        `- [Tides](${u('/guides/tides')}): When the water comes and goes`,
        '',
        '## knots',
        '',
        `- [Knots, "Rope" & Lines](${u('/knots')}): Bowline, cleat hitch and reef knot.`,
        '',
        '## prices',
        '',
        `- [Prices](${u('/prices')}): What a night costs`,
        '',
      ].join('\n'),
    );
  });

  it('llms-full: every usable page’s markdown under its title and a Source: line, in llms order', async () => {
    const res = await ok(`?dataset=llms-full&run_id=${firstRun}`);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="llms-full.txt"');
    const stored = Object.fromEntries((await storedPages(firstRun)).map((s) => [new URL(s.url).pathname, s]));
    const order = ['/', '/about', '/guides/', '/guides/moorings', '/guides/tides', '/knots', '/prices'];
    expect(res.text).toBe(
      order
        .map((p) => `# ${stored[p]!.data.head.title}\n\nSource: ${u(p)}\n\n${stored[p]!.markdown!.trim()}\n`)
        .join('\n'),
    );
    expect(res.text).toContain('# Prices\n\nSource: ');
    expect(res.text).toContain('$19');
  });

  it('defaults to the latest finished run, and names the file and its type', async () => {
    const res = await ok('?dataset=pages&format=csv');
    expect(res.headers.get('x-run-id')).toBe(secondRun);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="quay-guide-pages-${secondRun}.csv"`);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const jsonRes = await ok('?dataset=sitemap');
    expect(jsonRes.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(jsonl(jsonRes.text).map((r) => r.url)).toContain(u('/guides/new'));
  });

  it('POST restricts to the listed URLs, under either scheme and with or without the trailing slash', async () => {
    const urls = [u('/prices').replace('http:', 'https:'), u('/guides'), u('/not-crawled')];
    const pages = jsonl((await ok('', { body: { dataset: 'pages', run_id: firstRun, urls } })).text);
    expect(pages.map((r) => r.url)).toEqual([u('/guides/'), u('/prices')]);
    const csv = parseCsv((await ok('', { body: { dataset: 'markdown', format: 'csv', run_id: firstRun, urls } })).text);
    expect(csv.map((r) => r[0])).toEqual(['url', u('/guides/'), u('/prices')]);

    const llms = await ok('', { body: { dataset: 'llms', run_id: firstRun, urls } });
    expect(llms.text).toBe(
      [
        '# Quay Guide',
        '',
        '> Moorings, tides and prices for visiting boats.',
        '',
        '## guides',
        '',
        `- [Guides](${u('/guides/')}): All our guides`,
        '',
        '## prices',
        '',
        `- [Prices](${u('/prices')}): What a night costs`,
        '',
      ].join('\n'),
    );
    const full = await ok('', { body: { dataset: 'llms-full', run_id: firstRun, urls: [u('/knots')] } });
    expect(full.text.startsWith(`# Knots, "Rope" & Lines\n\nSource: ${u('/knots')}\n\n`)).toBe(true);
    expect(full.text.match(/^Source: /gm)).toHaveLength(1);

    const changes = jsonl((await ok('', { body: { dataset: 'changes', urls: [u('/about/')] } })).text);
    expect(changes.map((r) => [r.url, r.kind])).toEqual([[u('/about'), 'removed']]);

    // An Idempotency-Key keeps nothing: a repeat exports again (a file cannot be replayed).
    const body = { dataset: 'sitemap', format: 'csv', urls: [u('/knots')] };
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'exp-1' };
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${t.apiUrl}/projects/${projectId}/export`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      expect(parseCsv(await res.text()).map((r) => r[0])).toEqual(['url', u('/knots')]);
    }
  });

  it('answers 404 for another workspace’s project or run, and for a project outside a key’s allow-list', async () => {
    const envelope = (res: { status: number; text: string }) => ({ status: res.status, ...JSON.parse(res.text) });
    const other = await exportOf('?dataset=pages', { key: otherKey });
    expect(envelope(other)).toMatchObject({ status: 404, code: 'not_found', request_id: expect.any(String) });
    expect((await exportOf('', { key: otherKey, body: { dataset: 'llms', urls: [u('/')] } })).status).toBe(404);

    // A run of another project (of the same workspace) is not a run of this one.
    const second = await t.call('POST', '/projects', { key, body: { seed: web.url('news.test', '/') } });
    expect(envelope(await exportOf(`?dataset=pages&run_id=${firstRun}`, { project: second.body.id }))).toMatchObject({
      status: 404,
      code: 'not_found',
      error: 'run not found',
    });
    // No finished run yet.
    expect(envelope(await exportOf('?dataset=pages', { project: second.body.id }))).toMatchObject({
      status: 404,
      error: 'finished run not found',
    });
    expect(envelope(await exportOf('?dataset=pages&run_id=run_nothere'))).toMatchObject({ status: 404 });
    expect((await exportOf('?dataset=pages', { project: 'prj_nothere' })).status).toBe(404);

    const limited = await t.createKey(key, { scopes: ['read'], projects: [second.body.id] });
    expect(envelope(await exportOf('?dataset=pages', { key: limited }))).toMatchObject({
      status: 404,
      error: 'project not found',
    });
    const allowed = await t.createKey(key, { scopes: ['read'], projects: [projectId] });
    expect((await exportOf('?dataset=llms', { key: allowed })).status).toBe(200);
  });

  it('refuses a bad dataset, format or body in the envelope', async () => {
    const envelope = (res: { status: number; text: string }) => ({ status: res.status, ...JSON.parse(res.text) });
    expect(envelope(await exportOf('?dataset=everything'))).toMatchObject({ status: 400, code: 'validation' });
    expect(envelope(await exportOf('?dataset=pages&format=xml'))).toMatchObject({ status: 400, code: 'validation' });
    expect(envelope(await exportOf(''))).toMatchObject({ status: 400, code: 'validation' });
    expect(envelope(await exportOf('?dataset=llms&format=csv'))).toMatchObject({
      status: 422,
      code: 'validation',
      error: 'format: dataset llms comes as txt, not "csv"',
    });
    expect(envelope(await exportOf('?dataset=pages&format=txt'))).toMatchObject({ status: 422, code: 'validation' });
    expect(envelope(await exportOf('', { body: { dataset: 'pages', urls: [] } }))).toMatchObject({
      status: 422,
      code: 'validation',
    });
    expect(envelope(await exportOf('', { body: { dataset: 'pages', urls: ['not a url'] } }))).toMatchObject({
      status: 422,
    });
    expect(envelope(await exportOf('', { body: { dataset: 'pages', urls: [u('/')], extra: 1 } }))).toMatchObject({
      status: 422,
    });
    expect(envelope(await exportOf('', { body: { dataset: 'sitemap', format: 'txt', urls: [u('/')] } }))).toMatchObject(
      { status: 422, error: 'format: dataset sitemap comes as jsonl or csv, not "txt"' },
    );
  });
  it('never defaults to a re-crawl run, which exports its own pages when named', async () => {
    const res = await t.call('POST', `/projects/${projectId}/pages/recrawl`, { key, body: { urls: [u('/knots')] } });
    expect(res.status).toBe(202);
    for (let i = 0; i < 600; i++) {
      const changes = await t.call('GET', `/projects/${projectId}/changes?run_id=${res.body.id}`, { key });
      if (changes.status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const latest = await ok('?dataset=sitemap');
    expect(latest.headers.get('x-run-id')).toBe(secondRun);
    expect(jsonl(latest.text)).toHaveLength(7);
    const recrawl = await ok(`?dataset=sitemap&run_id=${String(res.body.id)}`);
    expect(jsonl(recrawl.text).map((r) => r.url)).toEqual([u('/knots')]);
  });

  it('streams a 2,001-page run with a heap that does not grow by the export’s size', async () => {
    const project = await t.call('POST', '/projects', {
      key,
      body: { seed: web.url('berths.test', '/'), config: { useSitemap: false, limit: 3000, concurrency: 8 } },
    });
    const run = await runToEnd(project.body.id);
    expect(await t.db.prisma.page.count({ where: { runId: run, verdict: 'ok' } })).toBe(2001);

    const res = await fetch(`${t.apiUrl}/projects/${project.body.id}/export?dataset=markdown`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    // A slow reader: the gateway and the export service must wait for it, not read ahead.
    const { urls, bytes, rest, peak } = await readJsonlSlowly(res, { sampleBytes: 2 * MB, pauseMs: 50 });
    expect(rest).toBe('');
    expect(urls.size).toBe(2001);
    // About 32 MB went through; what the fleet held at any time was a batch or two of it.
    expect(bytes / MB).toBeGreaterThan(30);
    // Buffered anywhere in the fleet, the peak would be the whole export (measured: 31 MB).
    expect(peak / MB).toBeLessThan(12);
  }, 600_000);
});
