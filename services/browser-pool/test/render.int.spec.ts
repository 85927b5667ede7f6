import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { browserPoolV1 } from '@tidemark/contracts';
import { ApiError } from '@tidemark/errors';
import { callUnary } from '@tidemark/rpc';
import { createLogger } from '@tidemark/telemetry';
import { buildApp, type BrowserPoolApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { SETTLE_MAX_MS } from '../src/render/dom-settle.js';
import { page, startLocalWeb, type LocalWeb } from './support/local-web.js';

const request = (over: Partial<browserPoolV1.RenderRequest>): browserPoolV1.RenderRequest => ({
  ...browserPoolV1.RenderRequest.fromPartial({}),
  ...over,
});

const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

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

describe('BrowserPoolService.Render', () => {
  let web: LocalWeb;
  let app: BrowserPoolApp;
  let grpcPort: number;
  const site = (path: string) => `http://site.test${path}`;

  beforeAll(async () => {
    web = await startLocalWeb({
      '/app': page(
        '<div id="root"></div>',
        `<script>addEventListener('DOMContentLoaded', () => {
           const ul = document.createElement('ul');
           for (let i = 1; i <= 3; i++) { const li = document.createElement('li'); li.textContent = 'item ' + i; ul.append(li); }
           document.getElementById('root').append(ul);
           document.title = 'built by script';
         });</script>`,
      ),
      '/tall': page('<div style="height:3000px;background:linear-gradient(red,blue)">tall</div>'),
      '/very-tall': page('<div style="height:40000px;background:linear-gradient(red,blue)">very tall</div>'),
      '/recaptcha': page(
        '<form><div class="g-recaptcha" data-sitekey="6Lc_test"></div></form>',
        '<script src="https://www.google.com/recaptcha/api.js" async defer></script>',
      ),
      '/recaptcha-v3': page(
        '<p>ordinary page</p>',
        '<script src="https://www.google.com/recaptcha/api.js?render=6Lc_key"></script>',
      ),
      '/hcaptcha': page(
        '<div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001"></div>',
        '<script src="https://js.hcaptcha.com/1/api.js" async defer></script>',
      ),
      '/turnstile': page(
        '<div class="cf-turnstile" data-sitekey="1x00000000000000000000AA"></div>',
        '<script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script>',
      ),
      '/datadome': page('<iframe src="https://geo.captcha-delivery.com/captcha/?initialCid=x"></iframe>'),
      '/friendly': page('<div class="frc-captcha" data-sitekey="x"></div>'),
      '/plain': page('<p>nothing to see</p>'),
      // Content that only frames bring: an animation-frame render that then fetches more, and a
      // section drawn when an IntersectionObserver sees it. A hidden lane must still capture both.
      '/frames': page(
        '<div id="lazy">lazy section</div>',
        `<script>
           requestAnimationFrame(() => {
             const p = document.createElement('p'); p.id = 'raf'; p.textContent = 'drawn in a frame'; document.body.append(p);
             fetch('/frames-data').then((r) => r.text()).then((t) => {
               const q = document.createElement('p'); q.id = 'fetched'; q.textContent = t; document.body.append(q);
             });
           });
           new IntersectionObserver((entries, io) => {
             if (!entries.some((e) => e.isIntersecting)) return;
             io.disconnect();
             const p = document.createElement('p'); p.id = 'seen'; p.textContent = 'seen by an observer'; document.body.append(p);
           }).observe(document.getElementById('lazy'));
         </script>`,
      ),
      '/frames-data': (_req, res) => {
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('fetched after the frame'), 100);
      },
      '/hop1': (_req, res) => res.writeHead(302, { location: '/hop2' }).end(),
      '/hop2': (_req, res) => res.writeHead(301, { location: '/landed' }).end(),
      '/landed': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'x-site': 'landed' });
        res.end(page('<h1>landed</h1>'));
      },
      '/gone': (_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end(page('<h1>gone</h1>')),
      '/late': page(
        `<script>setTimeout(() => { const d = document.createElement('div'); d.id = 'late'; document.body.append(d); }, 300);</script>`,
      ),
      // Never settles: the DOM changes every 30 ms, and a request hangs for good. At 8 s it marks
      // itself: later than its 2.5 s budget, sooner than the 10 s a render waits at most to settle.
      '/restless': page(
        '<p id="n">0</p>',
        `<script>setInterval(() => { const n = document.getElementById('n'); n.textContent = String(Number(n.textContent) + 1); }, 30);
           setTimeout(() => { const p = document.createElement('p'); p.id = 'eight-seconds'; document.body.append(p); }, 8_000);
           fetch('/hang').catch(() => {});</script>`,
      ),
      '/hang': (_req, res) => {
        const t = setTimeout(() => res.end('late'), 60_000);
        res.on('close', () => clearTimeout(t));
      },
      '/slow': (_req, res) => {
        const t = setTimeout(() => res.end(page('slow')), 5_000);
        res.on('close', () => clearTimeout(t));
      },
      '/echo': (req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          page(
            `<pre id="ua">${req.headers['user-agent']}</pre><pre id="x">${req.headers['x-extra'] ?? ''}</pre><pre id="c">${req.headers.cookie ?? ''}</pre>`,
          ),
        );
      },
      '/state': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'server_sid=s1; Path=/' });
        res.end(
          page(
            '<pre id="seen"></pre>',
            `<script>
              document.addEventListener('DOMContentLoaded', async () => {
                const idb = await new Promise((ok) => {
                  const r = indexedDB.open('leak');
                  r.onupgradeneeded = () => r.result.createObjectStore('s');
                  r.onsuccess = () => {
                    const tx = r.result.transaction('s', 'readwrite');
                    const g = tx.objectStore('s').get('k');
                    g.onsuccess = () => { tx.objectStore('s').put('1', 'k'); ok(g.result ?? ''); };
                  };
                });
                document.getElementById('seen').textContent = JSON.stringify({
                  cookie: document.cookie.replace(/server_sid=s1;? ?/, ''),
                  local: localStorage.getItem('k') ?? '',
                  session: sessionStorage.getItem('k') ?? '',
                  name: window.name,
                  history: history.length,
                  idb,
                });
                document.cookie = 'script_sid=x; path=/';
                localStorage.setItem('k', '1');
                sessionStorage.setItem('k', '1');
                window.name = 'leaked';
              });
            </script>`,
          ),
        );
      },
      // 2 KB from the server, 3 MB of DOM once its script has run (non-ASCII: 3 bytes a character).
      '/swell': page(
        '<p id="seed">swelling</p>',
        `<script>addEventListener('DOMContentLoaded', () => {
           const p = document.createElement('p'); p.textContent = '\u2248'.repeat(1_000_000); document.body.append(p);
         });</script>`,
      ),
      '/media': page('<img src="/pic.png"><img src="/pic2.jpg?v=1"><p>media</p>'),
      '/pic.png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG),
      '/pic2.jpg': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG),
    });
    app = await buildApp(
      loadConfig({
        BROWSER_POOL_GRPC_LISTEN: '127.0.0.1:0',
        BROWSER_POOL_BROWSERS: '2',
        BROWSER_POOL_TABS_PER_BROWSER: '2',
        FETCH_ALLOW_NETWORKS: '127.0.0.0/8',
        FETCH_HOST_MAP: `*.test=127.0.0.1:${web.port}`,
        LOG_LEVEL: 'silent',
      }),
      { logger: createLogger('test', 'silent') },
    );
    ({ grpcPort } = await app.start());
  });
  afterAll(async () => {
    await app?.stop();
    await web?.close();
  });

  it('returns the HTML a script built after load', async () => {
    const res = await app.renderer.render(request({ url: site('/app') }));
    expect(res.status).toBe(200);
    expect(res.html).toContain('<li>item 3</li>');
    expect(res.html).toContain('<title>built by script</title>');
    expect(res.finalUrl).toBe(site('/app'));
    expect(res.loadMs).toBeGreaterThan(0);
    expect(res.widget).toBe('');
    expect(res.solved).toBe('');
    expect(res.screenshot.length).toBe(0);
    expect(res.screenshotFormat).toBe('');
  });

  it("refuses a rendered DOM past the cap on a page's HTML, measured in UTF-8 bytes in the page", async () => {
    // 1,000,000 characters of 3 bytes: under a 2 MB cap by length, over it in bytes.
    const capped = app.renderer.render(request({ url: site('/swell'), maxHtmlBytes: 2_000_000 }));
    await expect(capped).rejects.toMatchObject({
      code: 'validation',
      message: expect.stringMatching(/^page too large: the rendered page at .*\/swell is larger than 2000000 bytes/),
      meta: { details: { reason: 'too_large', maxBytes: 2_000_000 } },
    });
    // Under the cap it is page.content(): the doctype, then the root element.
    const whole = await app.renderer.render(request({ url: site('/swell'), maxHtmlBytes: 4_000_000 }));
    expect(whole.html).toMatch(/^<!DOCTYPE html><html>/);
    expect(whole.html.length).toBeGreaterThan(1_000_000);
    // The pool's own cap (BROWSER_MAX_HTML_BYTES, 10 MB) bounds what a request may ask for.
    const ordinary = await app.renderer.render(request({ url: site('/app'), maxHtmlBytes: 0 }));
    expect(ordinary.html).toContain('item 3');
  });

  it('captures what frame callbacks draw, though lanes render hidden', async () => {
    const res = await app.renderer.render(request({ url: site('/frames') }));
    expect(res.html).toContain('drawn in a frame');
    expect(res.html).toContain('seen by an observer');
    expect(res.html).toContain('fetched after the frame');
    // A page that asks for no frames is captured without being shown (it stays hidden).
    const plain = await app.renderer.render(request({ url: site('/app') }));
    expect(plain.html).toContain('item 3');
  });

  it('answers over gRPC', async () => {
    const client = new browserPoolV1.BrowserPoolServiceClient(
      `127.0.0.1:${grpcPort}`,
      grpc.credentials.createInsecure(),
    );
    try {
      const res = await callUnary(client, client.render, request({ url: site('/app') }), 'browser-pool', 30_000);
      expect(res.html).toContain('item 1');
      const exits = await callUnary(client, client.listExits, {}, 'browser-pool');
      expect(exits.exits).toEqual([]);
      await expect(
        callUnary(client, client.render, request({ url: 'file:///etc/passwd' }), 'browser-pool'),
      ).rejects.toMatchObject({
        code: 'validation',
      });
    } finally {
      client.close();
    }
  });

  it('takes a screenshot of the viewport or of the whole page as one image, as JPEG or PNG', async () => {
    const shoot = (over: Partial<browserPoolV1.RenderRequest>) =>
      app.renderer.render(
        request({ url: site('/tall'), screenshot: true, viewportWidth: 800, viewportHeight: 600, ...over }),
      );
    const viewport = await shoot({});
    const full = await shoot({ screenshotFullPage: true });
    for (const shot of [viewport, full]) {
      expect(shot.screenshotFormat).toBe('jpeg');
      expect([...shot.screenshot.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      expect([...shot.screenshot.subarray(-2)]).toEqual([0xff, 0xd9]);
    }
    expect(imageSize(viewport.screenshot)).toEqual({ width: 800, height: 600 });
    expect(viewport.pageHeight).toBe(0);
    // The whole page: 3,000 px of content and the body's margins, in one image that high.
    expect(full.pageHeight).toBe(3016);
    expect(imageSize(full.screenshot)).toEqual({ width: 800, height: 3016 });
    // PNG, and JPEG at another quality (fewer bytes at a lower one).
    const png = await shoot({ screenshotFormat: 'png', screenshotFullPage: true });
    expect(png.screenshotFormat).toBe('png');
    expect([...png.screenshot.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(imageSize(png.screenshot)).toEqual({ width: 800, height: 3016 });
    const rough = await shoot({ screenshotQuality: 10 });
    expect(rough.screenshot.length).toBeLessThan(viewport.screenshot.length);
  });

  it('clips a full-page screenshot of a page taller than 16,384 px there, and says how tall the page was', async () => {
    const res = await app.renderer.render(
      request({ url: site('/very-tall'), screenshot: true, screenshotFullPage: true, viewportWidth: 640 }),
    );
    expect(res.pageHeight).toBe(40_016);
    expect(imageSize(res.screenshot)).toEqual({ width: 640, height: 16_384 });
  });

  it.each([
    ['/recaptcha', 'recaptcha'],
    ['/hcaptcha', 'hcaptcha'],
    ['/turnstile', 'turnstile'],
    ['/datadome', 'datadome'],
    ['/friendly', 'friendly-captcha'],
  ])('detects the captcha widget on %s', async (path, widget) => {
    const res = await app.renderer.render(request({ url: site(path), blockMedia: true }));
    expect(res.widget).toBe(widget);
    expect(res.solved).toBe('none');
  });

  it('does not call an invisible reCAPTCHA v3 or a plain page a widget', async () => {
    for (const path of ['/recaptcha-v3', '/plain']) {
      const res = await app.renderer.render(request({ url: site(path) }));
      expect(res.widget).toBe('');
    }
  });

  it('follows redirects and reports the chain, final URL, status and headers', async () => {
    const res = await app.renderer.render(request({ url: site('/hop1') }));
    expect(res.redirects).toEqual([site('/hop1'), site('/hop2'), site('/landed')]);
    expect(res.finalUrl).toBe(site('/landed'));
    expect(res.status).toBe(200);
    expect(res.headers['x-site']).toBe('landed');
    const gone = await app.renderer.render(request({ url: site('/gone') }));
    expect(gone.status).toBe(404);
    expect(gone.redirects).toEqual([]);
  });

  it('waits for the DOM to settle: what a timer adds after load is captured without asking', async () => {
    const late = await app.renderer.render(request({ url: site('/late') }));
    expect(late.html).toContain('id="late"');
  });

  it('captures a page that never settles as it stands when its time budget is spent, not as a timeout', async () => {
    const res = await app.renderer.render(request({ url: site('/restless'), timeoutMs: 2_500 }));
    expect(res.status).toBe(200);
    // The counter ran for most of the budget: the page was not captured at load.
    expect(Number(/<p id="n">(\d+)<\/p>/.exec(res.html)?.[1])).toBeGreaterThan(20);
    // Captured when its budget was spent, not held to the settle cap (SETTLE_MAX_MS).
    expect(SETTLE_MAX_MS).toBeGreaterThan(8_000);
    expect(res.html).not.toContain('<p id="eight-seconds">');
  });

  it('waits for a selector, and times out clearly when the page is too slow', async () => {
    const late = await app.renderer.render(request({ url: site('/late'), waitForSelector: '#late' }));
    expect(late.html).toContain('id="late"');
    // /slow answers after 5 s: a timeout verdict for the 1 s navigation budget means the render
    // gave up at its budget (a render that overran it would have the page, or the capture timeout).
    const err = await app.renderer.render(request({ url: site('/slow'), timeoutMs: 1_000 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'validation', meta: { details: { reason: 'timeout', timeoutMs: 1_000 } } });
    expect((err as Error).message).toMatch(/^page timeout: .* did not reach the wait condition within 1000 ms$/);
  });

  it('sends the user agent, extra headers and cookies', async () => {
    const res = await app.renderer.render(
      request({
        url: site('/echo'),
        headers: { 'user-agent': 'TidemarkTest/1.0', 'x-extra': 'yes' },
        cookies: [{ name: 'sid', value: 'abc', domain: '', path: '' }],
      }),
    );
    expect(res.html).toContain('<pre id="ua">TidemarkTest/1.0</pre>');
    expect(res.html).toContain('<pre id="x">yes</pre>');
    expect(res.html).toContain('sid=abc');
  });

  it('gives every render a clean context, even on a reused lane', async () => {
    // 2 browsers × 2 lanes: 8 renders in a row land on each lane at least once more. A fresh
    // page's history holds its initial blank entry and the page: 2, never more.
    for (let i = 0; i < 8; i++) {
      const res = await app.renderer.render(request({ url: site('/state'), waitForSelector: '#seen:not(:empty)' }));
      const seen = JSON.parse(/<pre id="seen">(.*?)<\/pre>/.exec(res.html)![1]!.replace(/&quot;/g, '"')) as unknown;
      expect(seen).toEqual({ cookie: '', local: '', session: '', name: '', history: 2, idb: '' });
      const echo = await app.renderer.render(request({ url: site('/echo') }));
      expect(echo.html).toContain('<pre id="c"></pre>');
    }
  });

  it('skips images with block_media, and loads them otherwise', async () => {
    const before = web.seen.length;
    await app.renderer.render(request({ url: site('/media'), blockMedia: true }));
    const blocked = web.seen.slice(before).map((s) => s.path);
    expect(blocked).toContain('/media');
    expect(blocked.filter((p) => p.startsWith('/pic'))).toEqual([]);
    const after = web.seen.length;
    await app.renderer.render(request({ url: site('/media') }));
    expect(web.seen.slice(after).map((s) => s.path)).toEqual(expect.arrayContaining(['/pic.png', '/pic2.jpg?v=1']));
  });
});

describe('a screenshot past BROWSER_MAX_SCREENSHOT_BYTES', () => {
  it('is omitted with the reason, and the page is still answered', async () => {
    const web = await startLocalWeb({
      '/noisy': page(
        '<canvas id="c" width="800" height="2000"></canvas><p>noise</p>',
        `<script>addEventListener('DOMContentLoaded', () => {
           const c = document.getElementById('c').getContext('2d'); let x = 7;
           for (let i = 0; i < 40000; i++) { x = (x * 48271) % 2147483647; c.fillStyle = '#' + (x % 0xffffff).toString(16).padStart(6, '0'); c.fillRect((x >> 4) % 800, (x >> 12) % 2000, 6, 6); }
         });</script>`,
      ),
    });
    const app = await buildApp(
      loadConfig({
        BROWSER_POOL_GRPC_LISTEN: '127.0.0.1:0',
        BROWSER_POOL_BROWSERS: '1',
        BROWSER_POOL_TABS_PER_BROWSER: '1',
        BROWSER_MAX_SCREENSHOT_BYTES: String(64 * 1024),
        FETCH_ALLOW_NETWORKS: '127.0.0.0/8',
        FETCH_HOST_MAP: `*.test=127.0.0.1:${web.port}`,
        LOG_LEVEL: 'silent',
      }),
      { logger: createLogger('test', 'silent') },
    );
    try {
      await app.start();
      const res = await app.renderer.render(
        request({ url: 'http://site.test/noisy', screenshot: true, screenshotFullPage: true, screenshotFormat: 'png' }),
      );
      expect(res.html).toContain('noise');
      expect(res.screenshot.length).toBe(0);
      expect(res.screenshotFormat).toBe('');
      expect(res.screenshotOmitted).toMatch(/^the screenshot is \d+ bytes, more than the 65536 kept$/);
    } finally {
      await app.stop();
      await web.close();
    }
  });
});
