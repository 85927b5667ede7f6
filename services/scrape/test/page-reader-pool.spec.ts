import { afterAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@tidemark/telemetry';
import { resolveOptions } from '../src/ladder/options.js';
import { PageReaderPool, ReadingFailed } from '../src/reading/page-reader-pool.js';

const reader = new PageReaderPool({ threads: 2, budgetMs: 2_000, logger: createLogger('test', 'silent') });
afterAll(() => reader.close());

const PAGE = `<!doctype html><html><head><title>Tide clock</title></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop</a></nav>
<main><h1>Tide clock</h1><p class="price">49.00</p>
<p>${'A brass tide clock for the chart table, set by the harbour almanac. '.repeat(20)}</p></main>
<footer>© Harbour Chandlery</footer></body></html>`;

const fetched = (html: string) => ({
  finalUrl: 'http://shop.test/tide-clock',
  status: 200,
  headers: { 'content-type': 'text/html' },
  html,
  redirects: [],
  contentType: 'text/html',
});

/** A page with a list of 20,000 items (a selector over each item's siblings is quadratic in it). */
const LONG_LIST = `<html><body><h1>Tide table</h1><ul>${'<li>High water 06:12</li>'.repeat(20_000)}</ul></body></html>`;

/** XPath 3.1 that counts to a trillion: it ends only when its thread is ended. */
const LOOPING = '//p[count(for $i in 1 to 1000000000000 return $i) > 0]';

describe('PageReaderPool: pages read on threads, each within a budget', () => {
  it('reads a page as the content pipeline does: markdown, verdict, fields', async () => {
    const opts = resolveOptions({ url: 'http://shop.test/', config: { fields: { price: '.price' } } } as never);
    const reading = await reader.read(fetched(PAGE), 'http', opts);
    expect(reading.verdict).toMatchObject({ verdict: 'ok', errorCode: 'OK' });
    expect(reading.content.markdown).toContain('# Tide clock');
    expect(reading.content.fields).toEqual({ price: '49.00' });
  });

  it('keeps the page when its fields outrun the budget: content read, the fields null with a reason', async () => {
    const opts = resolveOptions({
      url: 'http://shop.test/',
      config: { fields: { price: '.price', forever: LOOPING } },
    } as never);
    const reading = await reader.read(fetched(PAGE), 'http', opts);
    expect(reading.content.markdown).toContain('A brass tide clock');
    expect(reading.content.fields).toEqual({ price: null, forever: null });
    expect(reading.content.fieldErrors).toEqual({
      price: "not read: the page's fields outran its reading budget of 2000 ms",
      forever: "not read: the page's fields outran its reading budget of 2000 ms",
    });
    expect(reading.verdict.warnings).toContain(
      "fields not read: the page's fields outran its reading budget of 2000 ms",
    );
  });

  it('fails a page whose reading itself outruns the budget (an exclude selector that loops), and reads the next', async () => {
    // CSS selectors in exclude_tags run in the pipeline too. :nth-last-child() counts an element's
    // siblings for each element it tests: quadratic in a long list (seconds at 10,000 items).
    const opts = resolveOptions({
      url: 'http://shop.test/',
      config: { exclude_tags: [':nth-last-child(2)'] },
    } as never);
    const failed = await reader.read(fetched(LONG_LIST), 'http', opts).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(ReadingFailed);
    expect(failed).toMatchObject({
      errorCode: 'TIMEOUT',
      message: 'reading the page took more than its budget of 2000 ms',
    });
    const next = await reader.read(fetched(PAGE), 'http', resolveOptions({ url: 'http://shop.test/' } as never));
    expect(next.verdict.verdict).toBe('ok');
  });

  it('matches a selector, and ends one that outruns its budget without holding the other thread', async () => {
    const [stuck, fine] = await Promise.allSettled([
      reader.select(PAGE, LOOPING, 'http://shop.test/'),
      reader.select(PAGE, '//h1', 'http://shop.test/'),
    ]);
    expect(stuck).toMatchObject({ status: 'rejected', reason: { errorCode: 'TIMEOUT' } });
    expect(fine).toMatchObject({ status: 'fulfilled', value: { fields: { m: ['Tide clock'] } } });
  });

  it("says what the content filters remove, and ends a project's exclude selector that outruns the budget", async () => {
    const options = (excludeTags: string[]) => ({
      url: 'http://shop.test/',
      onlyMainContent: true,
      includeTags: [],
      excludeTags,
      removeBanners: true,
      removeBase64Images: true,
    });
    const removed = await reader.removals(PAGE, options(['.price']));
    expect(removed).toEqual(expect.arrayContaining([expect.objectContaining({ element: 'p.price', text: '49.00' })]));
    const failed = await reader.removals(LONG_LIST, options([':nth-last-child(2)'])).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(ReadingFailed);
    expect(failed).toMatchObject({
      errorCode: 'TIMEOUT',
      message: 'finding what the content filters remove took more than its budget of 2000 ms',
    });
    expect((await reader.removals(PAGE, options([]))).length).toBeGreaterThan(0);
  });
});
