import { describe, expect, it } from '@jest/globals';
import { parseHtml } from '../src/compare/dom-stability.js';
import { compareMarkup } from '../src/compare/markup-diff.js';
import { normalizeMarkup } from '../src/compare/markup-tree.js';
import { comparePageContent } from '../src/compare/page-compare.js';

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

describe('compareMarkup: the word diff’s volatile-block filter', () => {
  const harbour = (o: { visitors?: string; ad?: string; trending?: string[]; fee?: string } = {}) => `
    <main>
      <h1>Harbour</h1>
      <p>Moorings cost <span class="fee">${o.fee ?? '$19'}</span> a night.</p>
      <div class="visitors"><span class="count">${o.visitors ?? '1,204'}</span> visitors online</div>
      <p class="promo">Sponsored: ${o.ad ?? 'Sail with Harbour Bank'}</p>
      <h2>Trending now</h2>
      <ul>${(o.trending ?? ['Storm', 'Pier']).map((t) => `<li><a href="/${t.toLowerCase()}">${t}</a></li>`).join('')}</ul>
      <h2>Opening hours</h2>
      <p>The office opens at <b>8</b> and closes at 18.</p>
    </main>`;
  // The same two versions as the word diff reads them (the page's markdown).
  const markdown = (o: { visitors?: string; ad?: string; trending?: string[] } = {}) =>
    [
      '# Harbour',
      'Moorings cost $19 a night.',
      `${o.visitors ?? '1,204'} visitors online`,
      `Sponsored: ${o.ad ?? 'Sail with Harbour Bank'}`,
      '## Trending now',
      ...(o.trending ?? ['Storm', 'Pier']).map((t) => `- [${t}](/${t.toLowerCase()})`),
      '## Opening hours',
      'The office opens at **8** and closes at 18.',
    ].join('\n\n');

  it('calls a visitor counter in an element of its own volatile: its block differs only in the count', () => {
    const { changes } = compareMarkup(harbour(), harbour({ visitors: '1,311' }));
    expect(changes).toEqual([
      {
        path: 'body > main > div.visitors > span.count',
        kind: 'text',
        before: '1,204',
        after: '1,311',
        volatile: true,
      },
    ]);
    // The word diff sets the same block aside: the page is unchanged, only volatile.
    expect(comparePageContent(markdown(), markdown({ visitors: '1,311' }))).toMatchObject({
      changed: false,
      volatile: true,
    });
  });

  it('calls a change in an ad slot or under a rotating widget’s heading volatile, as the word diff does', () => {
    const after = { ad: 'Fresh fish daily at the quay', trending: ['Regatta', 'Storm'] };
    const { changes } = compareMarkup(harbour(), harbour(after));
    expect(changes.length).toBeGreaterThanOrEqual(2);
    expect(changes.filter((c) => !c.volatile)).toEqual([]);
    expect(changes.map((c) => c.path)).toEqual(
      expect.arrayContaining(['body > main > p.promo:nth-of-type(2)', expect.stringMatching(/^body > main > ul/)]),
    );
    expect(comparePageContent(markdown(), markdown(after))).toMatchObject({ changed: false, volatile: true });
  });

  it('keeps a real change counted, beside the noise and in a section after the rotating one', () => {
    const { changes } = compareMarkup(
      harbour(),
      harbour({ visitors: '1,311', fee: '$24' }).replace('<b>8</b>', '<b>9</b>'),
    );
    expect(changes.map((c) => [c.path, c.before, c.after, c.volatile])).toEqual([
      ['body > main > p:nth-of-type(1) > span.fee', '$19', '$24', false],
      ['body > main > div.visitors > span.count', '1,204', '1,311', true],
      ['body > main > p:nth-of-type(3) > b', '8', '9', false],
    ]);
  });

  it('does not call a number volatile when its block has no word that makes it a counter', () => {
    const page = (n: string) => `<div class="stock"><span class="n">${n}</span> berths left</div>`;
    expect(compareMarkup(page('12'), page('11')).changes).toEqual([
      expect.objectContaining({ before: '12', after: '11', volatile: false }),
    ]);
  });

  it('gives each node the section it stands in, from the heading before it', () => {
    const tree = normalizeMarkup('<p>intro</p><h2>Trending now</h2><ul><li>a</li></ul><h2>Hours</h2><p>8 to 18</p>');
    const sections = tree.children.map((c) => (typeof c === 'string' ? c : [c.tag, c.section]));
    expect(sections).toEqual([
      ['p', null],
      ['h2', 'Trending now'],
      ['ul', 'Trending now'],
      ['h2', 'Hours'],
      ['p', 'Hours'],
    ]);
  });
});
