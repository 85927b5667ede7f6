/// <reference lib="dom" />
// Clean HTML as a JSON tree the markup comparison can diff: elements with their lasting
// attributes and their children in order (text as strings, whitespace collapsed). Scripts,
// styles and comments, volatile attributes (nonces, CSRF and session tokens, tracking data),
// minted ids and classes, and the elements of `volatile_selectors` are left out, so two renders
// of an unchanged page give equal trees.

import { fingerprint } from './hash.js';
import { cssIdent, isStableId, parseHtml, stableClasses, stableUrl, VOLATILE_ATTRIBUTE } from './dom-stability.js';

export interface MarkupNode {
  tag: string;
  attrs: Record<string, string>;
  children: Array<MarkupNode | string>;
  /** Fingerprint of the whole subtree: equal subtrees match (jsondiffpatch's objectHash). */
  hash: string;
  /** tag#id.classes: what makes two versions of a changed node the same node. */
  key: string;
  /** A CSS selector of the node in its document (ids anchor it; nth-of-type among same tags). */
  path: string;
  /**
   * The text of the nearest heading at or before the node's start, and at its end (null before
   * the first heading): the section the word diff would put its text in.
   */
  section: string | null;
  sectionEnd: string | null;
}

/** Not compared: the diff's propertyFilter leaves these out. */
export const BOOKKEEPING_PROPERTIES = new Set(['hash', 'key', 'path', 'section', 'sectionEnd']);

const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

const SKIPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'link',
  'meta',
  'head',
  'base',
  'iframe',
  'object',
  'embed',
  'canvas',
]);
/** Kept as a leaf: their insides are drawing instructions, not content. */
const LEAVES = new Set(['svg', 'math', 'video', 'audio', 'picture']);
const KEPT_ATTRIBUTES = new Set([
  'id',
  'class',
  'href',
  'src',
  'alt',
  'title',
  'name',
  'type',
  'value',
  'role',
  'lang',
  'rel',
  'action',
  'method',
  'for',
  'colspan',
  'rowspan',
  'datetime',
  'content',
  'placeholder',
  'label',
  'itemprop',
  'itemtype',
  'property',
  'hreflang',
]);
const URL_ATTRIBUTES = new Set(['href', 'src', 'action']);

export interface NormalizeOptions {
  /** CSS selectors of elements left out (the project's `volatile_selectors`); invalid ones are ignored. */
  volatileSelectors?: readonly string[];
}

/** The body of an HTML page or fragment as a normalized tree. */
export function normalizeMarkup(html: string, options: NormalizeOptions = {}): MarkupNode {
  const doc = parseHtml(html);
  for (const selector of options.volatileSelectors ?? []) {
    let matched: Element[] = [];
    try {
      matched = Array.from(doc.querySelectorAll(selector));
    } catch {
      continue; // a bad selector in the config hides nothing rather than failing the comparison
    }
    for (const el of matched) el.remove();
  }
  const body = doc.body ?? doc.documentElement;
  return nodeOf(body, 'body', { heading: null });
}

/** Text of a node's subtree, its pieces joined by a space. */
export function textOfNode(node: MarkupNode): string {
  return node.children
    .map((c) => (typeof c === 'string' ? c : textOfNode(c)))
    .filter(Boolean)
    .join(' ');
}

/** The heading in effect as the tree is built in document order. */
interface Sections {
  heading: string | null;
}

function nodeOf(el: Element, path: string, sections: Sections): MarkupNode {
  const tag = el.localName;
  const section = sections.heading;
  const attrs = attributesOf(el, tag);
  const children: Array<MarkupNode | string> = [];
  if (!LEAVES.has(tag)) {
    // nth-of-type counts every element sibling of the tag, kept or not, as a browser does.
    const totals = new Map<string, number>();
    for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
      totals.set(child.localName, (totals.get(child.localName) ?? 0) + 1);
    }
    const seen = new Map<string, number>();
    let text = '';
    const flush = () => {
      const collapsed = text.replace(/\s+/g, ' ').trim();
      if (collapsed) children.push(collapsed);
      text = '';
    };
    // Sibling links, not childNodes: linkedom builds a new array on every childNodes read.
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) {
        text += ` ${child.nodeValue ?? ''}`;
      } else if (child.nodeType === 1) {
        const element = child as Element;
        const position = (seen.get(element.localName) ?? 0) + 1;
        seen.set(element.localName, position);
        if (SKIPPED.has(element.localName)) continue;
        flush();
        children.push(
          nodeOf(element, childPath(element, path, position, totals.get(element.localName) ?? 1), sections),
        );
      }
    }
    flush();
  }
  const classes = attrs.class ? `.${attrs.class.split(' ').join('.')}` : '';
  const key = `${tag}${attrs.id ? `#${attrs.id}` : ''}${classes}`;
  const attrText = Object.entries(attrs)
    .map(([name, value]) => `${name}=${value}`)
    .join('\u0001');
  const childText = children.map((c) => (typeof c === 'string' ? `"${c}` : c.hash)).join('\u0002');
  const node: MarkupNode = {
    tag,
    attrs,
    children,
    hash: fingerprint(`${tag}\u0003${attrText}\u0003${childText}`),
    key,
    path,
    section,
    sectionEnd: section,
  };
  // A heading opens a section of its own (as a markdown heading does), itself included.
  if (HEADINGS.has(tag)) node.section = sections.heading = textOfNode(node) || sections.heading;
  node.sectionEnd = sections.heading;
  return node;
}

function attributesOf(el: Element, tag: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  const hiddenInput = tag === 'input' && el.getAttribute('type')?.toLowerCase() === 'hidden';
  const volatileName = VOLATILE_ATTRIBUTE.test(el.getAttribute('name') ?? '');
  for (const { name, value } of Array.from(el.attributes)) {
    const kept = KEPT_ATTRIBUTES.has(name) || name.startsWith('data-') || name.startsWith('aria-');
    if (!kept || VOLATILE_ATTRIBUTE.test(name)) continue;
    // A hidden input or a field named like a token carries a per-response value.
    if (name === 'value' && (hiddenInput || volatileName)) continue;
    if (name === 'id') {
      if (isStableId(value)) attrs.id = value;
    } else if (name === 'class') {
      const classes = stableClasses(el);
      if (classes.length) attrs.class = classes.join(' ');
    } else {
      attrs[name] = URL_ATTRIBUTES.has(name) ? stableUrl(value.trim()) : value.replace(/\s+/g, ' ').trim();
    }
  }
  return Object.fromEntries(Object.entries(attrs).sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0)));
}

/** The child's selector: by id when it has a lasting one, else under its parent's. */
function childPath(el: Element, parentPath: string, position: number, sameTag: number): string {
  const tag = el.localName;
  const id = el.getAttribute('id');
  if (id && isStableId(id)) return `${tag}#${cssIdent(id)}`;
  const firstClass = stableClasses(el)[0];
  const nth = sameTag > 1 ? `:nth-of-type(${position})` : '';
  return `${parentPath} > ${tag}${firstClass ? `.${cssIdent(firstClass)}` : ''}${nth}`;
}
