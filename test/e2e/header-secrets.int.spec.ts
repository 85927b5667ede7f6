import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as gateway from '@tidemark/gateway';
import { harbourSite, harbourState, startTestWeb, type Site, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

const TOKEN = 'Bearer members-only-7f3a9c2e41d8';
const SEALED = /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/;

interface Seen {
  path: string;
  auth: string;
}

/**
 * The harbour site behind a members' wall: its pages answer only a request carrying the
 * Authorization header (robots.txt and the sitemap stay open). Every page request is kept with
 * the Authorization it carried.
 */
const membersOnly = (site: Site, seen: Seen[]): Site =>
  Object.fromEntries(
    Object.entries(site).map(([path, entry]) => [
      path,
      (req: IncomingMessage) => {
        if (path === '/robots.txt' || path.endsWith('.xml')) return typeof entry === 'function' ? entry(req) : entry;
        seen.push({ path, auth: req.headers.authorization ?? '' });
        if (req.headers.authorization !== TOKEN)
          return {
            status: 401,
            body: '<!doctype html><html><head><title>Members sign in</title></head><body><form><input type="password"></form></body></html>',
          };
        return typeof entry === 'function' ? entry(req) : entry;
      },
    ]),
  );

/** Issue 12, item 7: fetch.headers values hold credentials; sealed at rest, masked to non-admins. */
describe('fetch.headers: sealed at rest, masked to non-admin keys, opened only to send', () => {
  let web: TestWeb;
  let t: TestFleet;
  let admin: string;
  let reader: string;
  let writer: string;
  const seen: Seen[] = [];
  /** What the pages at `path` were sent (the feed discovery's read of the home page is not a page fetch). */
  const sentTo = (path: string) => seen.filter((h) => h.path === path).map((h) => h.auth);
  /** Never anything but the header in the clear: no sealed value, no mask. */
  const onlyClear = () => seen.every((h) => h.auth === '' || h.auth === TOKEN);
  let projectId: string;

  const storedHeaders = async (id: string) =>
    ((await t.db.prisma.project.findUniqueOrThrow({ where: { id } })).config as any).fetch.headers as Record<
      string,
      string
    >;

  beforeAll(async () => {
    web = await startTestWeb();
    const state = harbourState();
    web.addSite('members.test', membersOnly(harbourSite(web.url('members.test', '').replace(/\/$/, ''), state), seen));
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50' });
    admin = (await t.createWorkspace('headers')).apiKey;
    reader = await t.createKey(admin, { name: 'reader', scopes: ['read'] });
    writer = await t.createKey(admin, { name: 'writer', scopes: ['write'] });
    const created = await t.call('POST', '/projects', {
      key: admin,
      body: {
        seed: web.url('members.test', '/prices'),
        config: { headers: { Authorization: TOKEN, 'X-Team': 'blue' }, max_pages: 2, max_depth: 0 },
      },
    });
    expect(created.status).toBe(201);
    projectId = created.body.id;
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
  });

  it('keeps the values sealed in the database row', async () => {
    const stored = await storedHeaders(projectId);
    expect(Object.keys(stored).sort()).toEqual(['Authorization', 'X-Team']);
    for (const value of Object.values(stored)) expect(value).toMatch(SEALED);
    const row = JSON.stringify(await t.db.prisma.project.findUniqueOrThrow({ where: { id: projectId } }));
    expect(row).not.toContain('members-only-7f3a9c2e41d8');
    expect(row).not.toContain('blue');
  });

  it('shows them in full to an admin and masked to read and write keys', async () => {
    const forAdmin = await t.call('GET', `/projects/${projectId}`, { key: admin });
    expect(forAdmin.body.config.fetch.headers).toEqual({ Authorization: TOKEN, 'X-Team': 'blue' });
    for (const key of [reader, writer]) {
      const shown = await t.call('GET', `/projects/${projectId}`, { key });
      expect(shown.body.config.fetch.headers).toEqual({ Authorization: '****41d8', 'X-Team': '****' });
      const list = await t.call('GET', '/projects', { key });
      expect(JSON.stringify(list.body)).not.toContain('members-only');
    }
  });

  it('a masked config sent back keeps the stored values and the version; the same values keep them too', async () => {
    const before = await storedHeaders(projectId);
    const fetched = await t.call('GET', `/projects/${projectId}`, { key: writer });
    const back = await t.call('PATCH', `/projects/${projectId}`, {
      key: writer,
      body: { config: fetched.body.config },
    });
    expect(back.status).toBe(200);
    expect(back.body.config.version).toBe(fetched.body.config.version);
    expect(await storedHeaders(projectId)).toEqual(before);
    const same = await t.call('PATCH', `/projects/${projectId}`, {
      key: admin,
      body: { config: { headers: { Authorization: TOKEN, 'X-Team': 'blue' } } },
    });
    expect(same.body.config.version).toBe(fetched.body.config.version);
    expect(await storedHeaders(projectId)).toEqual(before);
  });

  it('refuses a value that looks sealed (nothing a caller can hold), naming the field', async () => {
    const sealed = (await storedHeaders(projectId)).Authorization!;
    const res = await t.call('PATCH', `/projects/${projectId}`, {
      key: admin,
      body: { config: { headers: { Authorization: sealed } } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^body\.config\.fetch\.headers\.Authorization: /);
    const scrape = await t.call('POST', '/scrape', {
      key: admin,
      body: { url: web.url('members.test', '/prices'), config: { fetch: { headers: { Authorization: sealed } } } },
    });
    expect(scrape.status).toBe(422);
    expect(scrape.body.error).toMatch(/^body\.config\.fetch\.headers\.Authorization: /);
  });

  it('a run sends the header in the clear to the site, opened only by the ladder', async () => {
    seen.length = 0;
    const started = await t.call('POST', `/projects/${projectId}/runs`, { key: admin });
    expect(started.status).toBe(202);
    let run: any;
    for (let i = 0; i < 300; i++) {
      run = (await t.call('GET', `/projects/${projectId}/runs/${started.body.id}`, { key: admin })).body;
      if (!['queued', 'running'].includes(run.status)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(run.status).toBe('done');
    expect(sentTo('/prices')).toEqual([TOKEN]);
    expect(onlyClear()).toBe(true);
    const pages = await t.call('GET', `/projects/${projectId}/pages?run_id=${started.body.id}`, { key: admin });
    const prices = pages.body.data.find((p: { url: string }) => p.url.endsWith('/prices'));
    expect(prices).toMatchObject({ httpStatus: 200, verdict: 'ok' });
    // The run's job keeps the project's config as it was: sealed.
    const job = await t.db.prisma.job.findFirstOrThrow({ where: { runId: started.body.id } });
    expect(JSON.stringify(job.request)).not.toContain('members-only');
  }, 60_000);

  it('a one-off scrape and a crawl carry the header sealed in their stored request, and send it', async () => {
    seen.length = 0;
    const scrape = await t.call('POST', '/scrape', {
      key: admin,
      body: { url: web.url('members.test', '/tides'), config: { headers: { Authorization: TOKEN } } },
    });
    expect(scrape.status).toBe(200);
    expect(scrape.body.data[0]).toMatchObject({ httpStatus: 200, verdict: 'ok' });
    const scrapeJob = await t.db.prisma.job.findUniqueOrThrow({ where: { id: scrape.body.id } });
    expect((scrapeJob.request as any).config.headers.Authorization).toMatch(SEALED);

    const crawl = await t.call('POST', '/crawl', {
      key: admin,
      body: {
        url: web.url('members.test', '/contact'),
        limit: 1,
        config: { fetch: { headers: { Authorization: TOKEN } } },
      },
    });
    expect(crawl.status).toBe(202);
    let envelope: any;
    for (let i = 0; i < 300; i++) {
      envelope = (await t.call('GET', `/crawl/${crawl.body.id}`, { key: admin })).body;
      if (!['queued', 'running'].includes(envelope.status)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(envelope.data[0]).toMatchObject({ httpStatus: 200, verdict: 'ok' });
    const crawlJob = await t.db.prisma.job.findUniqueOrThrow({ where: { id: crawl.body.id } });
    expect(JSON.stringify(crawlJob.request)).not.toContain('members-only');
    const hidden = await t.db.prisma.project.findFirstOrThrow({ where: { ephemeral: true } });
    expect((hidden.config as any).fetch.headers.Authorization).toMatch(SEALED);
    expect(sentTo('/tides')).toEqual([TOKEN]);
    expect(sentTo('/contact')).toEqual([TOKEN]);
    expect(onlyClear()).toBe(true);
  }, 60_000);

  it('without the header the wall stands (the header above is what opened it)', async () => {
    const res = await t.call('POST', '/scrape', { key: admin, body: { url: web.url('members.test', '/tides') } });
    expect(res.body.data[0].httpStatus).toBe(401);
  });

  it('seals values a project kept in the clear from before, when a gateway starts', async () => {
    const legacy = await t.call('POST', '/projects', { key: admin, body: { seed: web.url('members.test', '/') } });
    const row = await t.db.prisma.project.findUniqueOrThrow({ where: { id: legacy.body.id } });
    const config = row.config as any;
    config.fetch.headers = { Authorization: TOKEN };
    await t.db.prisma.project.update({ where: { id: row.id }, data: { config } });
    const second = await gateway.buildApp(gateway.loadConfig(t.dialEnv));
    await second.start();
    try {
      let stored = '';
      for (let i = 0; i < 100 && !SEALED.test(stored); i++) {
        stored = (await storedHeaders(row.id)).Authorization!;
        if (!SEALED.test(stored)) await new Promise((r) => setTimeout(r, 50));
      }
      expect(stored).toMatch(SEALED);
      const after = await t.db.prisma.project.findUniqueOrThrow({ where: { id: row.id } });
      expect(after.configVersion).toBe(row.configVersion);
      expect((await t.call('GET', `/projects/${row.id}`, { key: admin })).body.config.fetch.headers).toEqual({
        Authorization: TOKEN,
      });
    } finally {
      await second.stop();
    }
  });
});
