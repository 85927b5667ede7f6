// The content as node-html-markdown sees it: cut into top-level blocks, re-serialised with only
// what the markdown needs (no class soup, data-* or aria-*, <span>s unwrapped). The markdown is
// made from the tree NHM's parser would build of this HTML (markdown-tree.ts); the HTML itself
// is what translate() gets for a block that tree does not cover, and the reference in tests.

import { resolvedAttr } from './clean.js';
import { breaksLine } from './text.js';
import type { UrlResolver } from './urls.js';

export const KEEP_ATTRS: Record<string, readonly string[]> = {
  a: ['href', 'title'],
  img: ['src', 'alt', 'title'],
  td: ['colspan', 'rowspan'],
  th: ['colspan', 'rowspan'],
  ol: ['start'],
  pre: ['class'],
  code: ['class'],
};
export const VOID = new Set(['area', 'br', 'col', 'hr', 'img', 'source', 'track', 'wbr']);
export const UNWRAP = new Set(['span', 'font', 'small', 'big', 'abbr', 'time', 'label', 'bdi', 'bdo', 'data', 'mark']);
/** A tag name node-html-parser reads as a tag; anything else it keeps as text. */
export const TAG_NAME = /^[a-zA-Z][-.:0-9_a-zA-Z]*$/;
/**
 * Elements written by their content alone: UNWRAP's, and an element whose name is no tag to
 * node-html-parser. Broken markup makes those (`<ulclass="list">` is an element named
 * `ulclass="list"`); a browser shows its content as it would an unknown element's, where its
 * tags written out would reach the markdown as escaped text (`\<ulclass="list>`).
 */
export const unwrapped = (tag: string): boolean => UNWRAP.has(tag) || !TAG_NAME.test(tag);

const escapeText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

export function compactHtml(roots: Element[]): string {
  const out: string[] = [];
  for (const root of roots) compactInto(root, out);
  return out.join('');
}

/**
 * Containers that add nothing to markdown but the block break around them: their children can
 * be converted one by one and joined with a blank line.
 */
const CONTAINERS = new Set(['div', 'section', 'article', 'main', 'body', 'header', 'footer', 'aside', 'nav', 'center']);
/** Elements that render inline: a run of them (with text) is converted as one block. */
const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'big',
  'br',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'img',
  'ins',
  'kbd',
  'label',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
  'u',
  'var',
  'wbr',
]);

/**
 * A top-level piece of the content: a block element, or a run of inline content (text and
 * inline elements) that is rendered as one paragraph.
 */
export type ContentBlock = { element: Element; inline?: undefined } | { element?: undefined; inline: Node[] };

/**
 * The content cut into top-level blocks: containers are opened, and each block element, or run
 * of inline content, inside them becomes one piece. node-html-markdown re-scans its whole output
 * after every node (it reads the trailing whitespace of a string built by concatenation, which
 * flattens it), so one long page cost time quadratic in its length; converting block by block
 * keeps each conversion short.
 */
export function contentBlocks(roots: Element[]): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  let inline: Node[] = [];
  const flush = () => {
    if (inline.length) blocks.push({ inline });
    inline = [];
  };
  const open = (el: Element): void => {
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3) {
        // Blank text does not open a run.
        if (inline.length || NOT_BLANK.test((n as Text).data)) inline.push(n);
      } else if (n.nodeType === 1) {
        const child = n as Element;
        const tag = child.localName;
        if (INLINE.has(tag)) {
          // Nor does an unwrapped element that leaves nothing in its place.
          if (inline.length || !unwrapped(tag) || leavesSomething(child)) inline.push(child);
        } else {
          flush();
          if (CONTAINERS.has(tag)) open(child);
          else blocks.push({ element: child });
        }
      }
    }
    flush();
  };
  for (const root of roots) {
    if (CONTAINERS.has(root.localName)) open(root);
    else blocks.push({ element: root });
  }
  return blocks;
}

const NOT_BLANK = /\S/;

/** Whether an unwrapped element leaves anything in the compact HTML: text (even empty) or a tag. */
function leavesSomething(el: Element): boolean {
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 3) return true;
    if (n.nodeType === 1 && (!unwrapped((n as Element).localName) || leavesSomething(n as Element))) return true;
  }
  return false;
}

/** A block's compact HTML; a run of inline content is wrapped in a <p>. */
export function blockHtml(block: ContentBlock, resolve?: UrlResolver): string {
  const out: string[] = [];
  if (block.element) {
    compactInto(block.element, out, resolve);
    return out.join('');
  }
  out.push('<p>');
  for (const n of block.inline) {
    if (n.nodeType === 3) out.push(escapeText((n as Text).data));
    else compactInto(n as Element, out, resolve);
  }
  out.push('</p>');
  return out.join('');
}

/** The same HTML as compactHtml, cut into top-level blocks (contentBlocks). */
export function compactHtmlBlocks(roots: Element[]): string[] {
  return contentBlocks(roots).map((block) => blockHtml(block));
}

