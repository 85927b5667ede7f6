import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { patternsSite, PATTERNS_SITE, startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

/** The cap on a page's HTML, set low here so a few megabytes cross it (the default is 10 MB). */
const CAP = 2 * 1024 * 1024;

describe("the browser rung's cap on a page's HTML, through the fleet (real Chromium)", () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;

  beforeAll(async () => {
    web = await startTestWeb();
    web.addSite('patterns.test', patternsSite());
    web.addSite('big-body.test', {
      '/': {
        type: 'text/html; charset=utf-8',
        body: `<!doctype html><html><body><p>${'tide '.repeat(700_000)}</p></body></html>`,
      },
    });
    t = await startTestFleet({
      FETCH_HOST_MAP: web.hostMap,
      FLEET_BROWSER_POOL: '1',
      SCRAPE_MAX_BODY_BYTES: String(CAP),
    });
    const ws = await t.createWorkspace('browser-cap');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
  });
  afterAll(async () => {
    await t?.stop();
    await web.close();
  });

  const scrape = async (url: string, extra: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/scrape', { key, body: { url, formats: 'markdown', ...extra } });
    expect(res.status).toBe(200);
    return res.body.data[0];
  };

  it('refuses a page its scripts make larger than the cap, as the http rung refuses a body past it', async () => {
    // 20 KB from the server: the http rung reads it whole; in Chromium it grows to 3 MB.
    const swollen = await scrape(web.url('patterns.test', PATTERNS_SITE.swell), { config: { render_js: 'always' } });
    // No rung read the page: no method, nothing billed.
    expect(swollen).toMatchObject({ method: null, verdict: 'blocked', errorCode: 'NETWORK', credits: 0 });
    expect(swollen.reason).toMatch(new RegExp(`page too large: the rendered page at .* is larger than ${CAP} bytes`));
    expect(swollen.markdown ?? '').toBe('');

    // The same cap on the http rung: a 3.5 MB body is cut off.
    const big = await scrape(web.url('big-body.test', '/'));
    expect(big).toMatchObject({ verdict: 'blocked', errorCode: 'NETWORK', credits: 0 });
    expect(big.reason).toBe(`page too large: the body is larger than ${CAP} bytes`);

    // Pages under the cap render as before.
    const home = await scrape(web.url('patterns.test', '/'), { config: { render_js: 'always' } });
    expect(home).toMatchObject({ method: 'browser', verdict: 'ok', errorCode: 'OK' });
    expect(home.markdown).toContain('Harbour Chandlery');
  });
});
