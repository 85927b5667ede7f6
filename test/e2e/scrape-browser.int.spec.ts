import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

describe('the browser rungs through the fleet (real Chromium)', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, FLEET_BROWSER_POOL: '1' });
    const ws = await t.createWorkspace('browser');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
  });
  afterAll(async () => {
    await t?.stop();
    await web.close();
  });

  const scrape = async (path: string, extra: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/scrape', { key, body: { url: web.url('pages.test', path), ...extra } });
    expect([path, res.status]).toEqual([path, 200]);
    return res.body.data[0];
  };

  it('climbs an app shell to the browser, which reads it: ok with render confirmed, 5 credits', async () => {
    const page = await scrape('/app', { formats: 'markdown' });
    expect(page).toMatchObject({
      verdict: 'ok',
      errorCode: 'OK',
      method: 'browser',
      tier: 'browser',
      climbedTo: 'browser',
      credits: 5,
      billedAs: null,
    });
    expect(page.signals).toContain('render confirmed');
    expect(page.markdown).toContain('Rendered');
  });

  it('climbs an app shell that serves its footer: the footer is not read as the page', async () => {
    const page = await scrape('/app-with-footer', { formats: 'markdown' });
    expect(page).toMatchObject({ verdict: 'ok', method: 'browser', climbedTo: 'browser', credits: 5 });
    expect(page.markdown).toContain('Rendered lamp');
    expect(page.markdown).not.toContain('Help centre');
  });

  it('stops an app shell that serves its footer at maxTier http, as a shell with no content', async () => {
    const page = await scrape('/app-with-footer', { formats: 'markdown', config: { maxTier: 'http' } });
    expect(page).toMatchObject({ verdict: 'blocked', errorCode: 'TIER_LIMIT', method: 'http' });
    expect(page.signals).toContain('app shell');
    expect(page.markdown).toBe('');
  });

  it('climbs a shell whose description is a passage: the description does not pass for the page', async () => {
    const page = await scrape('/thread-shell', { formats: 'markdown' });
    expect(page).toMatchObject({ verdict: 'ok', method: 'browser', climbedTo: 'browser' });
    expect(page.markdown).toContain('Best first telescope?');
    expect(page.markdown).toContain('thread');
  });

  it('gives a shell its passage-length description as content at maxTier http, still a shell', async () => {
    const page = await scrape('/thread-shell', { formats: 'markdown', config: { maxTier: 'http' } });
    expect(page).toMatchObject({ verdict: 'blocked', errorCode: 'TIER_LIMIT', method: 'http' });
    expect(page.signals).toEqual(expect.arrayContaining(['app shell', 'declared content']));
    expect(page.markdown).toMatch(/^Howdy everyone… I'm new to astronomy .* Refractor or reflector\?$/);
    expect(page.words).toBeGreaterThan(20);
  });

  it('starts at the browser with render_js always, and takes a JPEG screenshot', async () => {
    const page = await scrape('/article', { config: { render_js: 'always' }, formats: 'markdown,screenshot' });
    expect(page).toMatchObject({ verdict: 'ok', method: 'browser', credits: 5 });
    expect(page.screenshot).toMatch(/^data:image\/jpeg;base64,\/9j\//);
  });

  // This fleet has no residential exits: the browser is the top of its ladder, so what stood in
  // the way is the answer, whatever maxTier allows.
  it('reports the captcha widget the browser finds as CAPTCHA: no higher rung in this deployment', async () => {
    for (const maxTier of ['browser', 'browser+exit']) {
      const page = await scrape('/captcha', { config: { maxTier } });
      expect([maxTier, page]).toEqual([
        maxTier,
        expect.objectContaining({
          verdict: 'blocked',
          errorCode: 'CAPTCHA',
          method: 'browser',
          climbedTo: 'browser',
          widget: 'recaptcha',
          solved: 'none',
          credits: 5,
        }),
      ]);
      expect(page.signals).toContain('captcha recaptcha');
      expect(page.reason).toMatch(/captcha/i);
      expect(page.reason).not.toMatch(/maxTier/);
      expect(page.warnings).toEqual([]);
    }
  });

  it('reports a bot challenge as BLOCKED and a 451 as GEO_RESTRICTED, with their signals', async () => {
    const challenge = await scrape('/bot-check');
    expect(challenge).toMatchObject({
      verdict: 'blocked',
      errorCode: 'BLOCKED',
      httpStatus: 403,
      method: 'browser',
      climbedTo: 'browser',
      widget: null,
      credits: 5,
    });
    expect(challenge.signals).toEqual(expect.arrayContaining(['challenge', 'host fingerprint']));
    expect(challenge.reason).toMatch(/refused us.*\(challenge, host fingerprint/);
    // Cloudflare's challenge is its Turnstile widget: the browser names it.
    expect(await scrape('/challenge')).toMatchObject({
      errorCode: 'CAPTCHA',
      httpStatus: 403,
      climbedTo: 'browser',
      widget: 'turnstile',
    });
    const geo = await scrape('/unavailable-for-legal-reasons');
    expect(geo).toMatchObject({
      verdict: 'blocked',
      errorCode: 'GEO_RESTRICTED',
      httpStatus: 451,
      method: 'browser',
      climbedTo: 'browser',
      credits: 5,
    });
    expect(geo.signals).toContain('http 451');
    expect(geo.reason).toMatch(/region.*http 451/);
  });

  it('loses no URL when the browser pool dies during a batch', async () => {
    // Enough pages that the batch cannot be done before the pool is stopped.
    const urls = Array.from({ length: 60 }, (_, i) => web.url('pages.test', `/app?n=${i}`));
    const res = await t.call('POST', '/scrape', { key, body: { urls } });
    expect(res.status).toBe(202);
    await new Promise((r) => setTimeout(r, 1000));
    await t.fleet.stopService('browserPool');
    let job = res.body;
    for (let i = 0; i < 200 && job.status !== 'done'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      job = (await t.call('GET', `/scrape/${res.body.id}`, { key })).body;
    }
    expect(job.status).toBe('done');
    expect(job.data).toHaveLength(60);
    for (const row of job.data) {
      expect(row.status).toBe('done');
      if (row.method === 'browser') expect(row).toMatchObject({ verdict: 'ok', credits: 5 });
      else {
        expect(row).toMatchObject({ method: 'http', errorCode: 'SHELL', credits: 1 });
        expect(row.warnings.join(' ')).toMatch(/browser (tier unavailable|rung failed)/);
      }
    }
    expect(job.data.some((r: { method: string }) => r.method === 'http')).toBe(true);
  });
});

describe('the playground', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, FLEET_BROWSER_POOL: '1' });
    key = (await t.createWorkspace('playground')).apiKey;
  });
  afterAll(async () => {
    await t?.stop();
    await web.close();
  });

  it('reads a page with its evidence, rung by rung, and serves the screenshot', async () => {
    const started = await t.call('POST', '/playground/extract', { key, body: { url: web.url('pages.test', '/app') } });
    expect(started.status).toBe(202);
    const res = await t.call('GET', `/playground/${started.body.id}?wait=30`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'done', creditsUsed: 5, result: { verdict: 'ok', method: 'browser' } });
    expect(res.body.evidence.attempts.map((a: { rung: string; errorCode: string }) => [a.rung, a.errorCode])).toEqual([
      ['http', 'SHELL'],
      ['browser', 'OK'],
    ]);
    expect(res.body.evidence.attempts[0].signals).toContain('app shell');
    expect(res.body.result).toHaveProperty('markdown');
    expect(res.body.result).toHaveProperty('html');
    const shot = await fetch(res.body.screenshot, { headers: { authorization: `Bearer ${key}` } });
    expect(shot.status).toBe(200);
    expect(shot.headers.get('content-type')).toBe('image/jpeg');
    const bytes = Buffer.from(await shot.arrayBuffer());
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
  });

  it('keeps to http when the browser is not allowed, and has no screenshot', async () => {
    const started = await t.call('POST', '/playground/extract', {
      key,
      body: { url: web.url('pages.test', '/app'), allow_browser: false },
    });
    const res = await t.call('GET', `/playground/${started.body.id}?wait=30`, { key });
    expect(res.body.result).toMatchObject({ errorCode: 'TIER_LIMIT', method: 'http' });
    expect(res.body.screenshot).toBeNull();
    expect((await t.call('GET', `/playground/${started.body.id}/screenshot`, { key })).status).toBe(404);
    const other = (await t.createWorkspace('nosy')).apiKey;
    expect((await t.call('GET', `/playground/${started.body.id}`, { key: other })).status).toBe(404);
    // A scrape job is not a playground job and the other way round.
    expect((await t.call('GET', `/scrape/${started.body.id}`, { key })).status).toBe(404);
  });
});

