import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as crawl from '@tidemark/crawl';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { openApiChecker } from '../support/openapi.js';

describe('project runs through the fleet: start, conflict, history, cancel, schedules, retention', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let otherKey: string;
  const extraApps: crawl.CrawlApp[] = [];

  beforeAll(async () => {
    web = await startTestWeb();
    // The scheduler and the retention sweep look often here; the defaults are 30 s and 10 min.
    t = await startTestFleet({
      FETCH_HOST_MAP: web.hostMap,
      CRAWL_TICK_MS: '50',
      CRAWL_SCHEDULE_MS: '150',
      CRAWL_SWEEP_MS: '300',
    });
    const ws = await t.createWorkspace('runs');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
    otherKey = (await t.createWorkspace('other')).apiKey;
  });
  afterAll(async () => {
    for (const app of extraApps) await app.stop();
    await t.stop();
    await web.close();
  });

  const project = async (body: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/projects', {
      key,
      body: { seed: web.url('crawl.test', '/'), config: { useSitemap: false }, ...body },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const ended = async (projectId: string, runId: string) => {
    for (let i = 0; i < 600; i++) {
      const res = await t.call('GET', `/projects/${projectId}/runs/${runId}`, { key });
      if (!['queued', 'running'].includes(res.body.status)) return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`run ${runId} did not end`);
  };
  const runsOf = async (projectId: string) =>
    t.db.prisma.run.findMany({ where: { projectId }, orderBy: { createdAt: 'asc' } });

  it('starts a run (409 while it goes), crawls the site by the saved config and records it', async () => {
    const id = await project({ config: { useSitemap: false, excludePaths: ['/docs/deep/**'] } });
    const started = await t.call('POST', `/projects/${id}/runs`, { key, body: {} });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ projectId: id, status: 'queued', trigger: 'manual', stop: null });
    const again = await t.call('POST', `/projects/${id}/runs`, { key });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'conflict', request_id: expect.any(String) });

    const run = await ended(id, started.body.id);
    expect(run).toMatchObject({ status: 'done', stop: 'exhausted', trigger: 'manual' });
    // crawl.test without the sitemap, robots kept, /docs/deep/* excluded: the pages links reach.
    expect(run.progress.done).toBe(run.progress.total);
    expect(run.engines).toEqual({ http: run.progress.done - (run.counts.robots ?? 0), none: run.counts.robots });
    expect(run.creditsUsed).toBe(run.engines.http);
    expect(run.log.map((l: { message: string }) => l.message)).toEqual([
      expect.stringMatching(/^started from http:\/\/crawl\.test:\d+\/; robots\.txt answered 200$/),
      `ended: exhausted, ${run.progress.done} pages settled`,
    ]);
    expect(Date.parse(run.startedAt)).toBeLessThanOrEqual(Date.parse(run.finishedAt));
    const pages = await t.db.prisma.page.findMany({ where: { runId: run.id }, select: { url: true } });
    expect(pages).toHaveLength(run.progress.done);
    expect(pages.some((p) => p.url.includes('/docs/deep/'))).toBe(false);

    const list = await t.call('GET', `/projects/${id}/runs`, { key });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ data: [{ id: run.id, status: 'done' }], next: null, cursor: null });
    // Now nothing runs: a second run may start.
    expect((await t.call('POST', `/projects/${id}/runs`, { key })).status).toBe(202);
  });

  it('fetches url_list every run, and queues only the sitemap URLs sitemap_include allows', async () => {
    const listed = await project({ config: { useSitemap: false, url_list: [web.url('crawl.test', '/orphan')] } });
    const a = await ended(listed, (await t.call('POST', `/projects/${listed}/runs`, { key })).body.id);
    const urls = await t.db.prisma.crawlUrl.findMany({ where: { runId: a.id }, select: { url: true, foundVia: true } });
    // /orphan is linked from nowhere: only url_list brings it in.
    expect(urls).toContainEqual({ url: web.url('crawl.test', '/orphan'), foundVia: 'seed' });
    expect(a.log[0].message).toMatch(/, 1 from url_list/);

    const docs = await project({ config: { sitemapMode: 'only', sitemap_include: ['/docs/**'] } });
    const b = await ended(docs, (await t.call('POST', `/projects/${docs}/runs`, { key })).body.id);
    const rows = await t.db.prisma.crawlUrl.findMany({ where: { runId: b.id }, select: { url: true, foundVia: true } });
    const fromSitemap = rows.filter((r) => r.foundVia === 'sitemap').map((r) => new URL(r.url).pathname);
    expect(fromSitemap.length).toBeGreaterThan(0);
    expect(fromSitemap.filter((p) => !p.startsWith('/docs'))).toEqual([]);
    expect(rows.filter((r) => r.foundVia === 'link')).toEqual([]);
  });

  it('dry-runs draft scope patterns on the URLs the project knows, and lists its sources', async () => {
    const id = await project({ config: { useSitemap: true } });
    const run = await ended(id, (await t.call('POST', `/projects/${id}/runs`, { key })).body.id);
    const dry = await t.call('POST', `/projects/${id}/dry-run`, { key, body: { exclude_paths: ['/docs/**'] } });
    expect(dry.status).toBe(200);
    const docs = await t.db.prisma.crawlUrl.findMany({ where: { runId: run.id, url: { contains: '/docs' } } });
    expect(docs.length).toBeGreaterThan(0);
    expect(dry.body.known).toBe(run.progress.total);
    expect(dry.body.verdicts.excluded.count).toBe(docs.length);
    expect(dry.body.dropped.count).toBe(docs.length);
    expect(dry.body.added).toEqual({ count: 0, urls: [] });
    expect(dry.body.verdicts.in.count).toBe(run.progress.total - docs.length);
    const check = openApiChecker((await t.call('GET', '/docs/openapi.json')).body);
    check.conforms('/projects/{id}/dry-run', 'post', dry);
    // Nothing was saved.
    expect((await t.call('GET', `/projects/${id}`, { key })).body.config.version).toBe(1);
    expect((await t.call('POST', `/projects/${id}/dry-run`, { key, body: { exclude_paths: 'x' } })).status).toBe(422);

    const sources = await t.call('GET', `/projects/${id}/sources`, { key });
    expect(sources.status).toBe(200);
    const via = await t.db.prisma.crawlUrl.groupBy({ by: ['foundVia'], where: { runId: run.id }, _count: true });
    const count = (v: string) => via.find((r) => r.foundVia === v)?._count ?? 0;
    expect(sources.body).toMatchObject({
      runId: run.id,
      seed: { url: web.url('crawl.test', '/'), found: 1 },
      sitemap: { use: true, mode: 'auto', found: count('sitemap') },
      links: { found: count('link') },
      urlList: { urls: 0, found: 0 },
    });
    expect(count('sitemap')).toBeGreaterThan(0);
    check.conforms('/projects/{id}/sources', 'get', sources);
    expect((await t.call('GET', `/projects/${id}/sources`, { key: otherKey })).status).toBe(404);

    // Trying sources before saving them: nothing queued, nothing saved.
    const runsBefore = await t.db.prisma.run.count({ where: { projectId: id } });
    const feed = web.url('maps.test', '/news/feed.xml');
    const preview = await t.call('POST', `/projects/${id}/sources/preview`, {
      key,
      body: {
        include_paths: ['/docs/**'],
        sitemap_exclude: ['/docs/**'],
        feeds: [feed],
        url_list: [
          web.url('crawl.test', '/orphan'),
          web.url('crawl.test', '/private/secret'),
          'https://elsewhere.example/x',
        ],
      },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.include_paths).toEqual([expect.objectContaining({ pattern: '/docs/**', count: docs.length })]);
    const listedDocs = await t.db.prisma.crawlUrl.count({
      where: { runId: run.id, inSitemap: true, url: { contains: '/docs' } },
    });
    expect(preview.body.sitemap_exclude).toEqual([expect.objectContaining({ pattern: '/docs/**', count: listedDocs })]);
    expect(preview.body.feeds).toEqual([expect.objectContaining({ feed, entries: 3, error: null })]);
    expect(preview.body.urlList).toEqual([
      // Judged by the draft: include_paths /docs/** leaves them out.
      { url: web.url('crawl.test', '/orphan'), scope: 'not_included', robotsAllowed: true, known: true },
      { url: web.url('crawl.test', '/private/secret'), scope: 'not_included', robotsAllowed: false, known: true },
      { url: 'https://elsewhere.example/x', scope: 'other_host', robotsAllowed: true, known: false },
    ]);
    expect(preview.body.creditsUsed).toBe(1);
    check.conforms('/projects/{id}/sources/preview', 'post', preview);
    expect(await t.db.prisma.run.count({ where: { projectId: id } })).toBe(runsBefore);
    expect((await t.call('GET', `/projects/${id}`, { key })).body.config.version).toBe(1);
  });

  it('pages the run history newest first', async () => {
    const id = await project();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.call('POST', `/projects/${id}/runs`, { key });
      ids.push(res.body.id);
      await ended(id, res.body.id);
    }
    const first = await t.call('GET', `/projects/${id}/runs?limit=2`, { key });
    expect(first.body.data.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    const second = await fetch(first.body.next, { headers: { authorization: `Bearer ${key}` } });
    const body = (await second.json()) as { data: { id: string }[]; next: string | null };
    expect(body.data.map((r) => r.id)).toEqual([ids[0]]);
    expect(body.next).toBeNull();
  });

  it('cancels a running run: status cancelled, nothing more fetched', async () => {
    const id = await project({ seed: web.url('tree.test', '/'), config: { useSitemap: false, concurrency: 1 } });
    const started = await t.call('POST', `/projects/${id}/runs`, { key });
    for (let i = 0; i < 200; i++) {
      const run = await t.call('GET', `/projects/${id}/runs/${started.body.id}`, { key });
      if (run.body.progress.done >= 5) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const cancelled = await t.call('POST', `/projects/${id}/runs/${started.body.id}/cancel`, { key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', stop: 'cancelled' });
    const hits = web.hits.length;
    await new Promise((r) => setTimeout(r, 500));
    // At most the page that was in flight.
    expect(web.hits.length - hits).toBeLessThanOrEqual(1);
    expect(cancelled.body.log.at(-1).message).toMatch(/^cancelled; \d+ queued URLs dropped$/);
  });

  it('starts several with POST /projects/run, listing the ones refused and why', async () => {
    const a = await project();
    const b = await project();
    const busy = await t.call('POST', `/projects/${b}/runs`, { key });
    const res = await t.call('POST', '/projects/run', { key, body: { project_ids: [a, b, 'prj_nope'] } });
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual([expect.objectContaining({ projectId: a, trigger: 'api', status: 'queued' })]);
    expect(res.body.refused).toEqual([
      { projectId: b, code: 'conflict', error: expect.any(String) },
      { projectId: 'prj_nope', code: 'not_found', error: expect.any(String) },
    ]);
    await ended(a, res.body.data[0].id);
    await ended(b, busy.body.id);
  });

  it('answers 404 for another workspace’s project and run, and refuses bad input', async () => {
    const id = await project();
    const run = await t.call('POST', `/projects/${id}/runs`, { key });
    for (const [method, path] of [
      ['GET', `/projects/${id}/runs`],
      ['POST', `/projects/${id}/runs`],
      ['GET', `/projects/${id}/runs/${run.body.id}`],
      ['POST', `/projects/${id}/runs/${run.body.id}/cancel`],
    ] as const) {
      const res = await t.call(method, path, { key: otherKey });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect((await t.call('GET', `/projects/${id}/runs/run_nope`, { key })).status).toBe(404);
    const bad = await t.call('POST', `/projects/${id}/runs`, { key, body: { trigger: 'cron' } });
    expect(bad.status).toBe(422);
    expect((await t.call('GET', `/projects/${id}/runs?limit=500`, { key })).status).toBe(400);
    expect((await t.call('POST', '/projects/run', { key, body: { project_ids: [] } })).status).toBe(422);
    await ended(id, run.body.id);
    expect(await runsOf(id)).toHaveLength(1);
  });

  it('starts a daily project’s run once per day, even with two schedulers', async () => {
    // A second crawl worker: its scheduler looks at the same projects.
    const second = await crawl.buildApp(
      crawl.loadConfig({
        ...t.env,
        MAP_GRPC_URL: t.fleet.grpc.map,
        SCRAPE_GRPC_URL: t.fleet.grpc.scrape,
        CRAWL_GRPC_LISTEN: '127.0.0.1:0',
      }),
    );
    extraApps.push(second);
    await second.start();
    const id = await project({ schedule: 'daily' });
    let runs: Awaited<ReturnType<typeof runsOf>> = [];
    for (let i = 0; i < 100 && runs.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      runs = await runsOf(id);
    }
    expect(runs).toHaveLength(1);
    expect(runs[0]!.trigger).toBe('schedule');
    await ended(id, runs[0]!.id);
    // Many scheduler steps later, still one: the next is due a day after this one began.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await runsOf(id)).toHaveLength(1);
    // A day later (the run moved back in time), the next one starts.
    await t.db.prisma.run.update({
      where: { id: runs[0]!.id },
      data: { createdAt: new Date(Date.now() - 25 * 3600_000) },
    });
    for (let i = 0; i < 100 && runs.length === 1; i++) {
      await new Promise((r) => setTimeout(r, 100));
      runs = await runsOf(id);
    }
    expect(runs.map((r) => r.trigger)).toEqual(['schedule', 'schedule']);
    await ended(id, runs[1]!.id);
  });

  it('prunes runs past the project’s retention but keeps the latest finished one', async () => {
    const id = await project({ retention: '7d' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.call('POST', `/projects/${id}/runs`, { key });
      ids.push(res.body.id);
      await ended(id, res.body.id);
    }
    // The first two finished 10 days ago; the third is the baseline whatever its age.
    const old = new Date(Date.now() - 10 * 24 * 3600_000);
    await t.db.prisma.run.updateMany({ where: { id: { in: ids.slice(0, 2) } }, data: { finishedAt: old } });
    await t.db.prisma.run.update({ where: { id: ids[2]! }, data: { finishedAt: new Date(old.getTime() + 1000) } });
    let left = ids;
    for (let i = 0; i < 50 && left.length > 1; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = (await runsOf(id)).map((r) => r.id);
    }
    expect(left).toEqual([ids[2]]);
    expect(await t.db.prisma.page.count({ where: { runId: { in: ids.slice(0, 2) } } })).toBe(0);
    expect(await t.db.prisma.crawlUrl.count({ where: { runId: { in: ids.slice(0, 2) } } })).toBe(0);
    expect(await t.db.prisma.job.count({ where: { runId: { in: ids.slice(0, 2) } } })).toBe(0);
    expect(await t.db.prisma.page.count({ where: { runId: ids[2]! } })).toBeGreaterThan(0);
  });
});
