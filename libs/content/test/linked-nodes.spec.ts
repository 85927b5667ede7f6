import { describe, expect, it } from '@jest/globals';
import { parseDocument } from '../src/index.js';
import { nextInSubtree } from '../src/dom-walk.js';
import { firstChildOf, judgedAttributes, LINKS, nextSiblingOf } from '../src/linked-nodes.js';

const byGetters = (el: Element) => ({
  class: el.getAttributeNode('class')?.value ?? null,
  id: el.getAttribute('id'),
  role: el.getAttribute('role'),
  itemprop: el.getAttribute('itemprop'),
  style: el.getAttribute('style'),
  ariaModal: el.getAttribute('aria-modal'),
  hidden: el.hasAttribute('hidden'),
});

describe('judgedAttributes', () => {
  const doc = parseDocument(
    `<html><body>
      <div></div>
      <div class="a  b" id="x" role="dialog" itemprop="description" style="display:none" aria-modal="true" hidden></div>
      <div CLASS="Upper" ID="" data-role="no" aria-modal="false">text<span class="child"></span></div>
      <div class="first" class="second" id="i1" id="i2"></div>
      <p hidden="" style="" role="" itemprop="articleBody" title="t" data-x="1">&amp;</p>
      <a href="/x" class="nav&amp;more" id="a&lt;b">link</a>
    </body></html>`,
  );
  const elements = Array.from(doc.body.querySelectorAll('*'));
  // A singleton: each answer is copied before the next call.
  const read = (el: Element, links = LINKS) => ({ ...judgedAttributes(el, links) });

  it("answers what linkedom's getters answer, in one pass along its list", () => {
    expect(LINKS).not.toBeNull();
    for (const el of elements) expect([el.outerHTML, read(el)]).toEqual([el.outerHTML, byGetters(el)]);
  });

  it("answers the same through the getters when linkedom's links are not found", () => {
    for (const el of elements) expect(read(el, null)).toEqual(byGetters(el));
  });

  it('answers for an element after an element with attributes as for a fresh one', () => {
    judgedAttributes(elements[1]!);
    expect(read(elements[0]!)).toEqual(byGetters(elements[0]!));
  });
});

describe('firstChildOf and nextSiblingOf', () => {
  const doc = parseDocument(
    '<html><body><div id="r" class="c">a<!-- c --><p title="t">b<b>c</b></p>d<br><ul><li>e</li></ul><template><p>f</p></template></div><p></p></body></html>',
  );
  const nodes: Node[] = [];
  for (let n: Node | null = doc.body; n; n = nextInSubtree(n, doc.documentElement, true)) nodes.push(n);

  it("answer what linkedom's getters answer for every kind of node, with and without its links", () => {
    expect(nodes.length).toBeGreaterThan(12);
    for (const links of [LINKS, null]) {
      for (const n of nodes) {
        expect(firstChildOf(n, links)).toBe(n.firstChild);
        expect(nextSiblingOf(n, links)).toBe(n.nextSibling);
      }
    }
  });
});
