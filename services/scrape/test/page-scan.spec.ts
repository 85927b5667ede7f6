import { afterAll, describe, expect, it } from '@jest/globals';
import { parseDocument } from '@tidemark/content';
import { createLogger } from '@tidemark/telemetry';
import { PageReaderPool } from '../src/reading/page-reader-pool.js';
import { cssNeeds, pageScanner, parseContentQuery } from '../src/rpc/page-scan.js';

const reader = new PageReaderPool({ threads: 2, budgetMs: 2_000, logger: createLogger('test', 'silent') });
afterAll(() => reader.close());

const PAGES = [
  '<!doctype html><html><head><title>A</title></head><body><main><article><h1 class="Title">A</h1><p class="price">$19</p><a href="/x?a=1&amp;b=2">x</a></article></main></body></html>',
  '<html><body><div id="main"><ul><li><a href="/a">a</a></li><li data-x="1">b</li></ul></div></body></html>',
  '<p>plain</p></p><table><tr><td>1</td></tr></table>',
  '<div><span class="pr&#105;ce">char ref</span><svg><rect/></svg></div>',
  '<section><input type="checkbox" checked><label for="c">c</label></section>',
];
const SELECTORS = [
  '.price',
  'p.price',
  '.title',
  '#main li',
  'li[data-x]',
  'ul > li + li',
  'a:not(.price)',
  'td',
  'tbody td',
  'body p',
  'p',
  'html',
  '*',
  'h1, .price',
  'article h1.Title',
  'input[type="checkbox"]:checked',
  'li:nth-child(2)',
  ':is(.price, h1)',
  'section label[for=c]',
  'rect',
  'span.price',
];

describe('cssNeeds', () => {
  it('never rules out a page the selector matches', async () => {
    for (const selector of SELECTORS) {
      const scan = await pageScanner('selector', selector, reader);
      for (const html of PAGES) {
        const parsed = parseDocument(html).querySelectorAll(selector).length;
        expect([selector, html, (await scan({ html }, 'http://s.test/'))!.count]).toEqual([selector, html, parsed]);
      }
    }
  });

  it('reads a page of unclosed tags in one pass (a character reference in a tag still means: parse it)', async () => {
    const scan = await pageScanner('selector', '.price', reader);
    // A million "<" and no ">": the old check's regex was quadratic here.
    expect(await scan({ html: '<'.repeat(1_000_000) }, 'http://s.test/')).toEqual({
      count: 0,
      snippet: '',
      body: 'html',
    });
    const hidden = `${'<'.repeat(1000)}<span class="pr&#105;ce">12</span>`;
    expect((await scan({ html: hidden }, 'http://s.test/'))!.count).toBe(1);
  });

  it('answers 422 for a selector that outruns its budget, and the next search still runs', async () => {
    // XPath 3.1 can count to a trillion; only ending the thread stops it.
    const looping = '//p[count(for $i in 1 to 1000000000000 return $i) > 0]';
    // The probe (an empty page) has no <p> to count for; a page with one does.
    const stuck = await pageScanner('selector', looping, reader);
    await expect(stuck({ html: PAGES[0]! }, 'http://s.test/a')).rejects.toMatchObject({
      code: 'validation',
      message:
        'q: matching the selector took more than its budget of 2000 ms on http://s.test/a; use a simpler selector',
    });
    const scan = await pageScanner('selector', '//li', reader);
    expect(await scan({ html: PAGES[1]! }, 'http://s.test/')).toMatchObject({ count: 2, snippet: 'a' });
  });

  it('refuses an invalid selector before any page is read', async () => {
    await expect(pageScanner('selector', 'p[', reader)).rejects.toMatchObject({ code: 'validation' });
    await expect(pageScanner('selector', '//p[', reader)).rejects.toMatchObject({ code: 'validation' });
  });

  it('reads tags, classes, ids and attribute names outside parentheses', () => {
    const probe = (selector: string, markup: string) =>
      cssNeeds(selector)!.some((alt) => alt.every((need) => need(markup.toLowerCase())));
    expect(probe('.price', '<p class="cheap">')).toBe(false);
    expect(probe('div.price', '<p class="price">')).toBe(false);
    expect(probe('a:not(.price)', '<a class="x">')).toBe(true);
    expect(probe('h1, .price', '<h1>')).toBe(true);
    expect(probe('li[data-x="a,b"]', '<li data-y>')).toBe(false);
    expect(probe('P', '</p>')).toBe(true);
    expect(cssNeeds('*')).toBeNull();
    expect(cssNeeds(':is(.a, .b)')).toBeNull();
    expect(cssNeeds('svg|rect')).toBeNull();
    expect(cssNeeds('.a\\:b')).toBeNull();
  });
});

describe('parseContentQuery', () => {
  it('reads words and quoted phrases', () => {
    expect(parseContentQuery('harbour "tide  times" 19,99').map((t) => t.text)).toEqual([
      'harbour',
      'tide  times',
      '19,99',
    ]);
    expect(() => parseContentQuery('a "b')).toThrow('q: unclosed quote in "\\"b"');
    expect(() => parseContentQuery('  ')).toThrow('q: give at least one word');
  });

  it('matches whole words in any case, a phrase across line breaks', async () => {
    const scan = await pageScanner('content', 'Harbour "tide times"', reader);
    expect(await scan({ markdown: 'The harbour, and its TIDE\ntimes. Harbours differ.' }, 'u')).toEqual({
      count: 2,
      snippet: 'The harbour, and its TIDE times. Harbours differ.',
      body: 'markdown',
    });
    expect(await scan({ markdown: 'harbours only' }, 'u')).toEqual({ count: 0, snippet: '', body: 'markdown' });
    expect(await scan({ html: '<p>harbour</p>' }, 'u')).toBeNull();
  });
});
