import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { FetchGuard, guardedAgents, parseCidr } from '@tidemark/net-guard';
import { FetchFailure } from '../src/ladder/fetch-error.js';
import { HttpRung } from '../src/ladder/http-rung.js';

/**
 * A connection that breaks before its answer (a kept-alive socket the site closed just as it was
 * reused) is tried once more on a new one, as HTTP clients do for a GET: a one-URL scrape must
 * not answer an error for it.
 */
describe('HttpRung and connections that break', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
    server = undefined;
  });

  /** A site whose first `breaks` requests lose their connection before any answer. */
  const site = async (breaks: number) => {
    const seen = { requests: 0 };
    server = http.createServer((req, res) => {
      seen.requests += 1;
      if (seen.requests <= breaks) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><p>The tide is in.</p></body></html>');
    });
    await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
    return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/page` };
  };
  const rung = new HttpRung(
    guardedAgents(new FetchGuard({ allowNetworks: [parseCidr('127.0.0.0/8')!], hostMap: [] })),
    'TidemarkBot/test',
    1024 * 1024,
  );

  it('reads a page whose first connection broke before the answer, on a new connection', async () => {
    const { seen, url } = await site(1);
    const page = await rung.fetch(url, { timeoutMs: 5000, headers: {} });
    expect(page.status).toBe(200);
    expect(page.html).toContain('The tide is in.');
    expect(seen.requests).toBe(2);
  });

  it('tries once more, not again and again: a page that keeps breaking fails with its reason', async () => {
    const { seen, url } = await site(Infinity);
    const failed = await rung.fetch(url, { timeoutMs: 5000, headers: {} }).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(FetchFailure);
    expect((failed as FetchFailure).message).toMatch(/ECONNRESET/);
    expect(seen.requests).toBe(2);
  });
});
