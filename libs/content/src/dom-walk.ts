import { END_NODE, firstChildOf, LINKS, nextSiblingOf, type Linked, type Links } from './linked-nodes.js';

/**
 * The next node after `node` in a pre-order walk of `root`'s subtree (`root` itself not
 * included): its first child when `intoChildren`, else its next sibling or its nearest
 * ancestor's, below `root`; null past the end. The text walks step with it, node by node.
 */
export function nextInSubtree(node: Node, root: Node, intoChildren: boolean): Node | null {
  if (intoChildren) {
    const child = firstChildOf(node);
    if (child) return child;
  }
  for (let at: Node | null = node; at && at !== root; at = at.parentNode) {
    const next = nextSiblingOf(at);
    if (next) return next;
  }
  return null;
}

/**
 * Pre-order walk over the element tree under root that tolerates removal: `visit` answers
 * whether to descend into the element, and may detach it (its subtree is then skipped).
 */
export function walkElements(root: Element, visit: (el: Element) => boolean): void {
  let node: Element | null = root.firstElementChild;
  while (node) {
    // Read the way on before visiting: visit may detach the node.
    const parent = node.parentElement;
    const next = node.nextElementSibling;
    const descend = visit(node);
    const attached = node.parentElement === parent;
    if (attached && descend && node.firstElementChild) {
      node = node.firstElementChild;
      continue;
    }
    let after: Element | null = attached ? node.nextElementSibling : next;
    let up: Element | null = parent;
    while (!after && up && up !== root) {
      after = up.nextElementSibling;
      up = up.parentElement;
    }
    node = after;
  }
}

/** Elements the pipeline looks up before cleaning, found in one walk over the page. */
export interface PageScan {
  /** The first <title>. */
  title: Element | null;
  /** <meta>, <link rel> and <script type>, in document order (head data; some live in <body>). */
  headData: Element[];
  /** <a href> and <area href>. */
  links: Element[];
  noscripts: Element[];
  /** React's streamed segments, <div hidden id="S:n">. */
  segments: Element[];
  /** Every element walked, in document order (pre-order): cleaning goes through this list. */
  elements: Element[];
  /** For elements[i], the index just past its subtree: elements[i + 1 .. ends[i] - 1] lie inside it. */
  ends: Int32Array;
  /** Where each of noscripts sits in elements. */
  noscriptAt: number[];
  /**
   * The <form>s that ask for something: a field to fill in or choose from (an input that is
   * not hidden or a plain button, a textarea, a select) or a button that submits it (a search
   * box, a sign-up, a comment box, "Add to cart"). A form without either wraps what the page
   * shows (old Reddit's comments, a thread's posts with their menu buttons).
   */
  fieldForms: Set<Element>;
}

/** Input types that ask for nothing. */
const NOT_ASKING = new Set(['hidden', 'button', 'reset']);

/**
 * One walk instead of a querySelectorAll per lookup (linkedom matches every element of the page
 * against each selector). Like querySelectorAll, it does not look into <template> contents.
 * It follows linkedom's own list of the document's nodes (`links`); null: the DOM's getters.
 */
export function scanPage(doc: Document, links: Links | null = LINKS): PageScan {
  const elements: Element[] = [];
  let ends = new Int32Array(1024);
  const scan: PageScan = {
    title: null,
    headData: [],
    links: [],
    noscripts: [],
    segments: [],
    elements,
    ends,
    noscriptAt: [],
    fieldForms: new Set(),
  };
  // The forms whose subtrees are being walked, innermost last: a control marks the form it is in
  // without a walk up the tree (a hostile page's thousands of inputs, 500 deep, outside any form).
  const forms: Element[] = [];
  const asks = (): void => {
    if (forms.length) scan.fieldForms.add(forms[forms.length - 1]!);
  };
  /** Records el; answers whether to walk into it. */
  const visit = (el: Element): boolean => {
    elements.push(el);
    switch (el.localName) {
      case 'template':
        return false;
      case 'title':
        scan.title ??= el;
        break;
      case 'meta':
        scan.headData.push(el);
        break;
      case 'link':
        if (el.hasAttribute('rel')) scan.headData.push(el);
        break;
      case 'script':
        if (el.hasAttribute('type')) scan.headData.push(el);
        break;
      case 'a':
      case 'area':
        if (el.hasAttribute('href')) scan.links.push(el);
        break;
      case 'noscript':
        scan.noscripts.push(el);
        scan.noscriptAt.push(elements.length - 1);
        break;
      case 'div':
        if (el.hasAttribute('hidden') && el.id.startsWith('S:')) scan.segments.push(el);
        break;
      case 'form':
        forms.push(el);
        break;
      case 'input':
        if (!NOT_ASKING.has((el.getAttribute('type') ?? 'text').trim().toLowerCase())) asks();
        break;
      case 'button': {
        const type = el.getAttribute('type');
        if (type === null || type.trim().toLowerCase() === 'submit') asks();
        break;
      }
      case 'textarea':
      case 'select':
        asks();
        break;
    }
    return true;
  };
  const close = (i: number): void => {
    if (forms.length && elements[i] === forms[forms.length - 1]) forms.pop();
    if (i >= ends.length) {
      const grown = new Int32Array(Math.max(ends.length * 2, i + 1));
      grown.set(ends);
      ends = grown;
    }
    ends[i] = elements.length;
  };
  // Pre-order without recursion (markup can nest thousands deep); `open` holds the indices of
  // the elements whose subtrees are being walked.
  const open: number[] = [];
  if (links) {
    const stop = (doc as unknown as Linked)[links.end];
    for (let n = (doc as unknown as Linked)[links.next]; n && n !== stop; n = n[links.next]!) {
      if (n.nodeType === 1) {
        const at = elements.length;
        if (visit(n as unknown as Element)) open.push(at);
        else {
          // Not walked (a template's contents): on from its end marker.
          close(at);
          n = n[links.end]!;
        }
      } else if (n.nodeType === END_NODE) close(open.pop()!);
    }
  } else {
    // Markup after </html> is left beside <html> by linkedom: every top-level element is walked.
    for (let top = doc.firstElementChild; top; top = top.nextElementSibling) {
      let node: Element | null = top;
      while (node) {
        const at = elements.length;
        const child: Element | null = visit(node) ? node.firstElementChild : null;
        if (child) {
          open.push(at);
          node = child;
          continue;
        }
        close(at);
        let next: Element | null = node === top ? null : node.nextElementSibling;
        while (!next && open.length) {
          const parent = open.pop()!;
          close(parent);
          next = elements[parent] === top ? null : elements[parent]!.nextElementSibling;
        }
        node = next;
      }
    }
  }
  scan.ends = ends.subarray(0, elements.length);
  return scan;
}
