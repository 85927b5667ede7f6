import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BrowserPoolApp } from '../src/app.js';
import { request, startApp } from './support/app.js';
import { page, startLocalWeb, type LocalWeb } from './support/local-web.js';

const waitFor = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) => {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('the browser pool under failure and load', () => {
  let web: LocalWeb;
  let app: BrowserPoolApp;

  beforeAll(async () => {
    web = await startLocalWeb({
      '/': page('<h1>fine</h1>'),
      '/hang': page('<h1>hanging</h1><img src="/never.png">'),
      '/never.png': () => undefined,
      '/work': page(
        '<p id="n"></p><script>let s = 0; for (let i = 0; i < 2e5; i++) s += i; n.textContent = String(s);</script>',
      ),
    });
    ({ app } = await startApp(
      { FETCH_ALLOW_NETWORKS: '127.0.0.0/8', FETCH_HOST_MAP: `*.test=127.0.0.1:${web.port}` },
      { recycleAfter: 6 },
    ));
  });
  afterAll(async () => {
    await app?.stop();
    await web?.close();
  });

  it('fails a render whose tab crashes, and the next render succeeds', async () => {
    const rendering = app.renderer
      .render(request({ url: 'http://site.test/hang', timeoutMs: 20_000 }))
      .catch((e: unknown) => e);
    // Crash the renderer of the tab that is loading /hang (Page.crash is what an OOM looks like).
    let crashedOne = false;
    await waitFor('the hanging tab', async () => {
      for (const browser of app.pool.browsers())
        for (const p of await browser.pages())
          if (p.url().endsWith('/hang')) {
            const cdp = await p.createCDPSession();
            void cdp.send('Page.crash').catch(() => undefined);
            crashedOne = true;
          }
      return crashedOne;
    });
    const err = await rendering;
    expect(err).toMatchObject({ code: 'unavailable', meta: { details: { reason: 'crashed' } } });
    expect((err as Error).message).toMatch(/^page crashed: /);
    const next = await app.renderer.render(request({ url: 'http://site.test/' }));
    expect(next.html).toContain('fine');
  });

  it('survives a browser process being killed: the next render relaunches it', async () => {
    const before = app.pool.browsers();
    for (const b of before) b.process()?.kill('SIGKILL');
    const res = await app.renderer.render(request({ url: 'http://site.test/' }));
    expect(res.html).toContain('fine');
    await waitFor('both browsers back', () => app.pool.browsers().length === 2);
    expect(app.pool.browsers().some((b) => before.includes(b))).toBe(false);
  });

  it('completes 8 renders at once with 4 tabs, queueing the rest', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => app.renderer.render(request({ url: `http://site.test/work?i=${i}` }))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    for (const r of results) expect(r.html).toContain('19999900000');
  });

  it('recycles a browser after N renders and keeps serving', async () => {
    const seen = new Set(app.pool.browsers());
    for (let i = 0; i < 14; i++) await app.renderer.render(request({ url: `http://site.test/?r=${i}` }));
    await waitFor('both browsers up', () => app.pool.browsers().length === 2);
    expect(app.pool.browsers().some((b) => !seen.has(b))).toBe(true);
  });
});
