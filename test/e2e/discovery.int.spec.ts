import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type Site, type TestWeb } from '@tidemark/testkit';
import { recordEvents, type RecordedEvent } from '../support/events.js';
import { startTestFleet, type Answer, type TestFleet } from '../support/fleet.js';
import { openApiChecker } from '../support/openapi.js';

const xml = (body: string) => ({ type: 'application/xml', body: `<?xml version="1.0" encoding="UTF-8"?>${body}` });
const urlset = (origin: string, urls: [string, string][]) =>
  xml(
    `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls
      .map(([path, lastmod]) => `<url><loc>${origin}${path}</loc><lastmod>${lastmod}</lastmod></url>`)
      .join('')}</urlset>`,
  );

/** A site whose sitemaps change between editions: a file comes, a URL goes, one is updated. */
const sitemapSite = (state: { edition: number; origin: string }): Site => ({
  '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
  '/sitemap.xml': () =>
    xml(
      `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${(state.edition === 1
        ? ['/s1.xml']
        : ['/s1.xml', '/s2.xml']
      )
        .map((f) => `<sitemap><loc>${state.origin}${f}</loc></sitemap>`)
        .join('')}</sitemapindex>`,
    ),
  '/s1.xml': () =>
    urlset(
      state.origin,
      state.edition === 1
        ? [
            ['/a', '2026-01-01'],
            ['/b', '2026-01-01'],
            ['/blog/2026/one', '2026-01-05'],
            ['/blog/2026/two', '2026-01-09'],
          ]
        : [
            ['/a', '2026-02-01'],
            ['/blog/2026/one', '2026-01-05'],
            ['/blog/2026/two', '2026-01-09'],
          ],
    ),
  '/s2.xml': () => urlset(state.origin, [['/c', '2026-02-02']]),
});

