// A content block as node-html-markdown's visitor reads it, built straight from the linkedom
// tree. NHM's translate() takes an HTML string and parses it with node-html-parser; serialising
// our tree (blockHtml) only for NHM to parse it again cost more than the conversion itself.
//
// The tree built here is the one node-html-parser makes of blockHtml's output, node for node, so
// that the markdown stays the same: the tags and text of the compact HTML are replayed through
// node-html-parser's tree-building rules, which are not the browser's. It closes an open <p>
// when a <p> or <div> starts, an <li> at an <li>, a <b> at a <div>, a cell at a cell, a heading
// at the same heading; a closing </div> also closes an <a>, <b>, <i> or <p> left open; a link
// that starts inside a link closes the outer one (and whatever was opened inside it); closing
// tags that match nothing are ignored. Text between two tags is one text node. A block this
// replay does not cover (an element whose text node-html-parser keeps raw, an element left open
// at the end) answers null and goes the string way. An element named what node-html-parser does
// not read as a tag is written by its content, in both ways (compact-html.ts, `unwrapped`).

import { resolvedAttr } from './clean.js';
import { emptyBlockSeparates, KEEP_ATTRS, unwrapped, VOID, wordyLink, type ContentBlock } from './compact-html.js';
import { firstChildOf, nextSiblingOf } from './linked-nodes.js';
import type { UrlResolver } from './urls.js';

/** What node-html-parser's TextNode offers NHM's visitor. */
export class MdText {
  readonly nodeType = 3;
  /** Set by the visitor: whether the node has content worth rendering. */
  preserve?: boolean;
  constructor(
    public text: string,
    public parentNode: MdElement,
  ) {}
  get rawText(): string {
    return this.text;
  }
  get textContent(): string {
    return this.text;
  }
  get isWhitespace(): boolean {
    return !NOT_BLANK.test(this.text);
  }
  /** Whitespace trimmed, but a single space kept at either end where there was one. */
  get trimmedText(): string {
    const t = this.text;
    let start = 0;
    while (start < t.length && !NOT_BLANK.test(t[start]!)) start++;
    let end = t.length - 1;
    while (end > start && !NOT_BLANK.test(t[end]!)) end--;
    if (start >= t.length) start = 0;
    if (end < 0) end = t.length - 1;
    const lead = start > 0 && SPACE.test(t[start - 1]!);
    const trail = end < t.length - 1 && SPACE.test(t[end + 1]!);
    return (lead ? ' ' : '') + t.slice(start, end + 1) + (trail ? ' ' : '');
  }
}

/** What node-html-parser's HTMLElement offers NHM's visitor and translators. */
export class MdElement {
  readonly nodeType = 1;
  childNodes: MdNode[] = [];
  preserve?: boolean;
  /** A link's closing (`](url "title")`), set as NHM's link translator reads it (markdown.ts). */
  linkClose: string | undefined = undefined;
  /** Lower case, as written in the compact HTML; '' for the root of a block. */
  readonly rawTagName: string;
  /** Upper case, as node-html-parser reports it. */
  readonly tagName: string;
  constructor(
    readonly tag: Tag,
    public parentNode: MdElement | null,
    private readonly attrs: Record<string, string> | null,
  ) {
    this.rawTagName = tag.name;
    this.tagName = tag.upper;
  }
  getAttribute(name: string): string | undefined {
    return this.attrs?.[name];
  }
  /** node-html-parser reads a <br> as a line break. */
  get textContent(): string {
    if (this.rawTagName === 'br') return '\n';
    let s = '';
    for (const c of this.childNodes) s += c.textContent;
    return s;
  }
  get rawText(): string {
    return this.textContent;
  }
}

export type MdNode = MdText | MdElement;

const NOT_BLANK = /\S/;
const SPACE = /[^\S\r\n]/;

// node-html-parser's tree-building rules (see the head of this file).
const CLOSED_BY_OPENING: Record<string, readonly string[]> = {
  li: ['li'],
  p: ['p', 'div'],
  b: ['div'],
  td: ['td', 'th'],
  th: ['td', 'th'],
  h1: ['h1'],
  h2: ['h2'],
  h3: ['h3'],
  h4: ['h4'],
  h5: ['h5'],
  h6: ['h6'],
};
const CLOSED_BY_CLOSING: Record<string, readonly string[]> = {
  li: ['ul', 'ol'],
  a: ['div'],
  b: ['div'],
  i: ['div'],
  p: ['div'],
  td: ['tr', 'table'],
  th: ['tr', 'table'],
};
/** Elements node-html-parser closes as soon as they open. */
const PARSER_VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
/** Elements whose content node-html-parser (as NHM configures it) skips as raw text. */
const RAW_TEXT = new Set(['script', 'noscript', 'style']);

