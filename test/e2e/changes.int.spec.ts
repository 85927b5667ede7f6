import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type Site, type TestWeb } from '@tidemark/testkit';
import { recordEvents, type RecordedEvent } from '../support/events.js';
import { startTestFleet, type Answer, type TestFleet } from '../support/fleet.js';
import { openApiChecker } from '../support/openapi.js';
import { comparedRun } from '../support/runs.js';

/** Prose that reads as a real page (the verdict's word floor and the main-content finder). */
const prose = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `<p>The ${topic} harbour guide, part ${i + 1}, covers moorings, tides and the walk along the quay for visitors.</p>`,
  ).join('');

const page = (title: string, body: string, headTitle = title) => ({
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html lang="en"><head><title>${headTitle}</title></head><body>
<nav><a href="/">Home</a> <a href="/a">Prices</a> <a href="/b">Moorings</a></nav><main><h1>${title}</h1>${body}</main></body></html>`,
});

/**
 * A site that changes between runs: the price page gets a real edit, one page goes and one
 * comes, and the home page's timestamp changes every run (noise, not a change).
 */
const changingSite = (state: { edition: number }): Site => ({
  '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
  '/': () =>
    state.edition === 5
      ? { status: 503, type: 'text/html', body: '<html><body>Down for maintenance</body></html>' }
      : page(
          'Harbour',
          `<p>Updated ${state.edition === 1 ? '2026-11-20 10:00:01' : '2026-11-21 08:14:55'}</p>${prose('home', 8)}
       <ul><li><a href="/a">Prices</a></li><li><a href="/b">Moorings</a></li>
       <li><a href="${state.edition === 1 ? '/gone' : '/new'}">News</a></li></ul>`,
          // The head's title changes on the second run (the page's text does not): field.canonical.
          state.edition === 1 ? 'Harbour' : 'Harbour – visitors welcome',
        ),
  '/a': () =>
    page(
      'Prices',
      `<h2>Pricing</h2><p>A day mooring costs ${['', '$19', '$24', '$29'][state.edition]} at the visitor pontoon.</p>${
        state.edition >= 2 ? '<p>Showers are now free for every boat staying two nights.</p>' : ''
      }${prose('price', 6)}`,
    ),
  '/b': () =>
    state.edition === 4
      ? { status: 403, type: 'text/html', body: '<html><body><h1>Access denied</h1></body></html>' }
      : page('Moorings', prose('mooring', 10)),
  '/gone': () => page('Old news', prose('old', 8)),
  '/new': () => page('New news', prose('fresh', 8)),
});

describe('change records through the fleet: a run compared with the run before', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let workspaceId: string;
  let otherKey: string;
  let events: Awaited<ReturnType<typeof recordEvents>>;
  let seen: RecordedEvent[] = [];
  const state = { edition: 1 };
  // The project's webhook receiver: what delivery sends once a run is compared.
  let hooks: Server;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    hooks = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((ok) => hooks.listen(0, '127.0.0.1', ok));
    web = await startTestWeb();
    web.addSite('harbour.test', changingSite(state));
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50' });
    const ws = await t.createWorkspace('changes');
    key = ws.apiKey;
    workspaceId = ws.workspaceId;
    await t.db.prisma.workspace.update({ where: { id: workspaceId }, data: { plan: 'growth' } });
    otherKey = (await t.createWorkspace('other')).apiKey;
    events = await recordEvents(t, workspaceId, 'changes-test');
    seen = events.seen;
  });
  afterAll(async () => {
    await events.stop();
    await t.stop();
    await web.close();
    await new Promise((ok) => hooks.close(ok));
  });

  /** Runs the project and answers its change record. */
  const run = async (projectId: string) => (await comparedRun(t, projectId, { key })).record;
  const byKind = (record: { entries: { url: string; kind: string }[] }, kind: string) =>
    record.entries
      .filter((e) => e.kind === kind)
      .map((e) => new URL(e.url).pathname)
      .sort();

  let projectId = '';
  let secondRunId = '';

  it('records a first run without a baseline, then exactly what changed in the second', async () => {
    const project = await t.call('POST', '/projects', {
      key,
      body: {
        seed: web.url('harbour.test', '/'),
        config: {
          useSitemap: false,
          notify_min_words: 3,
          webhook_url: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/tidemark`,
          webhook_events: ['run.finished', 'page.changed'],
        },
      },
    });
    const id = project.body.id as string;
    projectId = id;

    state.edition = 1;
    const first = await run(id);
    expect(first).toMatchObject({ baseline: null, coverage: { verdict: true } });
    expect(first.counts).toMatchObject({ added: 4, removed: 0, modified: 0 });

    state.edition = 2;
    const second = await run(id);
    secondRunId = second.runId;
    expect(second.baseline).toBe(first.runId);
    expect(second.coverage).toMatchObject({ verdict: true });
    expect(byKind(second, 'added')).toEqual(['/new']);
    expect(byKind(second, 'removed')).toEqual(['/gone']);
    expect(byKind(second, 'modified')).toEqual(['/a']);
    // The home page's timestamp changed and nothing else: the same page, its block set aside.
    expect(second.counts).toMatchObject({ added: 1, removed: 1, modified: 1, same: 2 });
    const prices = second.entries.find((e: { url: string }) => e.url.endsWith('/a'));
    expect(prices).toMatchObject({ section: 'Pricing', reviewed: false });
    expect(prices.wordsAdded).toBeGreaterThanOrEqual(10);

    // The word-level diff of the price page against the run before.
    const diff = await t.call('GET', `/projects/${id}/changes/page?url=${encodeURIComponent(prices.url)}`, { key });
    expect(diff.status).toBe(200);
    expect(diff.body).toMatchObject({ kind: 'modified', runId: second.runId, baseline: first.runId });
    const joined = diff.body.hunks.map((h: { removed: string; added: string }) => `${h.removed}→${h.added}`).join('|');
    expect(joined).toContain('$19→$24');
    expect(joined).toContain('Showers are now free');

    // Events: run.finished for both runs, page.changed for the second's three changes only.
    for (let i = 0; i < 50 && seen.filter((e) => e.kind === 'run.finished').length < 2; i++)
      await new Promise((r) => setTimeout(r, 100));
    const finished = seen.filter((e) => e.kind === 'run.finished').map((e) => e.data);
    expect(finished).toEqual([
      expect.objectContaining({ projectId: id, runId: first.runId, status: 'done', stop: 'exhausted' }),
      expect.objectContaining({
        projectId: id,
        runId: second.runId,
        counts: second.counts,
        coverage: second.coverage,
        changes: expect.arrayContaining([expect.objectContaining({ kind: 'modified', section: 'Pricing' })]),
      }),
    ]);
    // Site events follow run.finished.
    for (let i = 0; i < 50 && !seen.some((e) => e.kind === 'field.canonical'); i++)
      await new Promise((r) => setTimeout(r, 100));
    const canonical = seen.filter((e) => e.kind === 'field.canonical').map((e) => e.data);
    expect(canonical).toEqual([
      expect.objectContaining({
        projectId: id,
        runId: second.runId,
        url: web.url('harbour.test', '/'),
        changes: [{ field: 'title', before: 'Harbour', after: 'Harbour – visitors welcome' }],
      }),
    ]);
    const changed = seen.filter((e) => e.kind === 'page.changed').map((e) => e.data);
    expect(changed.map((c) => `${c.kind} ${new URL(String(c.url)).pathname}`).sort()).toEqual([
      'added /new',
      'modified /a',
      'removed /gone',
    ]);

    // The project's webhook got the same, signed with its secret (the admin key reads it).
    const secret = (await t.call('GET', `/projects/${id}/webhooks`, { key })).body.secret as string;
    for (let i = 0; i < 100 && received.length < 5; i++) await new Promise((r) => setTimeout(r, 100));
    const sent = received.map((r) => ({ ...r, json: JSON.parse(r.body) as { event: string; run: { id: string } } }));
    expect(sent.map((r) => r.json.event).sort()).toEqual([
      'page.changed',
      'page.changed',
      'page.changed',
      'run.finished',
      'run.finished',
    ]);
    for (const r of sent) {
      const expected = createHmac('sha256', secret).update(r.body).digest('hex');
      expect(r.headers['x-service-signature']).toBe(`sha256=${expected}`);
    }
    expect(
      sent
        .filter((r) => r.json.event === 'run.finished')
        .map((r) => r.json.run.id)
        .sort(),
    ).toEqual([first.runId, second.runId].sort());

    // Review one entry; another workspace sees none of it.
    const review = await t.call('POST', `/projects/${id}/changes/${prices.id}/review`, {
      key,
      body: { reviewed: true },
    });
    expect(review.body).toEqual({ id: prices.id, reviewed: true });
    const again = await t.call('GET', `/projects/${id}/changes`, { key });
    expect(again.body.entries.find((e: { id: string }) => e.id === prices.id).reviewed).toBe(true);
    for (const path of [
      `/projects/${id}/changes`,
      `/projects/${id}/changes/page?url=${encodeURIComponent(prices.url)}`,
    ]) {
      expect((await t.call('GET', path, { key: otherKey })).status).toBe(404);
    }
    const foreign = await t.call('POST', `/projects/${id}/changes/${prices.id}/review`, {
      key: otherKey,
      body: { reviewed: false },
    });
    expect(foreign.status).toBe(404);
    expect(
      (await t.call('POST', `/projects/${id}/changes/che_nope/review`, { key, body: { reviewed: true } })).status,
    ).toBe(404);
    expect((await t.call('POST', `/projects/${id}/changes/${prices.id}/review`, { key, body: {} })).status).toBe(422);
    // The markup comparison needs html in both runs; this project stores markdown only.
    const markup = await t.call('GET', `/projects/${id}/changes/markup?url=${encodeURIComponent(prices.url)}`, { key });
    expect(markup.status).toBe(409);

    // Every answer above is what the OpenAPI document declares (its schemas name every field).
    const check = openApiChecker((await t.call('GET', '/docs/openapi.json')).body);
    const conforms = (path: string, method: string, res: Answer) => check.conforms(path, method, res);
    for (const runId of [first.runId, second.runId])
      conforms(
        '/projects/{id}/changes',
        'get',
        await t.call('GET', `/projects/${id}/changes?run_id=${runId}`, { key }),
      );
    conforms('/projects/{id}/changes/page', 'get', diff);
    conforms('/projects/{id}/changes/{change}/review', 'post', review);
    conforms('/projects/{id}/changes/markup', 'get', markup);
    conforms('/projects/{id}/changes', 'get', await t.call('GET', `/projects/${id}/changes`, { key: otherKey }));
  }, 120_000);

  it('re-crawls listed pages as a run of its own that never stands in for the site', async () => {
    state.edition = 3;
    const priceUrl = web.url('harbour.test', '/a');
    const started = await t.call('POST', `/projects/${projectId}/pages/recrawl`, { key, body: { urls: [priceUrl] } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ trigger: 'recrawl', status: 'queued' });
    let record: any = null;
    for (let i = 0; i < 300 && !record; i++) {
      const res = await t.call('GET', `/projects/${projectId}/changes?run_id=${started.body.id}`, { key });
      if (res.status === 200) record = res.body;
      else await new Promise((r) => setTimeout(r, 100));
    }
    // Only the listed page was fetched and compared (with the last full run); nothing removed.
    expect(record.baseline).toBe(secondRunId);
    expect(record.counts).toMatchObject({ modified: 1, removed: 0, added: 0 });
    expect(
      record.entries.filter((e: { kind: string }) => e.kind !== 'same').map((e: { url: string }) => e.url),
    ).toEqual([priceUrl]);
    const run = (await t.call('GET', `/projects/${projectId}/runs/${started.body.id}`, { key })).body;
    expect(run.progress).toMatchObject({ done: 1, total: 1 });
    expect(run.log[0].message).toMatch(/a re-crawl of 1 listed pages/);

    // The next full run is compared with the full run before, not with the re-crawl.
    const full = await run3();
    expect(full.baseline).toBe(secondRunId);

    // Another site's URL, or none, is refused in the envelope and starts nothing.
    const before = await t.db.prisma.run.count({ where: { projectId } });
    const foreign = await t.call('POST', `/projects/${projectId}/pages/recrawl`, {
      key,
      body: { urls: ['https://elsewhere.example/a'] },
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body.error).toMatch(/urls\[0\]: not on this project's site/);
    expect((await t.call('POST', `/projects/${projectId}/pages/recrawl`, { key, body: { urls: [] } })).status).toBe(
      422,
    );
    expect(await t.db.prisma.run.count({ where: { projectId } })).toBe(before);
  }, 120_000);

  const run3 = () => run(projectId);

  it('tells page.blocked, then site.failing when a run reads nothing, and site.recovered after', async () => {
    const kinds = () => seen.map((e) => e.kind);
    const count = (kind: string) => kinds().filter((k) => k === kind).length;
    state.edition = 4;
    await run(projectId);
    for (let i = 0; i < 50 && count('page.blocked') < 1; i++) await new Promise((r) => setTimeout(r, 100));
    expect(seen.filter((e) => e.kind === 'page.blocked').map((e) => e.data)).toEqual([
      expect.objectContaining({ projectId, url: web.url('harbour.test', '/b'), errorCode: 'BLOCKED', httpStatus: 403 }),
    ]);

    state.edition = 5; // the whole site answers 503
    const down = await t.call('POST', `/projects/${projectId}/runs`, { key });
    for (let i = 0; i < 100 && count('site.failing') < 1; i++) await new Promise((r) => setTimeout(r, 100));
    expect(seen.filter((e) => e.kind === 'site.failing').map((e) => e.data)).toEqual([
      expect.objectContaining({ projectId, runId: down.body.id, reason: 'the run ended in error' }),
    ]);

    state.edition = 3;
    const back = await t.call('POST', `/projects/${projectId}/runs`, { key });
    for (let i = 0; i < 100 && count('site.recovered') < 1; i++) await new Promise((r) => setTimeout(r, 100));
    expect(seen.filter((e) => e.kind === 'site.recovered').map((e) => e.data)).toEqual([
      expect.objectContaining({ projectId, runId: back.body.id }),
    ]);
    expect(count('site.failing')).toBe(1);
  }, 120_000);

  it('tells page.orphaned and page.linked when a sitemap page loses or gains its links', async () => {
    const links = { to: '/a' };
    const origin = () => web.url('links.test', '').replace(/\/$/, '');
    // Pages of their own (no shared navigation): a link comes and goes only where we put it.
    const bare = (title: string, body: string) => ({
      type: 'text/html; charset=utf-8',
      body: `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`,
    });
    web.addSite('links.test', {
      '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
      '/sitemap.xml': () => ({
        type: 'application/xml',
        body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${['/a', '/b']
          .map((p) => `<url><loc>${origin()}${p}</loc></url>`)
          .join('')}</urlset>`,
      }),
      '/': () => bare('Links home', `${prose('links', 6)}<p><a href="${links.to}">Read this</a></p>`),
      '/a': bare('Page A', prose('first', 6)),
      '/b': bare('Page B', prose('second', 6)),
    });
    const project = await t.call('POST', '/projects', { key, body: { seed: `${origin()}/` } });
    const id = project.body.id as string;
    await run(id);
    links.to = '/b';
    const second = await run(id);
    const flips = () =>
      seen.filter((e) => (e.kind === 'page.orphaned' || e.kind === 'page.linked') && e.data.projectId === id);
    for (let i = 0; i < 50 && flips().length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(
      flips()
        .map((e) => [e.kind, e.data.url, e.data.runId])
        .sort(),
    ).toEqual([
      ['page.linked', `${origin()}/b`, second.runId],
      ['page.orphaned', `${origin()}/a`, second.runId],
    ]);
  }, 60_000);
});
