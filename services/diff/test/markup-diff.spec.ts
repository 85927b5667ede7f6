import { describe, expect, it } from '@jest/globals';
import { parseHtml } from '../src/compare/dom-stability.js';
import { compareMarkup } from '../src/compare/markup-diff.js';
import { normalizeMarkup } from '../src/compare/markup-tree.js';

const shop = (
  o: { price?: string; items?: string[]; nonce?: string; sid?: string; stamp?: string; alt?: string } = {},
) => `
  <main>
    <h1 class="title css-${o.nonce ?? '1x2y3z'}">Widgets</h1>
    <section id="pricing">
      <p>Basic <span class="price">${o.price ?? '$19'}</span></p>
      <p>Pro <span class="price">$49</span></p>
    </section>
    <ul>${(o.items ?? ['One', 'Two', 'Three']).map((i) => `<li>${i}</li>`).join('')}</ul>
    <form>
      <input type="hidden" name="csrf_token" value="${o.nonce ?? 'abc123'}">
      <a href="/buy?sid=${o.sid ?? '999'}&item=4" data-tracking-id="${o.nonce ?? 'x'}">Buy</a>
    </form>
    <script nonce="${o.nonce ?? 'n1'}">var t = ${o.nonce ?? 1};</script>
    <p>Updated ${o.stamp ?? '5 minutes ago'}</p>
    <img src="/a.png" alt="${o.alt ?? 'A'}">
  </main>`;

describe('normalizeMarkup', () => {
  it('keeps structure, lasting attributes and collapsed text; drops scripts and volatile attributes', () => {
    const tree = normalizeMarkup(
      '<div id="x" class="card is-active css-9f8e7d" style="color:red" data-sku="W1" data-gtm-id="7"> Hello <b>big</b>\n world <script>x()</script></div>',
    );
    const div = tree.children[0];
    expect(div).toMatchObject({
      tag: 'div',
      attrs: { id: 'x', class: 'card', 'data-sku': 'W1' },
      key: 'div#x.card',
      path: 'div#x',
      children: ['Hello', { tag: 'b', children: ['big'], path: 'div#x > b' }, 'world'],
    });
  });

  it('gives equal trees for two renders that differ only in nonces, tokens, session ids and generated classes', () => {
    expect(normalizeMarkup(shop({ nonce: 'q7w8e9', sid: '123' })).hash).toBe(
      normalizeMarkup(shop({ nonce: 'a1b2c3', sid: '456' })).hash,
    );
  });

  it('leaves out the elements of volatile_selectors', () => {
    const html = (n: string) => `<p>Stable</p><div class="ticker">${n} visitors</div>`;
    expect(normalizeMarkup(html('17'), { volatileSelectors: ['.ticker', '!!bad'] }).hash).toBe(
      normalizeMarkup(html('42'), { volatileSelectors: ['.ticker'] }).hash,
    );
  });
});

describe('compareMarkup', () => {
  it('reports a changed text, an added element and an attribute change with selectors that find them', () => {
    const after = shop({ price: '$24', items: ['One', 'New', 'Two', 'Three'], alt: 'B', nonce: 'zz99', sid: '1' });
    const { changes, truncated } = compareMarkup(shop(), after);
    expect(truncated).toBe(false);
    expect(changes).toEqual([
      {
        path: 'section#pricing > p:nth-of-type(1) > span.price',
        kind: 'text',
        before: '$19',
        after: '$24',
        volatile: false,
      },
      { path: 'body > main > ul > li:nth-of-type(2)', kind: 'added', before: null, after: 'New', volatile: false },
      { path: 'body > main > img', kind: 'attr', attr: 'alt', before: 'A', after: 'B', volatile: false },
    ]);
    const doc = parseHtml(after);
    expect(doc.querySelector(changes[0]!.path)?.textContent).toBe('$24');
    expect(doc.querySelector(changes[1]!.path)?.textContent).toBe('New');
  });

  it('reports a removed element at its old path', () => {
    const { changes } = compareMarkup(shop(), shop({ items: ['One', 'Three'] }));
    expect(changes).toEqual([
      { path: 'body > main > ul > li:nth-of-type(2)', kind: 'removed', before: 'Two', after: null, volatile: false },
    ]);
  });

  it('marks a change of volatile text as volatile', () => {
    const { changes } = compareMarkup(shop(), shop({ stamp: '12 minutes ago' }));
    expect(changes).toEqual([
      {
        path: 'body > main > p',
        kind: 'text',
        before: 'Updated 5 minutes ago',
        after: 'Updated 12 minutes ago',
        volatile: true,
      },
    ]);
  });

  it('reports a reordered element as moved', () => {
    const { changes } = compareMarkup(
      '<ul><li>a</li><li>b</li><li>c</li></ul>',
      '<ul><li>c</li><li>a</li><li>b</li></ul>',
    );
    expect(changes.map((c) => [c.kind, c.before, c.after])).toEqual([
      ['moved', 'body > ul > li:nth-of-type(3)', 'body > ul > li:nth-of-type(1)'],
    ]);
  });

  it('finds nothing between equal pages and stops at maxChanges', () => {
    expect(compareMarkup(shop(), shop()).changes).toEqual([]);
    const many = (n: number) => `<ul>${Array.from({ length: 50 }, (_, i) => `<li>${i}-${n}</li>`).join('')}</ul>`;
    const { changes, truncated } = compareMarkup(many(1), many(2), { maxChanges: 10 });
    expect([changes.length, truncated]).toEqual([10, true]);
  });
});
