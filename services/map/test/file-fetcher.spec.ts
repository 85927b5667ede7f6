import { afterEach, describe, expect, it } from '@jest/globals';
import { FetchGuard, guardedAgents, parseCidr } from '@tidemark/net-guard';
import { startBreakingServer, type BreakingServer } from '@tidemark/testkit';
import { FileFetcher, FileFetchError } from '../src/discovery/file-fetcher.js';

/**
 * A connection that breaks before its answer is tried once more. A crawl's robots.txt that gets
 * no answer reads as disallowing everything (RFC 9309): a clean-clone CI run once saw a crawl of a
 * site that answers end after its seed page, "robots.txt answered nothing", the site's kept-alive
 * connections having served an earlier crawl of the same test.
 */
describe('FileFetcher', () => {
  let site: BreakingServer | undefined;
  afterEach(async () => {
    await site?.close();
    site = undefined;
  });

  const ROBOTS = { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' };
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
    site = await startBreakingServer(1, ROBOTS);
    const file = await fetcher.open(site.url('/robots.txt'), 5000);
    expect(file.status).toBe(200);
    expect(await text(file)).toBe(ROBOTS.body);
    expect(site.requests).toBe(2);
  });

  it('tries once more, not again and again: a site that keeps breaking is unreachable', async () => {
    site = await startBreakingServer(Infinity, ROBOTS);
    const failed = await fetcher.open(site.url('/robots.txt'), 5000).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(FileFetchError);
    expect((failed as FileFetchError).code).toBe('ECONNRESET');
    expect(site.requests).toBe(2);
  });
});
