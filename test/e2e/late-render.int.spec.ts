import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

/**
 * Apps that render after the load event (chandlery.test's catalogue, libs/testkit): the browser
 * rung waits for the DOM to settle (mutations quiet, network idle, the page's short timers run)
 * before it captures, on a hidden lane (markdown only) and on a shown one (a screenshot).
 */
describe('late-rendering apps through the fleet (real Chromium)', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, FLEET_BROWSER_POOL: '1' });
    const ws = await t.createWorkspace('late');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
  });
  afterAll(async () => {
    await t?.stop();
    await web?.close();
  });

  const scrape = async (path: string, formats: string) => {
    const res = await t.call('POST', '/scrape', { key, body: { url: web.url('chandlery.test', path), formats } });
    expect([path, res.status]).toEqual([path, 200]);
    return res.body.data[0];
  };

  /**
   * The eight products and the intro, all of them: the page was read whole. A page read by the
   * http rung first is a shell there, and the browser's reading says `render confirmed`; a page
   * that asked for a screenshot starts at the browser, so there is no http reading to confirm.
   */
  const expectWhole = (
    path: string,
    page: { markdown: string; words: number; [k: string]: unknown },
    climbed = true,
  ) => {
    expect([path, page.verdict, page.errorCode, page.method, page.credits]).toEqual([path, 'ok', 'OK', 'browser', 5]);
    if (climbed) expect(page.signals).toContain('render confirmed');
    else expect(page.climbedTo).toBe('browser');
    for (const product of [
      'Galvanised anchor chain',
      'Bruce pattern anchor',
      'Three strand mooring line',
      'Inflatable fender',
      'Handheld VHF radio',
      'Offshore lifejacket',
      'Stainless deck cleat',
      'Tide tables for the coast',
    ])
      expect([path, page.markdown.includes(product)]).toEqual([path, true]);
    expect(page.markdown).toContain('trade customers should sign in');
    expect(page.markdown).not.toContain('Loading');
    expect(page.words).toBeGreaterThan(180);
  };

  it.each(['0', '150', '800', '2500'])(
    'reads an app that renders %s ms after load whole, on a hidden lane',
    async (ms) => {
      const path = `/catalogue/${ms}`;
      expectWhole(path, await scrape(path, 'markdown'));
    },
    60_000,
  );

  it.each(['0', '150', '800', '2500'])(
    'reads an app that renders %s ms after load whole when a screenshot is taken (a shown lane)',
    async (ms) => {
      const path = `/catalogue/${ms}`;
      const page = await scrape(path, 'markdown,screenshot');
      expectWhole(path, page, false);
      expect(page.screenshot).toMatch(/^data:image\/jpeg;base64,/);
    },
    60_000,
  );

  it('captures a page that never stops changing (a ticking clock) once its settling time is spent', async () => {
    const page = await scrape('/catalogue/clock', 'markdown');
    expectWhole('/catalogue/clock', page);
    expect(page.markdown).toMatch(/Shop time \d{4}-/);
  }, 60_000);
});
