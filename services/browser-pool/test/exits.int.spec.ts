import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BrowserPoolApp } from '../src/app.js';
import { request, startApp } from './support/app.js';
import { page, startLocalWeb, type LocalWeb } from './support/local-web.js';
import { startUpstreamProxy, type UpstreamProxy } from './support/upstream-proxy.js';

describe('renders through a residential exit', () => {
  let web: LocalWeb;
  let exit: UpstreamProxy;
  let app: BrowserPoolApp;

  beforeAll(async () => {
    web = await startLocalWeb({
      '/': page('<h1>read through the exit</h1><p>' + 'words '.repeat(500) + '</p>'),
    });
    exit = await startUpstreamProxy('alice', 's3cret');
    ({ app } = await startApp({
      FETCH_ALLOW_NETWORKS: '127.0.0.0/8',
      FETCH_HOST_MAP: `*.test=127.0.0.1:${web.port}`,
      BROWSER_EXITS: `http://alice:s3cret@127.0.0.1:${exit.port}`,
    }));
  });
  afterAll(async () => {
    await app?.stop();
    await exit?.close();
    await web?.close();
  });

  it('goes out through the exit with its credentials and counts the bytes', async () => {
    const res = await app.renderer.render(request({ url: 'http://site.test/', useExit: true }));
    expect(res.html).toContain('read through the exit');
    expect(res.exitId).toBe('exit-1');
    expect(res.exitBytes).toBeGreaterThan(3_000);
    expect(exit.seen.some((s) => s.includes(`127.0.0.1:${web.port}/`))).toBe(true);
    expect(exit.refused).toBe(0);
  });

  it('leaves the exit alone without use_exit', async () => {
    const before = exit.seen.length;
    const res = await app.renderer.render(request({ url: 'http://site.test/' }));
    expect(res.exitBytes).toBe(0);
    expect(res.exitId).toBe('');
    expect(exit.seen.length).toBe(before);
  });

  it('still refuses private addresses through the exit', async () => {
    const err = await app.renderer.render(request({ url: 'http://10.9.9.9/', useExit: true })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'forbidden', meta: { details: { reason: 'blocked_address' } } });
  });

  it('lists the exit with its health and masked credentials', async () => {
    const [listed] = app.exits.list();
    expect(listed).toMatchObject({
      id: 'exit-1',
      url: `http://***:***@127.0.0.1:${exit.port}`,
      status: 'ok',
      parity: 1,
    });
    expect(listed!.requests).toBeGreaterThanOrEqual(2);
    expect(listed!.bytes).toBeGreaterThan(3_000);
    expect(JSON.stringify(app.exits.list())).not.toContain('s3cret');
    expect(JSON.stringify(app.exits.list())).not.toContain('alice');
  });
});
