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
}

/**
 * One walk instead of a querySelectorAll per lookup (linkedom matches every element of the page
 * against each selector). Like querySelectorAll, it does not look into <template> contents.
 */
export function scanPage(doc: Document): PageScan {
  const scan: PageScan = { title: null, headData: [], links: [], noscripts: [], segments: [] };
  const visit = (el: Element): boolean => {
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
        break;
      case 'div':
        if (el.hasAttribute('hidden') && el.id.startsWith('S:')) scan.segments.push(el);
        break;
    }
    return true;
  };
  // Markup after </html> is left beside <html> by linkedom: walk every top-level element.
  for (let top = doc.firstElementChild; top; top = top.nextElementSibling) {
    if (visit(top)) walkElements(top, visit);
  }
  return scan;
}
