import { parseHTML } from 'linkedom';
import { END_NODE, LINKS, type Linked, type Links } from './linked-nodes.js';

/**
 * Parses a page once; every later step (content, verdict features, links, fields) works on this
 * document. linkedom builds the tree the markup spells out, which is not always the HTML
 * standard's: one walk over the new tree (surveyDocument) says whether it needs mending, which
 * almost no page does; the document is then put in the standard's shape (normaliseDocument).
 */
export function parseDocument(html: string): Document {
  let doc = parseHTML(html).document as unknown as Document;
  let survey = surveyDocument(doc);
  if (survey.cdata) {
    doc = parseHTML(neutraliseCdata(html)).document as unknown as Document;
    survey = surveyDocument(doc);
  }
  if (survey.depth > MAX_TREE_DEPTH) capDepth(doc);
  normaliseDocument(doc);
  return doc;
}

/**
 * How deep a tree may nest: Chromium's parser's own limit (kMaximumHTMLParserDOMTreeDepth), so
 * a page reads here as it renders in a browser.
 */
export const MAX_TREE_DEPTH = 512;

export interface DocumentSurvey {
  /** The deepest element's depth (an element at the document's top is 1). */
  depth: number;
  /**
   * Whether the markup had a CDATA marker outside text-only elements: linkedom reads it as a
   * comment that runs to the next "]]>" (see neutraliseCdata).
   */
  cdata: boolean;
}

const COMMENT_NODE = 8;
const isCdata = (n: { nodeType: number }) =>
  n.nodeType === COMMENT_NODE && (n as unknown as Comment).data.startsWith('[CDATA[');

/**
 * The tree's depth and whether it holds CDATA, in one pass. linkedom keeps a document as one list
 * in document order (an element, its attributes and children, its end marker): following that
 * list costs half of a walk through the DOM's getters, and this runs on every page. The DOM walk
 * stands in if linkedom's links are ever not found.
 */
export function surveyDocument(doc: Document, links: Links | null = LINKS): DocumentSurvey {
  let depth = 0;
  let deepest = 0;
  let cdata = false;
  if (links) {
    const stop = (doc as unknown as Linked)[links.end];
    for (let n = (doc as unknown as Linked)[links.next]; n && n !== stop; n = n[links.next]!) {
      const type = n.nodeType;
      if (type === 1) {
        if (++depth > deepest) deepest = depth;
      } else if (type === END_NODE) depth--;
      else if (type === COMMENT_NODE && !cdata) cdata = isCdata(n);
    }
    return { depth: deepest, cdata };
  }
  // Iterative: a walk that guards against deep trees must not recurse. The document's own
  // children are read from childNodes (linkedom's doctype has no nextSibling).
  for (const top of Array.from(doc.childNodes)) {
    let n: Node | null = top;
    depth = 1;
    while (n) {
      if (isCdata(n)) cdata = true;
      else if (n.nodeType === 1) {
        if (depth > deepest) deepest = depth;
        if (n.firstChild) {
          n = n.firstChild;
          depth++;
          continue;
        }
      }
      while (n && n !== top && !n.nextSibling) {
        n = n.parentNode;
        depth--;
      }
      n = n && n !== top ? n.nextSibling : null;
    }
  }
  return { depth: deepest, cdata };
}

/**
 * Markup nested tens of thousands deep (hostile or broken: unclosed <div>s, <font>s, <b>s)
 * would overflow the stack of every recursive walk after the parse (content, verdict features,
 * markdown). Chromium's tree builder attaches whatever opens below its depth limit to the
 * deepest element allowed, as siblings in document order; this does the same to the parsed
 * tree, so every consumer sees a tree at most MAX_TREE_DEPTH deep and no text is lost.
 */
export function capDepth(doc: Document, maxDepth = MAX_TREE_DEPTH): void {
  const root = doc.documentElement;
  if (!root) return;
  let el: Element = root;
  let depth = 1;
  for (;;) {
    let child: Element | null = null;
    if (depth < maxDepth) child = el.firstElementChild;
    else flattenInto(el);
    if (child) {
      el = child;
      depth++;
      continue;
    }
    let next: Element | null = null;
    while (el !== root && !(next = el.nextElementSibling)) {
      el = el.parentElement!;
      depth--;
    }
    if (el === root || !next) return;
    el = next;
  }
}

/** Every descendant of `el` made its child, childless, in document order. */
function flattenInto(el: Element): void {
  if (!el.firstElementChild) return;
  const order: Node[] = [];
  const pending: Node[] = [];
  for (let n = el.lastChild; n; n = n.previousSibling) pending.push(n);
  while (pending.length) {
    const n = pending.pop()!;
    order.push(n);
    for (let c = n.lastChild; c; c = c.previousSibling) pending.push(c);
  }
  // Appending in document order moves each node after the one before it; a node still holding
  // its subtree gives it up as its descendants follow.
  for (const n of order) el.appendChild(n);
}

/**
 * Browsers read "<![CDATA[" in HTML markup as a bogus comment that ends at the next ">";
 * linkedom's parser reads a comment that runs to "]]>", which can swallow a whole <body> (seen
 * on XenForo forums). The marker and what follows it up to the next ">" are made the comment a
 * browser makes. Only occurrences right after a tag are touched: inside scripts and JSON-LD the
 * marker follows "//" or "/*" and is left alone.
 */