describe('a deployment with residential exits (GET /v1/me/proxies)', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({
      FETCH_HOST_MAP: web.hostMap,
      FLEET_BROWSER_POOL: '1',
      BROWSER_EXITS: 'http://alice:s3cret@127.0.0.1:3128,http://127.0.0.1:3129',
    });
    const ws = await t.createWorkspace('proxies');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
  });
  afterAll(async () => {
    await t?.stop();
    await web.close();
  });

  it('stops a captcha at maxTier browser with TIER_LIMIT, naming the browser+exit rung it forbade', async () => {
    const res = await t.call('POST', '/scrape', {
      key,
      body: { url: web.url('pages.test', '/captcha'), config: { maxTier: 'browser' } },
    });
    expect(res.status).toBe(200);
    const page = res.body.data[0];
    expect(page).toMatchObject({
      verdict: 'blocked',
      errorCode: 'TIER_LIMIT',
      method: 'browser',
      climbedTo: 'browser',
      widget: 'recaptcha',
      solved: 'none',
      credits: 5,
    });
    expect(page.reason).toMatch(/captcha recaptcha.*the browser\+exit rung would be needed; maxTier is browser/);
  });

  it('lists the exits with masked credentials, and answers 503 without a browser pool', async () => {
    const res = await t.call('GET', '/me/proxies', { key });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    // The captcha above stopped short of the exits: none was used.
    expect(res.body.data[0]).toMatchObject({ status: 'ok', requests: 0 });
    expect(JSON.stringify(res.body)).not.toContain('s3cret');
    await t.fleet.stopService('browserPool');
    const down = await t.call('GET', '/me/proxies', { key });
    expect(down.status).toBe(503);
    expect(down.body.code).toBe('unavailable');
  });
});
