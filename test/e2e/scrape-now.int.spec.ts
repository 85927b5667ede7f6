import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Bus } from '@tidemark/bus';
import { createLogger } from '@tidemark/telemetry';
import { startTestWeb, TEST_INFRA, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

// A one-URL scrape is read by the scrape replica that took the call (no hop through the work
// stream); with its slots busy it is queued like a batch's page and still answered.
describe('one URL answered now: read where the call landed, queued when that replica is busy', () => {
  let web: TestWeb;
  let t: TestFleet;
  let bus: Bus;
  let key: string;

  beforeAll(async () => {
    web = await startTestWeb();
    // One slot: a second one-URL scrape while the first is read must take the work stream.
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, SCRAPE_CONCURRENCY: '1' });
    key = (await t.createWorkspace('now')).apiKey;
    bus = await Bus.connect({
      url: TEST_INFRA.natsUrl,
      prefix: t.env.NATS_PREFIX!,
      name: 'scrape-now-spec',
      logger: createLogger('spec', 'silent'),
    });
  });
  afterAll(async () => {
    await bus?.close();
    await t?.stop();
    await web?.close();
  });

  const queuedPages = async () => (await bus.consumerInfo('scrape-page')).delivered;

  it('reads a one-URL scrape on the replica that took it: the row answered, nothing on the work stream', async () => {
    const res = await t.call('POST', '/scrape', { key, body: { url: web.url('pages.test', '/article') } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'done', progress: { done: 1, total: 1, queued: 0 }, creditsUsed: 1 });
    expect(res.body.data[0]).toMatchObject({ status: 'done', verdict: 'ok', credits: 1 });
    expect(res.body.data[0].markdown).toContain('# ');
    expect(await queuedPages()).toBe(0);
    // The job reads back the same through GET, as any job does.
    const again = await t.call('GET', `/scrape/${res.body.id}`, { key });
    expect(again.body).toMatchObject({ id: res.body.id, status: 'done', counts: { ok: 1 } });
  });

  it('answers a one-URL scrape with exactly what it stored, hostile text sanitised the same way', async () => {
    // NUL characters and a lone surrogate in the text, as pages from the web carry them: the
    // stored row drops what PostgreSQL cannot hold, and the answer (built from memory, not read
    // back) must say what GET reads from the row, body for body.
    const filler = Array.from(
      { length: 40 },
      (_, i) => `<p>Paragraph ${i} of the tide table, with\u0000 a NUL and \ud800 a lone half.</p>`,
    );
    web.addSite('hostile.test', {
      '/': {
        type: 'text/html; charset=utf-8',
        body: `<!doctype html><html><head><title>Tides\u0000</title></head><body><nav><a href="/a">A</a></nav><main><h1>Tides</h1>${filler.join('')}<a href="/b\u0000">b</a></main></body></html>`,
      },
    });
    const res = await t.call('POST', '/scrape', {
      key,
      body: { url: web.url('hostile.test', '/'), formats: 'markdown,text,cleanHtml,rawHtml,links' },
    });
    expect(res.status).toBe(200);
    const row = res.body.data[0];
    expect(row).toMatchObject({ status: 'done', verdict: 'ok' });
    expect(JSON.stringify(row)).not.toMatch(/\\u0000|\\ud800/);
    for (const format of ['markdown', 'text', 'cleanHtml', 'html', 'links']) expect(row[format]).toBeTruthy();
    const again = await t.call('GET', `/scrape/${res.body.id}`, { key });
    const { data: storedData, ...storedJob } = again.body;
    const { data: answeredData, ...answeredJob } = res.body;
    expect(answeredData).toEqual(storedData);
    expect(answeredJob).toEqual(storedJob);
  });

  it('queues a one-URL scrape while every slot is busy, and answers it all the same', async () => {
    const before = await queuedPages();
    // The slow page (3 s) holds the one slot.
    const slow = t.call('POST', '/scrape', { key, body: { url: web.url('pages.test', '/slow'), timeout: 30 } });
    await new Promise((r) => setTimeout(r, 500));
    const fast = await t.call('POST', '/scrape', {
      key,
      body: { url: web.url('pages.test', '/article'), timeout: 30 },
    });
    expect(fast.status).toBe(200);
    expect(fast.body.data[0]).toMatchObject({ status: 'done', verdict: 'ok' });
    expect(await queuedPages()).toBe(before + 1);
    const slowRes = await slow;
    expect(slowRes.status).toBe(200);
    expect(slowRes.body.data[0]).toMatchObject({ status: 'done', credits: 1 });
    expect(await queuedPages()).toBe(before + 1);
  });

  it('answers 202 past the timeout while the page goes on, and the job ends read', async () => {
    const res = await t.call('POST', '/scrape', { key, body: { url: web.url('pages.test', '/slow'), timeout: 1 } });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    let job: any;
    for (let i = 0; i < 100; i++) {
      job = (await t.call('GET', `/scrape/${id}`, { key })).body;
      if (!['queued', 'running'].includes(job.status)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job).toMatchObject({ status: 'done', progress: { done: 1, total: 1, queued: 0 }, creditsUsed: 1 });
    expect(job.data[0]).toMatchObject({ status: 'done', credits: 1 });
  });

  // The job is written while the page is fetched and read; the page is priced only once it
  // stands. A job the database refuses (a CHECK constraint, as a value PostgreSQL cannot hold
  // meets one) fails the call: nothing charged, nothing left held once the block is given back.
  it('fails the call, charging nothing, when its job cannot be written', async () => {
    const ws = await t.createWorkspace('unwritten');
    await t.call('GET', '/me', { key: ws.apiKey }); // the welcome credits
    await t.db.prisma.$executeRawUnsafe(
      `ALTER TABLE job ADD CONSTRAINT unwritten_job CHECK (request->>'url' NOT LIKE '%/never-written')`,
    );
    try {
      const url = web.url('pages.test', '/never-written');
      const res = await t.call('POST', '/scrape', { key: ws.apiKey, body: { url } });
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({ code: 'internal', request_id: expect.any(String) });
      // Fetched once meanwhile, and not again: nothing stands for the work stream to read.
      expect(web.hits.filter((h) => h.path === '/never-written').length).toBeLessThanOrEqual(1);
      const held = async () =>
        Number(
          (
            await t.db.prisma.$queryRawUnsafe<{ n: bigint }[]>(
              `SELECT count(*) AS n FROM credit_hold WHERE workspace_id = $1 AND expires_at > now()`,
              ws.workspaceId,
            )
          )[0]!.n,
        );
      // The workspace's block for one-URL scrapes is given back once idle.
      for (let i = 0; i < 100 && (await held()); i++) await new Promise((r) => setTimeout(r, 100));
      expect(await held()).toBe(0);
      const me = (await t.call('GET', '/me', { key: ws.apiKey })).body;
      expect(me.credits).toMatchObject({ used: 0, remaining: 1000 });
    } finally {
      await t.db.prisma.$executeRawUnsafe(`ALTER TABLE job DROP CONSTRAINT unwritten_job`);
    }
  });
});
