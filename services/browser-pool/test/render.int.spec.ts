import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { browserPoolV1 } from '@tidemark/contracts';
import { ApiError } from '@tidemark/errors';
import { callUnary } from '@tidemark/rpc';
import { createLogger } from '@tidemark/telemetry';
import { buildApp, type BrowserPoolApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { page, startLocalWeb, type LocalWeb } from './support/local-web.js';

const request = (over: Partial<browserPoolV1.RenderRequest>): browserPoolV1.RenderRequest => ({
  ...browserPoolV1.RenderRequest.fromPartial({}),
  ...over,
});

const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

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
    expect(res.screenshotJpeg.length).toBe(0);
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

  it('takes a JPEG screenshot of the viewport or the full page', async () => {
    const viewport = await app.renderer.render(
      request({ url: site('/tall'), screenshot: true, viewportWidth: 800, viewportHeight: 600 }),
    );
    const full = await app.renderer.render(
      request({
        url: site('/tall'),
        screenshot: true,
        screenshotFullPage: true,
        viewportWidth: 800,
        viewportHeight: 600,
      }),
    );
    for (const shot of [viewport.screenshotJpeg, full.screenshotJpeg]) {
      expect([...shot.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      expect([...shot.subarray(-2)]).toEqual([0xff, 0xd9]);
    }
    // JPEG SOF0 height of the full page exceeds the viewport's.
    const height = (jpeg: Buffer) => {
      for (let i = 2; i < jpeg.length;) {
        const marker = jpeg[i + 1]!;
        if (marker >= 0xc0 && marker <= 0xc2) return jpeg.readUInt16BE(i + 5);
        i += 2 + jpeg.readUInt16BE(i + 2);
      }
      return 0;
    };
    expect(height(viewport.screenshotJpeg)).toBe(600);
    expect(height(full.screenshotJpeg)).toBeGreaterThan(2900);
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

  it('waits for a selector, and times out clearly when the page is too slow', async () => {
    const late = await app.renderer.render(request({ url: site('/late'), waitForSelector: '#late' }));
    expect(late.html).toContain('id="late"');
    const started = Date.now();
    const err = await app.renderer.render(request({ url: site('/slow'), timeoutMs: 1_000 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'validation', meta: { details: { reason: 'timeout' } } });
    expect((err as Error).message).toMatch(/^page timeout: /);
    expect(Date.now() - started).toBeLessThan(4_000);
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
