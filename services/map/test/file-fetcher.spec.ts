import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { FetchGuard, guardedAgents, parseCidr } from '@tidemark/net-guard';
import { FileFetcher, FileFetchError } from '../src/discovery/file-fetcher.js';

/**
 * A connection that breaks before its answer is tried once more. A crawl's robots.txt that gets
 * no answer reads as disallowing everything (RFC 9309): a clean-clone CI run once saw a crawl of a
 * site that answers end after its seed page, "robots.txt answered nothing", the site's kept-alive
 * connections having served an earlier crawl of the same test.
 */
describe('FileFetcher', () => {
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
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    });
    await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
    return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/robots.txt` };
  };
  const fetcher = new FileFetcher(
    guardedAgents(new FetchGuard({ allowNetworks: [parseCidr('127.0.0.0/8')!], hostMap: [] })),
    'TidemarkBot/test',
  );
  const text = async (file: { body: NodeJS.ReadableStream }) => {
    let out = '';
    for await (const chunk of file.body) out += chunk.toString();
    return out;
  };

  it('reads a file whose first connection broke before the answer, on a new connection', async () => {
    const { seen, url } = await site(1);
    const file = await fetcher.open(url, 5000);
    expect(file.status).toBe(200);
    expect(await text(file)).toBe('User-agent: *\nAllow: /\n');
    expect(seen.requests).toBe(2);
  });

  it('tries once more, not again and again: a site that keeps breaking is unreachable', async () => {
    const { seen, url } = await site(Infinity);
    const failed = await fetcher.open(url, 5000).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(FileFetchError);
    expect((failed as FileFetchError).code).toBe('ECONNRESET');
    expect(seen.requests).toBe(2);
  });
});
