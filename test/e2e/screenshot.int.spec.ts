import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GUIDE_HEIGHT, startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

/** Width and height of a PNG (IHDR) or a JPEG (its SOF marker). */
const imageSize = (image: Buffer): { width: number; height: number } => {
  if (image[0] === 0x89) return { width: image.readUInt32BE(16), height: image.readUInt32BE(20) };
  for (let i = 2; i < image.length;) {
    const marker = image[i + 1]!;
    if (marker >= 0xc0 && marker <= 0xc2)
      return { width: image.readUInt16BE(i + 7), height: image.readUInt16BE(i + 5) };
    i += 2 + image.readUInt16BE(i + 2);
  }
  return { width: 0, height: 0 };
};

/** The image of a row's `screenshot` data URL, with its type. */
const imageOf = (dataUrl: string) => {
  const m = /^data:(image\/(?:jpeg|png));base64,(.+)$/.exec(dataUrl);
  expect(m).not.toBeNull();
  const bytes = Buffer.from(m![2]!, 'base64');
  return { type: m![1], bytes, ...imageSize(bytes) };
};

/**
 * Screenshots (config `screenshot`: full_page, width, format, quality) through the fleet, on
 * chandlery.test's buyer's guide: a page the http rung reads well, laid out GUIDE_HEIGHT px high.
 */
describe('screenshots through the fleet (real Chromium)', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  const guide = () => web.url('chandlery.test', '/guide/anchoring');

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, FLEET_BROWSER_POOL: '1', CRAWL_TICK_MS: '50' });
    const ws = await t.createWorkspace('shots');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
  });
  afterAll(async () => {
    await t?.stop();
    await web?.close();
  });

  const scrape = async (body: Record<string, unknown>) => {
    const res = await t.call('POST', '/scrape', { key, body: { url: guide(), ...body } });
    expect(res.status).toBe(200);
    return { row: res.body.data[0], credits: res.headers.get('x-service-credits'), envelope: res.body };
  };

  it('takes a page the http rung reads by the browser when a screenshot is asked, and charges the browser', async () => {
    const plain = await scrape({ formats: 'markdown' });
    expect(plain.row).toMatchObject({ verdict: 'ok', method: 'http', credits: 1 });
    const shot = await scrape({ formats: 'markdown,screenshot' });
    expect(shot.row).toMatchObject({ verdict: 'ok', method: 'browser', tier: 'browser', credits: 5, billedAs: null });
    expect(shot.envelope.creditsUsed).toBe(5);
    expect(shot.credits).toBe('5');
    expect(shot.row.markdown).toContain('Choosing an anchor');
    expect(shot.row.warnings).toEqual([]);
    // The default: the viewport (1366 × 900) as a JPEG.
    const image = imageOf(shot.row.screenshot);
    expect(image).toMatchObject({ type: 'image/jpeg', width: 1366, height: 900 });
  });

  it('takes the whole of a long page as one image, as PNG at the width asked', async () => {
    const { row } = await scrape({
      formats: 'markdown,screenshot',
      config: { screenshot: { full_page: true, format: 'png', width: 1024 } },
    });
    expect(row).toMatchObject({ method: 'browser', credits: 5 });
    const image = imageOf(row.screenshot);
    expect(GUIDE_HEIGHT).toBe(12_500);
    expect(image).toMatchObject({ type: 'image/png', width: 1024, height: GUIDE_HEIGHT });
    expect(row.warnings).toEqual([]);
  });

  it('takes JPEG at the quality asked', async () => {
    const sizeAt = async (quality: number) =>
      imageOf((await scrape({ formats: 'screenshot', config: { screenshot: { quality } } })).row.screenshot).bytes
        .length;
    expect(await sizeAt(20)).toBeLessThan(await sizeAt(95));
  });

  it('says why there is no screenshot when maxTier or maxCredits keep the page from the browser', async () => {
    const tier = await scrape({ formats: 'markdown,screenshot', config: { max_tier: 'http' } });
    expect(tier.row).toMatchObject({ method: 'http', credits: 1 });
    expect(tier.row.screenshot).toBeUndefined();
    expect(tier.row.warnings).toEqual(['screenshot not taken: it needs the browser rung; maxTier is http']);
    const budget = await scrape({ formats: 'markdown,screenshot', maxCredits: 2 });
    expect(budget.row).toMatchObject({ method: 'http', credits: 1 });
    expect(budget.row.warnings).toEqual(['screenshot not taken: the browser rung costs 5 credits; maxCredits is 2']);
  });

  it('refuses screenshot options out of range, naming the key', async () => {
    for (const screenshot of [{ width: 100 }, { format: 'gif' }, { quality: 0 }, { fullPage: true }]) {
      const res = await t.call('POST', '/scrape', {
        key,
        body: { url: guide(), formats: 'screenshot', config: { screenshot } },
      });
      expect([JSON.stringify(screenshot), res.status]).toEqual([JSON.stringify(screenshot), 422]);
      expect(res.body.error).toMatch(/screenshot/);
    }
  });

  it('keeps a project’s full-page PNG and serves it as image/png', async () => {
    const created = await t.call('POST', '/projects', {
      key,
      body: {
        seed: guide(),
        config: {
          useSitemap: false,
          maxDepth: 0,
          formats: ['markdown', 'screenshot'],
          screenshot: { full_page: true, format: 'png', width: 800 },
        },
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const started = await t.call('POST', `/projects/${id}/runs`, { key });
    for (let i = 0; i < 300; i++) {
      const run = await t.call('GET', `/projects/${id}/runs/${started.body.id}`, { key });
      if (!['queued', 'running'].includes(run.body.status)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const res = await fetch(`${t.apiUrl}/projects/${id}/pages/screenshot?url=${encodeURIComponent(guide())}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(imageSize(Buffer.from(await res.arrayBuffer()))).toEqual({ width: 800, height: GUIDE_HEIGHT });
  }, 60_000);

  it('reads the page over http and says so when the browser tier is down', async () => {
    await t.fleet.stopService('browserPool');
    const { row } = await scrape({ formats: 'markdown,screenshot' });
    expect(row).toMatchObject({ verdict: 'ok', method: 'http', credits: 1 });
    expect(row.screenshot).toBeUndefined();
    expect(row.warnings).toEqual([
      'browser tier unavailable',
      'screenshot not taken: the page was read by the http rung',
    ]);
  }, 60_000);
});
