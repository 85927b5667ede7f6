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
