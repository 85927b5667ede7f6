import { describe, expect, it } from '@jest/globals';
import { parseHtml } from '../src/compare/dom-stability.js';
import { repointSelector, uniqueSelector } from '../src/compare/selector-repoint.js';

const oldHtml = `<main>
  <div class="product"><h1>Widget Pro</h1>
    <div class="meta"><span class="price">$19.99</span><span class="stock">In stock</span></div>
    <p>A fine widget.</p></div>
  <aside><span class="price-note">Prices include VAT</span></aside></main>`;
// The redesign: the price moved into a buy box and lost its class.
const newHtml = (price = '$19.99') => `<main>
  <div class="product"><h1>Widget Pro</h1><p>A fine widget.</p>
    <div class="buy-box"><span class="amount">${price}</span><span class="stock">In stock</span><button>Buy</button></div></div>
  <aside><span class="price-note">Prices include VAT</span><span>$19.99 was last week's price</span></aside></main>`;

const reads = (html: string, selector: string) =>
  Array.from(parseHtml(html).querySelectorAll(selector)).map((el) => el.textContent);

describe('repointSelector', () => {
  it('finds a moved price element and proposes a selector that matches it alone', () => {
    expect(reads(newHtml(), 'div.meta > span.price')).toEqual([]);
    const result = repointSelector({
      selector: 'div.meta > span.price',
      oldValue: '$19.99',
      oldHtml,
      newHtml: newHtml(),
    });
    expect(result.reason).toBe('repointed');
    expect(result.repointed).toMatchObject({ value: '$19.99', sameValue: true });
    expect(result.repointed!.confidence).toBeGreaterThanOrEqual(0.65);
    expect(reads(newHtml(), result.repointed!.selector)).toEqual(['$19.99']);
  });

  it('repoints from the selector and the old value alone when the old page was not stored', () => {
    const result = repointSelector({ selector: 'span.price', oldValue: '$19.99', newHtml: newHtml() });
    expect(reads(newHtml(), result.repointed!.selector)).toEqual(['$19.99']);
  });

  it('repoints when the moved content changed but kept its shape, and says so', () => {
    const result = repointSelector({
      selector: 'div.meta > span.price',
      oldValue: '$19.99',
      oldHtml,
      newHtml: newHtml('$24.50'),
    });
    expect(result.repointed).toMatchObject({ value: '$24.50', sameValue: false });
    expect(reads(newHtml('$24.50'), result.repointed!.selector)).toEqual(['$24.50']);
  });

  it('does not repoint when the best match holds other content', () => {
    const result = repointSelector({
      selector: 'div.meta > span.price',
      oldValue: '$19.99',
      oldHtml,
      newHtml: newHtml('Call us'),
    });
    expect(result.repointed).toBeNull();
  });

  it('does not repoint when nothing on the page is like the old element', () => {
    const result = repointSelector({
      selector: 'div.meta > span.price',
      oldValue: '$19.99',
      oldHtml,
      newHtml: '<main><p>Sold out</p></main>',
    });
    expect(result.repointed).toBeNull();
    expect(result.reason).toMatch(/^best match scored 0\.\d+, under 0\.65$/);
  });

  it('does not guess between two equally good matches', () => {
    const twice =
      '<main><div><span class="amount">$19.99</span></div><div><span class="amount">$19.99</span></div></main>';
    const result = repointSelector({ selector: 'span.price', oldValue: '$19.99', newHtml: twice });
    expect(result).toMatchObject({ repointed: null, reason: 'two elements match about as well; not guessing' });
  });

  it('reads an attribute field and compares links absolute', () => {
    const before = '<main><a class="dl" href="/files/v2.zip">Download</a></main>';
    const after =
      '<main><p><a class="download-link" href="/files/v2.zip">Download</a></p><a href="/about">About</a></main>';
    const result = repointSelector({
      selector: 'a.dl',
      attr: 'href',
      oldValue: 'https://site.test/files/v2.zip',
      oldHtml: before,
      newHtml: after,
      url: 'https://site.test/p',
    });
    expect(result.repointed).toMatchObject({ value: 'https://site.test/files/v2.zip', sameValue: true });
    expect(
      Array.from(parseHtml(after).querySelectorAll(result.repointed!.selector)).map((a) => a.getAttribute('href')),
    ).toEqual(['/files/v2.zip']);
  });

  it('leaves XPath selectors alone', () => {
    expect(repointSelector({ selector: '//span[@class="price"]', oldValue: '$1', newHtml: '<p>$1</p>' }).reason).toBe(
      'XPath selectors are not repointed',
    );
  });
});

describe('uniqueSelector', () => {
  const doc = parseHtml(`<nav><a href="/a">A</a></nav>
    <ul class="list"><li>a</li><li data-testid="second">b</li><li class="x css-1a2b3c">c</li></ul>
    <ul><li>a</li></ul><div id="main"><p>x</p><p>y</p></div><div id="ember123"><p>z</p></div>`);
  const all = (css: string) => Array.from(doc.querySelectorAll(css));

  it('prefers lasting attributes and classes, then positions, then parent levels; each matches its element alone', () => {
    const li = all('li');
    const ps = all('p');
    const cases: Array<[Element, string]> = [
      [li[1]!, '[data-testid="second"]'],
      [li[2]!, '.x'],
      [li[3]!, 'ul:nth-of-type(2) > *'],
      [ps[1]!, 'p:nth-of-type(2)'],
    ];
    for (const [el, expected] of cases) {
      const css = uniqueSelector(doc, el);
      expect(css).toBe(expected);
      expect(all(css)).toEqual([el]);
    }
  });

  it('never uses a generated id or class', () => {
    const css = uniqueSelector(doc, all('p')[2]!);
    expect(css).not.toMatch(/ember123|css-/);
    expect(all(css)).toEqual([all('p')[2]!]);
  });
});