describe('discovery snapshots through the fleet', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let workspaceId: string;
  let otherKey: string;
  let events: Awaited<ReturnType<typeof recordEvents>>;
  let seen: RecordedEvent[] = [];
  const state = { edition: 1, origin: '' };

  beforeAll(async () => {
    web = await startTestWeb();
    web.addSite('disc.test', sitemapSite(state));
    state.origin = web.url('disc.test', '').replace(/\/$/, '');
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap });
    const ws = await t.createWorkspace('discovery');
    key = ws.apiKey;
    workspaceId = ws.workspaceId;
    await t.db.prisma.workspace.update({ where: { id: workspaceId }, data: { plan: 'growth' } });
    otherKey = (await t.createWorkspace('other')).apiKey;
    events = await recordEvents(t, workspaceId, 'discovery-test');
    seen = events.seen;
  });
  afterAll(async () => {
    await events.stop();
    await t.stop();
    await web.close();
  });

  const snapshot = async (projectId: string) => {
    const res = await t.call('POST', `/projects/${projectId}/discovery`, { key });
    expect(res.status).toBe(202);
    for (let i = 0; i < 300; i++) {
      const got = await t.call('GET', `/projects/${projectId}/discovery`, { key });
      if (got.body.job === null && got.body.discovery) return got.body.discovery;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('no snapshot');
  };

  it('stores the sitemap tree, pages its entries, and diffs the next snapshot with events', async () => {
    const project = await t.call('POST', '/projects', { key, body: { seed: `${state.origin}/` } });
    const id = project.body.id as string;
    const none = await t.call('GET', `/projects/${id}/discovery`, { key });
    expect(none.body).toEqual({ discovery: null, job: null });

    const first = await snapshot(id);
    expect(first).toMatchObject({ status: 'done', diff: null, feeds: [] });
    expect(first.files).toEqual([
      {
        file: `${state.origin}/s1.xml`,
        source: 'sitemap',
        section: '/blog',
        urls: 4,
        lastmod: { min: '2026-01-01', max: '2026-01-09' },
      },
    ]);
    // Billed as a map: the index and one sitemap file.
    const job = await t.db.prisma.discoverySnapshot.findFirstOrThrow({ where: { projectId: id } });
    expect((await t.db.prisma.job.findUniqueOrThrow({ where: { id: job.jobId } })).creditsUsed).toBe(2);

    const blog = await t.call('GET', `/projects/${id}/discovery/entries?prefix=/blog&limit=1`, { key });
    expect(blog.status).toBe(200);
    expect(blog.body.data.map((e: { url: string }) => e.url)).toEqual([`${state.origin}/blog/2026/one`]);
    expect(blog.body.cursor).toBe(1);
    expect(blog.body.prefixes).toEqual([{ prefix: '/blog/2026', urls: 2 }]);
    const more = await t.call('GET', `/projects/${id}/discovery/entries?prefix=/blog&limit=1&cursor=1`, { key });
    expect(more.body).toMatchObject({ data: [{ url: `${state.origin}/blog/2026/two` }], cursor: null });
    // A prefix is text, not a LIKE pattern: `_` and `%` stand for themselves.
    for (const prefix of ['/b_og', '/%'])
      expect(
        (await t.call('GET', `/projects/${id}/discovery/entries?prefix=${encodeURIComponent(prefix)}`, { key })).body,
      ).toMatchObject({ data: [], prefixes: [] });
    const byFile = await t.call(
      'GET',
      `/projects/${id}/discovery/entries?file=${encodeURIComponent(`${state.origin}/s1.xml`)}&q=TWO`,
      { key },
    );
    expect(byFile.body.data.map((e: { url: string }) => e.url)).toEqual([`${state.origin}/blog/2026/two`]);

    state.edition = 2;
    const second = await snapshot(id);
    expect(second.diff).toEqual({
      baseline: first.id,
      files: { added: [`${state.origin}/s2.xml`], removed: [] },
      urls: {
        added: { count: 1, urls: [`${state.origin}/c`] },
        removed: { count: 1, urls: [`${state.origin}/b`] },
        updated: { count: 1, urls: [`${state.origin}/a`] },
      },
    });
    const sitemapEvents = () => seen.filter((e) => e.kind.startsWith('sitemap.'));
    for (let i = 0; i < 50 && sitemapEvents().length < 4; i++) await new Promise((r) => setTimeout(r, 100));
    // The first snapshot had nothing to compare with: only the second tells what moved.
    expect(
      sitemapEvents()
        .map((e) => e.kind)
        .sort(),
    ).toEqual(['sitemap.added', 'sitemap.file_added', 'sitemap.removed', 'sitemap.updated']);
    expect(seen.find((e) => e.kind === 'sitemap.file_added')!.data).toMatchObject({
      projectId: id,
      snapshotId: second.id,
      file: `${state.origin}/s2.xml`,
    });
    // The first snapshot's entries stay readable by id.
    const old = await t.call('GET', `/projects/${id}/discovery/entries?snapshot_id=${first.id}&q=/b`, { key });
    expect(old.body.data.map((e: { url: string }) => e.url)).toEqual([
      `${state.origin}/b`,
      `${state.origin}/blog/2026/one`,
      `${state.origin}/blog/2026/two`,
    ]);

    // Every answer is what the OpenAPI document declares (its schemas name every field).
    const check = openApiChecker((await t.call('GET', '/docs/openapi.json')).body);
    const conforms = (path: string, method: string, res: Answer) => check.conforms(path, method, res);
    const stored = await t.call('GET', `/projects/${id}/discovery`, { key });
    expect(stored.body.discovery).toEqual(second);
    conforms('/projects/{id}/discovery', 'get', none);
    conforms('/projects/{id}/discovery', 'get', stored);
    conforms('/projects/{id}/discovery/entries', 'get', blog);
    conforms('/projects/{id}/discovery/entries', 'get', more);
    conforms('/projects/{id}/discovery/entries', 'get', old);
    const started = await t.call('POST', `/projects/${id}/discovery`, { key });
    conforms('/projects/{id}/discovery', 'post', started);
    expect(started.body.job).toMatchObject({ status: 'queued', creditsUsed: 0 });
    conforms('/projects/{id}/discovery', 'get', await t.call('GET', `/projects/${id}/discovery`, { key }));
  });

  it('answers 409 while a snapshot runs, 404 for another workspace, and refuses bad input', async () => {
    const project = await t.call('POST', '/projects', { key, body: { seed: `${state.origin}/` } });
    const id = project.body.id as string;
    const a = await t.call('POST', `/projects/${id}/discovery`, { key });
    const b = await t.call('POST', `/projects/${id}/discovery`, { key });
    expect(a.status).toBe(202);
    // The first may already have ended on a fast machine; then the second starts its own.
    expect([202, 409]).toContain(b.status);
    if (b.status === 409) expect(b.body.code).toBe('conflict');
    for (const [method, path] of [
      ['GET', `/projects/${id}/discovery`],
      ['POST', `/projects/${id}/discovery`],
      ['GET', `/projects/${id}/discovery/entries`],
    ] as const)
      expect((await t.call(method, path, { key: otherKey })).status).toBe(404);
    expect((await t.call('GET', `/projects/${id}/discovery/entries?prefix=blog`, { key })).status).toBe(400);
    expect((await t.call('GET', `/projects/${id}/discovery/entries?limit=0`, { key })).status).toBe(400);
    expect((await t.call('GET', `/projects/${id}/discovery/entries?snapshot_id=dsn_nope`, { key })).status).toBe(404);
  });
});