function neutraliseCdata(html: string): string {
  return html.replace(/(>\s*)<!\[CDATA\[([^>]*)>/g, '$1<!--[CDATA[$2-->');
}

/** Elements the standard keeps in <head> when they come before the body's first content. */
const HEAD_CONTENT = new Set([
  'base',
  'basefont',
  'bgsound',
  'link',
  'meta',
  'noframes',
  'script',
  'style',
  'template',
  'title',
  'noscript',
]);
const STRUCTURE = new Set(['html', 'head', 'body']);

/**
 * HTML makes <html>, <head> and <body> optional, and pages misplace them: markup before
 * <html> (a <style>, a script), a second <html> inside the first, content after </body> or
 * </html>, content inside <head>, no tags at all. linkedom keeps each where it stands, and its
 * `document.body` is then an empty element it makes up (its getter wants <html> first in the
 * document, with <head> and <body> as its first two children): every consumer of the tree
 * reads an empty page. This puts the document in the shape the HTML standard's tree builder
 * gives it: one <html> holding one <head> and one <body>; nodes before the first content go to
 * the head when they are head elements (title, meta, link, style, script…), everything from the
 * first content on (and everything after </body> or </html>) to the body; the attributes of a
 * second <html> or <body> join the first's. A document already in that shape (almost every
 * page) is only looked at, not touched.
 */
export function normaliseDocument(doc: Document): void {
  if (isStandardShape(doc)) return;
  const structural: Element[] = [];
  let html: Element | null = null;
  let head: Element | null = null;
  let body: Element | null = null;
  // The page's nodes in document order, with <html>, <head> and <body> opened (at the top
  // levels, where the standard's builder handles their tags); null marks where a <body> opens.
  const nodes: (Node | null)[] = [];
  const open = (parent: Node, inBody: boolean): void => {
    for (const n of childrenOf(parent)) {
      const name = n.nodeType === 1 ? (n as Element).localName : '';
      if (!STRUCTURE.has(name)) {
        if (n.nodeType !== 10) nodes.push(n);
        continue;
      }
      const el = n as Element;
      structural.push(el);
      if (name === 'html') html = mergeAttributes(html, el);
      else if (name === 'head') {
        // A <head> met in the body is a tag the standard ignores: its children stay in place.
        if (!inBody) head ??= el;
      } else {
        body = mergeAttributes(body, el);
        nodes.push(null);
      }
      open(el, inBody || name === 'body');
    }
  };
  open(doc, false);

  html ??= doc.createElement('html');
  head ??= doc.createElement('head');
  body ??= doc.createElement('body');
  for (const n of nodes) n?.parentNode?.removeChild(n);
  for (const el of structural) el.parentNode?.removeChild(el);
  doc.appendChild(html);
  html.appendChild(head);
  html.appendChild(body);
  let inBody = false;
  for (const n of nodes) {
    if (n === null) inBody = true;
    else if (!inBody && belongsInHead(n)) head.appendChild(n);
    else {
      inBody = true;
      body.appendChild(n);
    }
  }
}

/** The first element of a kind, with the attributes of a later one that it lacks (the standard's rule). */
function mergeAttributes(first: Element | null, el: Element): Element {
  if (!first) return el;
  for (const attr of Array.from(el.attributes)) {
    if (!first.hasAttribute(attr.name)) first.setAttribute(attr.name, attr.value);
  }
  return first;
}

function belongsInHead(n: Node): boolean {
  if (n.nodeType === 8) return true;
  if (n.nodeType === 3) return !NOT_BLANK.test((n as Text).data);
  if (n.nodeType !== 1) return true;
  const el = n as Element;
  if (!HEAD_CONTENT.has(el.localName)) return false;
  // A <noscript> with text is content a reader sees (the standard closes the head at it).
  return el.localName !== 'noscript' || !NOT_BLANK.test(el.textContent ?? '');
}

const NOT_BLANK = /\S/;

/**
 * A node's children. linkedom keeps the doctype outside the document's chain of children
 * (its nextSibling is undefined): the document's are read from childNodes.
 */
function childrenOf(parent: Node): Node[] {
  if (parent.nodeType === 9) return Array.from(parent.childNodes);
  const out: Node[] = [];
  for (let n = parent.firstChild; n; n = n.nextSibling) out.push(n);
  return out;
}

/**
 * Whether the document already has the standard's shape: <html> the only element at the top,
 * its element children <head> then <body> and no text beside them, only head elements in the
 * <head>, and no <html>, <head> or <body> among the body's children.
 */
function isStandardShape(doc: Document): boolean {
  let html: Element | null = null;
  for (const n of childrenOf(doc)) {
    if (n.nodeType === 1) {
      if (html || (n as Element).localName !== 'html') return false;
      html = n as Element;
    } else if (n.nodeType === 3 && NOT_BLANK.test((n as Text).data)) return false;
  }
  if (!html) return false;
  let seen = 0;
  for (let n = html.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1) {
      const name = (n as Element).localName;
      if (seen === 0 ? name !== 'head' : seen === 1 ? name !== 'body' : true) return false;
      seen++;
    } else if (n.nodeType === 3 && NOT_BLANK.test((n as Text).data)) return false;
  }
  if (seen !== 2) return false;
  for (let n = html.firstElementChild!.firstChild; n; n = n.nextSibling) {
    if (!belongsInHead(n)) return false;
  }
  for (let el = html.lastElementChild!.firstElementChild; el; el = el.nextElementSibling) {
    if (STRUCTURE.has(el.localName)) return false;
  }
  return true;
}
