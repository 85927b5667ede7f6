import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { BrowserPoolApp } from '../src/app.js';
import { ProxySession } from '../src/proxy/forward-proxy.js';
import { request, startApp } from './support/app.js';
import { page, startLocalWeb, type LocalWeb } from './support/local-web.js';

describe('the fetch guard inside the browser', () => {
  let web: LocalWeb;
  let strict: BrowserPoolApp;
  let open: BrowserPoolApp;

  beforeAll(async () => {
    web = await startLocalWeb({
      '/': page('<h1>home of site.test</h1>'),
      '/to-private': (_req, res) => res.writeHead(302, { location: 'http://10.255.255.1/' }).end(),
      '/to-private-name': (_req, res) => res.writeHead(302, { location: 'http://intranet.example/' }).end(),
      '/sub': page(
        '<p id="out">pending</p>',
        `<script>
          const out = (t) => { document.getElementById('out').textContent = t; };
          addEventListener('DOMContentLoaded', () => {
            fetch('http://10.0.0.1/secret').then((r) => r.text()).then((t) => out('reached ' + t), () => out('fetch failed'));
          });
        </script><img src="http://10.0.0.2/pixel.png">`,
      ),
    });
    // No FETCH_ALLOW_NETWORKS: loopback is refused like any private address.
    ({ app: strict } = await startApp({ BROWSER_POOL_BROWSERS: '1', BROWSER_POOL_TABS_PER_BROWSER: '1' }));
    ({ app: open } = await startApp(
      { FETCH_ALLOW_NETWORKS: '127.0.0.0/8', FETCH_HOST_MAP: `*.test=127.0.0.1:${web.port}` },
      // intranet.example resolves to a private address; the guard must refuse it after DNS.
      { lookup: async (host) => (host === 'intranet.example' ? [{ address: '192.168.1.10', family: 4 }] : []) },
    ));
  });
  afterAll(async () => {
    await strict?.stop();
    await open?.stop();
    await web?.close();
  });

  it('refuses a loopback URL when FETCH_ALLOW_NETWORKS is empty', async () => {
    const before = web.seen.length;
    const err = await strict.renderer.render(request({ url: `${web.url}/` })).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'forbidden',
      meta: { details: { reason: 'blocked_address', address: '127.0.0.1' } },
    });
    expect((err as Error).message).toMatch(/^blocked address: /);
    expect(web.seen.length).toBe(before);
  });

  it('refuses an https URL to a private address (CONNECT tunnel)', async () => {
    const err = await strict.renderer.render(request({ url: 'https://10.1.2.3/' })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'forbidden', meta: { details: { reason: 'blocked_address' } } });
  });

  it('renders a host-mapped test host from the local server when loopback is allowed', async () => {
    const res = await open.renderer.render(request({ url: 'http://site.test/' }));
    expect(res.status).toBe(200);
    expect(res.html).toContain('home of site.test');
    expect(web.seen.at(-1)?.headers.host).toBe('site.test');
  });

  it('refuses a redirect to a private address', async () => {
    const err = await open.renderer.render(request({ url: 'http://site.test/to-private' })).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'forbidden',
      meta: { details: { reason: 'blocked_address', address: '10.255.255.1' } },
    });
  });

  it('refuses a redirect to a name that resolves to a private address', async () => {
    const err = await open.renderer
      .render(request({ url: 'http://site.test/to-private-name' }))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'forbidden',
      meta: { details: { reason: 'blocked_address', host: 'intranet.example', address: '192.168.1.10' } },
    });
  });

  it('does not let a script or an image reach a private address, and still renders the page', async () => {
    const refused = jest.spyOn(ProxySession.prototype, 'refuse');
    try {
      const res = await open.renderer.render(
        request({ url: 'http://site.test/sub', waitForSelector: '#out:not(:empty)' }),
      );
      expect(res.status).toBe(200);
      expect(res.html).toContain('<p id="out">fetch failed</p>');
      // Refused at once by the proxy's guard (no connection tried), not left to time out against
      // an unroutable address.
      const refusals = refused.mock.calls.map(([host, refusal]) => [host, refusal.kind]);
      expect(refusals).toEqual(
        expect.arrayContaining([
          ['10.0.0.1', 'blocked'],
          ['10.0.0.2', 'blocked'],
        ]),
      );
    } finally {
      refused.mockRestore();
    }
  });
});
