import { afterEach, describe, expect, it } from '@jest/globals';
import { FetchGuard, guardedAgents, parseCidr } from '@tidemark/net-guard';
import { startBreakingServer, type BreakingServer } from '@tidemark/testkit';
import { FetchFailure } from '../src/ladder/fetch-error.js';
import { HttpRung } from '../src/ladder/http-rung.js';

/**
 * A connection that breaks before its answer (a kept-alive socket the site closed just as it was
 * reused) is tried once more on a new one, as HTTP clients do for a GET: a one-URL scrape must
 * not answer an error for it.
 */
describe('HttpRung and connections that break', () => {
  let site: BreakingServer | undefined;
  afterEach(async () => {
    await site?.close();
    site = undefined;
  });

  const PAGE = { type: 'text/html', body: '<html><body><p>The tide is in.</p></body></html>' };
  const rung = new HttpRung(
    guardedAgents(new FetchGuard({ allowNetworks: [parseCidr('127.0.0.0/8')!], hostMap: [] })),
    'TidemarkBot/test',
    1024 * 1024,
  );

  it('reads a page whose first connection broke before the answer, on a new connection', async () => {
    site = await startBreakingServer(1, PAGE);
    const page = await rung.fetch(site.url('/page'), { timeoutMs: 5000, headers: {} });
    expect(page.status).toBe(200);
    expect(page.html).toContain('The tide is in.');
    expect(site.requests).toBe(2);
  });

  it('tries once more, not again and again: a page that keeps breaking fails with its reason', async () => {
    site = await startBreakingServer(Infinity, PAGE);
    const failed = await rung.fetch(site.url('/page'), { timeoutMs: 5000, headers: {} }).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(FetchFailure);
    expect((failed as FetchFailure).message).toMatch(/ECONNRESET/);
    expect(site.requests).toBe(2);
  });
});
