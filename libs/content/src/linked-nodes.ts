import { parseHTML } from 'linkedom';

/** A node as linkedom links it: its type, and its links under linkedom's symbols. */
export interface Linked {
  nodeType: number;
  [link: symbol]: Linked | null;
}

/** linkedom's own links between nodes: found on a node, as linkedom exports no name for them. */
export interface Links {
  next: symbol;
  end: symbol;
}

/**
 * linkedom keeps a document as one list in document order (an element, its attributes and
 * children, its end marker): following that list costs about half of a walk through the DOM's
 * getters. Null if linkedom's links are ever not found; the walks then go through the DOM.
 */
export const LINKS: Links | null = (() => {
  const symbols = Object.getOwnPropertySymbols(parseHTML('<p></p>').document.createElement('p'));
  const next = symbols.find((s) => s.description === 'next');
  const end = symbols.find((s) => s.description === 'end');
  return next && end ? { next, end } : null;
})();

/** linkedom's end marker of an element. */
export const END_NODE = -1;

const ATTRIBUTE_NODE = 2;

/** The attributes cleaning and the main-content finder judge an element by. */
export interface JudgedAttributes {
  class: string | null;
  id: string | null;
  role: string | null;
  itemprop: string | null;
  style: string | null;
  ariaModal: string | null;
  /**
   * `hidden`, `popover` (a browser shows a popover only when a button or script opens it), or a
   * framework's cloak (`x-cloak`, `v-cloak`, `ng-cloak`: the page's own style hides the element
   * until Alpine, Vue or AngularJS has run and decided whether to show it).
   */
  hidden: boolean;
}

const CLOAKS = ['x-cloak', 'v-cloak', 'ng-cloak'];

const judged: JudgedAttributes = {
  class: null,
  id: null,
  role: null,
  itemprop: null,
  style: null,
  ariaModal: null,
  hidden: false,
};

/**
 * An element's judged attributes, as getAttribute and hasAttribute answer them (the first of a
 * name), read in one pass: linkedom lists an element's attributes right after it, and walks
 * that list once per getAttribute. The answer is one object, reused by the next call: read it
 * before that.
 */
export function judgedAttributes(el: Element, links: Links | null = LINKS): JudgedAttributes {
  if (!links) {
    judged.class = el.getAttributeNode('class')?.value ?? null;
    judged.id = el.getAttribute('id');
    judged.role = el.getAttribute('role');
    judged.itemprop = el.getAttribute('itemprop');
    judged.style = el.getAttribute('style');
    judged.ariaModal = el.getAttribute('aria-modal');
    judged.hidden = el.hasAttribute('hidden') || el.hasAttribute('popover') || CLOAKS.some((c) => el.hasAttribute(c));
    return judged;
  }
  judged.class = judged.id = judged.role = judged.itemprop = judged.style = judged.ariaModal = null;
  judged.hidden = false;
  for (let n = (el as unknown as Linked)[links.next]; n && n.nodeType === ATTRIBUTE_NODE; n = n[links.next]!) {
    const { name, value } = n as unknown as Attr;
    switch (name) {
      case 'class':
        judged.class ??= value;
        break;
      case 'id':
        judged.id ??= value;
        break;
      case 'role':
        judged.role ??= value;
        break;
      case 'itemprop':
        judged.itemprop ??= value;
        break;
      case 'style':
        judged.style ??= value;
        break;
      case 'aria-modal':
        judged.ariaModal ??= value;
        break;
      case 'hidden':
      case 'popover':
      case 'x-cloak':
      case 'v-cloak':
      case 'ng-cloak':
        judged.hidden = true;
        break;
    }
  }
  return judged;
}

/**
 * An element's first child, as linkedom's getter finds it (past the element's attributes),
 * straight from linkedom's list: the walks that visit every node of a page ask for first
 * children and next siblings thousands of times, and linkedom's getters (one per kind of node)
 * cost more than the lookups they make. Other nodes: the getter's answer.
 */
export function firstChildOf(node: Node, links: Links | null = LINKS): Node | null {
  if (!links || node.nodeType !== 1) return node.firstChild;
  let next = (node as unknown as Linked)[links.next]!;
  while (next.nodeType === ATTRIBUTE_NODE) next = next[links.next]!;
  return next === (node as unknown as Linked)[links.end] ? null : (next as unknown as Node);
}

/**
 * The next sibling of an element, text, CDATA section or comment, as linkedom's getter finds it
 * (the node after the element's end marker, or after the node); other nodes: the getter's answer.
 */
export function nextSiblingOf(node: Node, links: Links | null = LINKS): Node | null {
  const type = node.nodeType;
  if (!links || (type !== 1 && type !== 3 && type !== 4 && type !== 8)) return node.nextSibling;
  const next = (type === 1 ? (node as unknown as Linked)[links.end]! : (node as unknown as Linked))[links.next];
  return next ? (next.nodeType === END_NODE ? null : (next as unknown as Node)) : null;
}
