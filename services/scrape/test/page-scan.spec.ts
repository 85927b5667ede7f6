import { describe, expect, it } from '@jest/globals';
import { parseDocument } from '@tidemark/content';
import { cssNeeds, pageScanner, parseContentQuery } from '../src/rpc/page-scan.js';

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
  it('never rules out a page the selector matches', () => {
    for (const selector of SELECTORS) {
      const scan = pageScanner('selector', selector);
      for (const html of PAGES) {
        const parsed = parseDocument(html).querySelectorAll(selector).length;
        expect([selector, html, scan({ html }, 'http://s.test/')!.count]).toEqual([selector, html, parsed]);
      }
    }
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

  it('matches whole words in any case, a phrase across line breaks', () => {
    const scan = pageScanner('content', 'Harbour "tide times"');
    expect(scan({ markdown: 'The harbour, and its TIDE\ntimes. Harbours differ.' }, 'u')).toEqual({
      count: 2,
      snippet: 'The harbour, and its TIDE times. Harbours differ.',
      body: 'markdown',
    });
    expect(scan({ markdown: 'harbours only' }, 'u')).toEqual({ count: 0, snippet: '', body: 'markdown' });
    expect(scan({ html: '<p>harbour</p>' }, 'u')).toBeNull();
  });
});
