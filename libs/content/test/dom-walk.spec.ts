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
      for (const key of ['title', 'headData', 'links', 'noscripts', 'segments', 'noscriptAt'] as const) {
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
});