/** Everything the replay needs to know of a tag name, looked up once per name. */
interface Tag {
  name: string;
  upper: string;
  /** Not written in the compact HTML (its content is). */
  unwrap: boolean;
  /** A tag the replay does not cover. */
  unsupported: boolean;
  /** Attributes the compact HTML keeps. */
  keep: readonly string[] | undefined;
  /** Written without a closing tag in the compact HTML. */
  compactVoid: boolean;
  parserVoid: boolean;
  /** Tags whose opening, inside this element, closes it first. */
  closedByOpening: readonly string[] | undefined;
  /** Closing tags that, reaching this element while it is open, close it. */
  closedByClosing: readonly string[] | undefined;
}

const TAGS = new Map<string, Tag>();
const MAX_TAGS = 10_000;

function tagOf(localName: string): Tag {
  let tag = TAGS.get(localName);
  if (!tag) {
    const name = localName.toLowerCase();
    tag = {
      name,
      upper: name.toUpperCase(),
      unwrap: unwrapped(name),
      unsupported: RAW_TEXT.has(name),
      keep: KEEP_ATTRS[name],
      compactVoid: VOID.has(name),
      parserVoid: PARSER_VOID.has(name),
      closedByOpening: CLOSED_BY_OPENING[name],
      closedByClosing: CLOSED_BY_CLOSING[name],
    };
    if (TAGS.size >= MAX_TAGS) TAGS.clear(); // custom element names are countless
    TAGS.set(localName, tag);
  }
  return tag;
}

const ROOT_TAG = tagOf('');
const P_TAG = tagOf('p');
const BR_TAG = tagOf('br');

class Unsupported extends Error {}

class TreeBuilder {
  readonly root = new MdElement(ROOT_TAG, null, null);
  private readonly stack: MdElement[] = [this.root];
  private current = this.root;
  /** Stack depth at which the open <a> sits, while one is open. */
  private openLink: number | undefined;
  /** The text node the last event wrote to; text after text extends it. */
  private lastText: MdText | null = null;

  text(data: string): void {
    if (!data) return;
    if (this.lastText) this.lastText.text += data;
    else {
      this.lastText = new MdText(data, this.current);
      this.current.childNodes.push(this.lastText);
    }
  }

  open(tag: Tag, attrs: Record<string, string> | null): void {
    this.lastText = null;
    if (this.current.tag.closedByOpening?.includes(tag.name)) this.pop();
    if (tag.name === 'a') {
      if (this.openLink !== undefined && this.openLink < this.stack.length) {
        this.stack.length = this.openLink;
        this.current = this.stack[this.stack.length - 1]!;
      }
      this.openLink = this.stack.length;
    }
    const el = new MdElement(tag, this.current, attrs);
    this.current.childNodes.push(el);
    this.stack.push(el);
    this.current = el;
    if (tag.parserVoid) this.close(tag.name);
  }

  close(name: string): void {
    this.lastText = null;
    for (;;) {
      if (name === 'a') this.openLink = undefined;
      if (this.current.rawTagName === name) {
        this.pop();
        return;
      }
      if (!this.current.tag.closedByClosing?.includes(name)) return;
      this.pop();
    }
  }

  finish(): MdElement {
    if (this.stack.length !== 1) throw new Unsupported();
    return this.root;
  }

  private pop(): void {
    this.stack.pop();
    this.current = this.stack[this.stack.length - 1]!;
  }
}

function replay(el: Element, b: TreeBuilder, resolve: UrlResolver | undefined, inLink = false): void {
  if (emptyBlockSeparates(el, inLink)) {
    if (inLink) return b.text(' ');
    return b.open(BR_TAG, null);
  }
  const tag = tagOf(el.localName);
  if (!tag.unwrap) {
    if (tag.unsupported) throw new Unsupported();
    let attrs: Record<string, string> | null = null;
    if (tag.keep) {
      for (const name of tag.keep) {
        const raw = el.getAttribute(name);
        const v = raw === null ? null : resolvedAttr(tag.name, name, raw, resolve);
        if (v !== null) (attrs ??= {})[name] = v;
      }
    }
    b.open(tag, attrs);
    if (tag.compactVoid) return;
  }
  // Cleaning leaves the <head> as it is.
  const inner = tag.name === 'head' ? undefined : resolve;
  const inside = inLink || wordyLink(el);
  for (let n = firstChildOf(el); n; n = nextSiblingOf(n)) {
    if (n.nodeType === 3) b.text((n as Text).data);
    else if (n.nodeType === 1) replay(n as Element, b, inner, inside);
  }
  if (!tag.unwrap) b.close(tag.name);
}

/**
 * The tree node-html-parser would make of blockHtml(block, resolve), or null when it is not
 * covered.
 */
export function blockTree(block: ContentBlock, resolve?: UrlResolver): MdElement | null {
  const b = new TreeBuilder();
  try {
    if (block.element) replay(block.element, b, resolve);
    else {
      b.open(P_TAG, null);
      for (const n of block.inline) {
        if (n.nodeType === 3) b.text((n as Text).data);
        else replay(n as Element, b, resolve);
      }
      b.close('p');
    }
    return b.finish();
  } catch (err) {
    if (err instanceof Unsupported) return null;
    throw err;
  }
}