/**
 * A block that shows nothing (a spacer, an icon's box) inside a link, or between two pieces of
 * inline content (a heading's, an item's or a cell's words, a card's spans, a swatch's labels):
 * node-html-markdown drops an empty element, but the text breaks its line there, so the words
 * either side of it are apart. In a link it is written as one space ("[Deeplink Starting an
 * issue…]", not "DeeplinkStarting"); elsewhere as a line break, which a heading or a cell writes
 * as a space ("### Nikon Never miss a moment", not "NikonNever") and an item or a paragraph as
 * its line's end. Between blocks it changes nothing, and is left as it was; so is a <br> or an
 * <hr> outside a link, which node-html-markdown writes as what it is.
 */
export const emptyBlockSeparates = (el: Element, inLink: boolean): boolean =>
  breaksLine(el.localName) &&
  (inLink
    ? showsNothing(el, true)
    : !VOID.has(el.localName) &&
      inlineBeside(el, 'previousSibling') &&
      inlineBeside(el, 'nextSibling') &&
      showsNothing(el, false));

/**
 * Whether the first node beside el that is not blank text or a comment is inline content: read
 * on past the end of an inline parent (a swatch's icon box ends its <label>, whose neighbour is
 * the next size), 8 nodes and parents at most.
 */
function inlineBeside(el: Element, side: 'previousSibling' | 'nextSibling'): boolean {
  let at: Node = el;
  for (let read = 0; read < 8; read++) {
    let n = at[side];
    while (!n) {
      const parent = at.parentNode as Element | null;
      if (!parent || parent.nodeType !== 1 || breaksLine(parent.localName) || ++read >= 8) return false;
      at = parent;
      n = at[side];
    }
    if (n.nodeType === 3) {
      if (NOT_BLANK.test((n as Text).data)) return true;
    } else if (n.nodeType === 1) return !breaksLine((n as Element).localName);
    at = n;
  }
  return false;
}

/**
 * A link with words in it: only there is an empty block written as a space. A link that shows
 * nothing (a vote arrow's, an icon's) stays empty, and is left out as it was.
 */
export const wordyLink = (el: Element): boolean => el.localName === 'a' && NOT_BLANK.test(el.textContent ?? '');

/**
 * Most nodes a block is read for emptiness: a spacer or an icon's box holds a few. Read in full,
 * blocks nested thousands deep in a link were each read to the bottom (quadratic: 24,000 levels
 * took 0.6 s); a block larger than this is written as it was, an element.
 */
const EMPTY_BLOCK_NODES = 64;

/**
 * No text (but blanks, where `blanks` allows them) and no image (nor, where blanks are not
 * allowed, a rule or a line break); read without recursion,
 * EMPTY_BLOCK_NODES at most. Outside a link a block holding a blank is left as it is:
 * node-html-markdown writes it as a space, or (a non-breaking one) as the line break it is.
 */
function showsNothing(el: Element, blanks: boolean): boolean {
  let read = 0;
  let n: Node | null = el.firstChild;
  while (n) {
    if (++read > EMPTY_BLOCK_NODES) return false;
    if (n.nodeType === 3 && (blanks ? NOT_BLANK.test((n as Text).data) : (n as Text).data !== '')) return false;
    if (n.nodeType === 1) {
      // An image shows something; outside a link, so does any void element (a rule, a break).
      const tag = (n as Element).localName;
      if (tag === 'img' || (!blanks && VOID.has(tag))) return false;
      if (n.firstChild) {
        n = n.firstChild;
        continue;
      }
    }
    while (!n.nextSibling) {
      n = n.parentNode!;
      if (n === el) return true;
    }
    n = n.nextSibling;
  }
  return true;
}

function compactInto(root: Element, out: string[], resolve?: UrlResolver): void {
  const visit = (el: Element, resolve: UrlResolver | undefined, inLink: boolean): void => {
    const tag = el.localName;
    if (emptyBlockSeparates(el, inLink)) {
      out.push(inLink ? ' ' : '<br>');
      return;
    }
    const unwrap = unwrapped(tag);
    if (!unwrap) {
      let open = `<${tag}`;
      for (const name of KEEP_ATTRS[tag] ?? []) {
        const raw = el.getAttribute(name);
        const v = raw === null ? null : resolvedAttr(tag, name, raw, resolve);
        if (v !== null) open += ` ${name}="${escapeAttr(v)}"`;
      }
      out.push(`${open}>`);
      if (VOID.has(tag)) return;
    }
    // Cleaning leaves the <head> as it is.
    const inner = tag === 'head' ? undefined : resolve;
    const inside = inLink || wordyLink(el);
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3) out.push(escapeText((n as Text).data));
      else if (n.nodeType === 1) visit(n as Element, inner, inside);
    }
    if (!unwrap) out.push(`</${tag}>`);
  };
  visit(root, resolve, false);
}
