import { describe, expect, it } from '@jest/globals';
import { parseHTML } from 'linkedom';
import { scanPage } from '../src/dom-walk.js';
import { parseDocument } from '../src/index.js';
import { FIXTURES, fixtureHtml } from './support/fixtures.js';

const PAGES: Record<string, string> = {
  'a page with its head data, links, a template and a noscript': `<!DOCTYPE html><html><head><title>T</title>
    <meta name="description" content="d"><link rel="canonical" href="/c"><script type="application/ld+json">{}</script>
    </head><body><template><p>not walked</p><a href="/in-template">x</a></template><nav><a href="/a">a</a>
    <map><area href="/b"></map></nav><noscript><p>no script</p></noscript><div hidden id="S:0"><p>late</p></div>
    <main><p>text <br> more</p><img src="/i.png"></main></body></html>`,
  'markup left beside <html> (unparsed as linkedom leaves it)':
    '<html><body><p>in</p></body></html><p>after</p><a href="/z">z</a>',
  'deep markup': `<html><body>${'<div><span>x'.repeat(300)}</body></html>`,
};

describe('scanPage', () => {
  const docs: [string, Document][] = [
    ...Object.entries(PAGES).map(([name, html]): [string, Document] => [
      name,
      parseHTML(html).document as unknown as Document,
    ]),
    ...FIXTURES.map((name): [string, Document] => [`fixture ${name}`, parseDocument(fixtureHtml(name))]),
  ];
  for (const [name, doc] of docs) {
    it(`reads linkedom's list as the DOM walk does: ${name}`, () => {
      const fast = scanPage(doc);
      const dom = scanPage(doc, null);
      expect(fast.elements.length).toBeGreaterThan(3);
      expect(fast.elements.every((el, i) => el === dom.elements[i])).toBe(true);
      expect(fast.elements.length).toBe(dom.elements.length);
      expect(Array.from(fast.ends)).toEqual(Array.from(dom.ends));
      for (const key of ['title', 'headData', 'links', 'noscripts', 'segments', 'noscriptAt', 'fieldForms'] as const) {
        expect([key, fast[key]]).toEqual([key, dom[key]]);
      }
    });
  }

  it('does not look into a template', () => {
    const scan = scanPage(
      parseHTML(PAGES['a page with its head data, links, a template and a noscript']!).document as unknown as Document,
    );
    expect(scan.links.map((a) => a.getAttribute('href'))).toEqual(['/a', '/b']);
    expect(scan.headData).toHaveLength(3);
    expect(scan.segments).toHaveLength(1);
  });

  it('tells the forms that ask for something from those that wrap what the page shows', () => {
    const { document } = parseHTML(`<html><body>
      <form id="search" role="search"><input name="q" type="search"></form>
      <form id="signup"><label>Email <input type="EMAIL" name="email"></label></form>
      <form id="cart" action="/cart/add"><input type="hidden" name="id" value="7"><button>Add to cart</button></form>
      <form id="jump"><select name="f"><option>General</option></select></form>
      <form id="reply"><textarea name="text"></textarea></form>
      <form id="comment" action="#" class="usertext"><input type="hidden" name="thing_id" value="t1">
        <div class="md"><p>You are correct: these are hair cells, not hairs.</p></div></form>
      <form id="post" method="post"><article><p>A post with its menu.</p></article>
        <button type="button">Share</button><input type="button" value="Quote"></form>
    </body></html>`);
    const asking = [...scanPage(document as unknown as Document).fieldForms].map((f) => f.id);
    expect(asking).toEqual(['search', 'signup', 'cart', 'jump', 'reply']);
  });
});
