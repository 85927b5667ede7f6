// The markup comparison of one page (GET /projects/{id}/changes/markup): both versions as
// normalized trees, diffed with jsondiffpatch. Children are matched by subtree fingerprint
// (objectHash), so jsondiffpatch's LCS finds every unchanged element; what it leaves as removed
// and added in one child list is paired here by node key (tag#id.classes) in order, and a pair
// is diffed again one level down. Changes come out as {path, kind, before, after}.
//
// A change is volatile by the rules the word diff's noise filter applies to a block on its face
// (volatile-patterns.ts): a block is the innermost block-level element around the change, in
// both versions, and the change is volatile when the block's text differs only in volatile spans
// ("<span>1,204</span> visitors online" → "1,311 visitors online": the counter's text node alone
// says nothing), when it sits in a block labelled as an ad, or under a rotating widget's heading.
// Flapping, template and history need the page's past, which this comparison of two versions
// does not have.

import type { MarkupChangeKindName } from '@tidemark/contracts';
import { create, type AddedDelta, type ArrayDelta, type Delta, type MovedDelta, type ObjectDelta } from 'jsondiffpatch';
import {
  BOOKKEEPING_PROPERTIES,
  normalizeMarkup,
  textOfNode,
  type MarkupNode,
  type NormalizeOptions,
} from './markup-tree.js';
import { AD_SLOT, maskVolatile, ROTATING_SECTION } from './volatile-patterns.js';

/** MARKUP_CHANGE_KINDS of libs/contracts (the proto enum's names). */
export type MarkupChangeKind = MarkupChangeKindName;

export interface MarkupChange {
  /** CSS selector of the element (the parent's, for a text change); of the old document for a removal. */
  path: string;
  kind: MarkupChangeKind;
  /** The attribute, for kind attr. */
  attr?: string;
  /** Text (or, for an element without text, its opening tag); at most 200 characters. */
  before: string | null;
  after: string | null;
  /**
   * Noise by the word diff's rules: only volatile text of its block changed (a timestamp, a
   * counter), or it is in an ad slot or a rotating widget. Shown, not counted.
   */
  volatile: boolean;
}

export interface MarkupComparison {
  changes: MarkupChange[];
  /** Changes beyond maxChanges were dropped. */
  truncated: boolean;
}

export interface MarkupOptions extends NormalizeOptions {
  /** Most changes reported (default 1,000). */
  maxChanges?: number;
}

const SHOWN_CHARS = 200;

const differ = create({
  objectHash: (item) => (item as Partial<MarkupNode>).hash,
  propertyFilter: (name) => !BOOKKEEPING_PROPERTIES.has(name),
  arrays: { detectMove: true, includeValueOnMove: false },
});

/** Compares two HTML versions of one page. */
export function compareMarkup(beforeHtml: string, afterHtml: string, options: MarkupOptions = {}): MarkupComparison {
  return compareMarkupTrees(normalizeMarkup(beforeHtml, options), normalizeMarkup(afterHtml, options), options);
}

/** Compares two normalized trees. */
export function compareMarkupTrees(
  before: MarkupNode,
  after: MarkupNode,
  options: MarkupOptions = {},
): MarkupComparison {
  const out = new ChangeList(options.maxChanges ?? 1000);
  if (before.hash !== after.hash) walkNode(before, after, out, null);
  return { changes: out.changes, truncated: out.truncated };
}

class ChangeList {
  readonly changes: MarkupChange[] = [];
  truncated = false;
  constructor(private readonly max: number) {}
  /** `noise`: its block says it is volatile (BlockPair); else only its own text is looked at. */
  add(change: Omit<MarkupChange, 'volatile'>, noise: boolean): void {
    if (this.changes.length >= this.max) {
      this.truncated = true;
      return;
    }
    const volatile =
      noise ||
      (change.before !== null && change.after !== null && change.before !== change.after
        ? maskVolatile(change.before) === maskVolatile(change.after)
        : false);
    this.changes.push({ ...change, volatile });
  }
}

/** Elements that make a block of text of their own, as the markdown the word diff reads does. */
const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'td',
  'th',
  'tr',
  'ul',
]);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** Enough of a block's text for AD_SLOT, which looks at its first words only. */
const LEAD_CHARS = 64;

const leadingText = (node: MarkupNode): string => {
  let text = '';
  const visit = (n: MarkupNode): boolean => {
    for (const child of n.children) {
      if (typeof child === 'string') text += ` ${child}`;
      else if (visit(child)) return true;
      if (text.length >= LEAD_CHARS) return true;
    }
    return false;
  };
  visit(node);
  return text;
};

/** Labelled as an ad ("Advertisement", "Sponsored") at its start, as the word diff's ad-slot. */
const isAdSlot = (node: MarkupNode): boolean => !HEADINGS.has(node.tag) && AD_SLOT.test(leadingText(node));

const isRotating = (section: string | null): boolean => section !== null && ROTATING_SECTION.test(section);

/**
 * The innermost block-level element around a change in both versions, and the blocks around
 * it: what the word diff's filter would judge the change by.
 */
class BlockPair {
  private volatileText?: boolean;
  private adSlot?: boolean;
  constructor(
    readonly left: MarkupNode,
    readonly right: MarkupNode,
    private readonly outer: BlockPair | null,
  ) {}

  /** The block's text differs, and only in volatile spans (pattern). */
  get onlyVolatileText(): boolean {
    if (this.volatileText === undefined) {
      const before = textOfNode(this.left);
      const after = textOfNode(this.right);
      this.volatileText = before !== after && maskVolatile(before) === maskVolatile(after);
    }
    return this.volatileText;
  }

  /** This block or one around it is labelled as an ad (ad-slot). */
  get inAdSlot(): boolean {
    this.adSlot ??= isAdSlot(this.left) || isAdSlot(this.right) || (this.outer?.inAdSlot ?? false);
    return this.adSlot;
  }
}

/**
 * One level of the diff: the node's attributes and its child list, each child stood in for by
 * its fingerprint. Diffing whole subtrees would walk every unchanged subtree again at each
 * level of a change; this keeps a comparison linear in the size of the page.
 */
const oneLevel = (node: MarkupNode) => ({
  tag: node.tag,
  attrs: node.attrs,
  children: node.children.map((child) => (typeof child === 'string' ? child : { hash: child.hash })),
});

function walkNode(left: MarkupNode, right: MarkupNode, out: ChangeList, outer: BlockPair | null): void {
  const delta = differ.diff(oneLevel(left), oneLevel(right));
  if (!delta || !isObjectDelta(delta)) return;
  const block = BLOCK_TAGS.has(right.tag) || !outer ? new BlockPair(left, right, outer) : outer;
  if (delta.attrs) {
    // An attribute is not text: only an ad slot or a rotating widget makes its change noise.
    const noise = block.inAdSlot || isRotating(right.section);
    for (const name of new Set([...Object.keys(left.attrs), ...Object.keys(right.attrs)])) {
      const old = left.attrs[name] ?? null;
      const now = right.attrs[name] ?? null;
      if (old !== now) out.add({ path: right.path, kind: 'attr', attr: name, before: old, after: now }, noise);
    }
  }
  const children = delta.children;
  if (children && isArrayDelta(children)) walkChildren(left, right, children, out, block);
}

/** The section a text child stands in: after the element before it, else where its parent starts. */
const sectionAt = (parent: MarkupNode, index: number): string | null => {
  for (let i = index - 1; i >= 0; i--) {
    const sibling = parent.children[i]!;
    if (typeof sibling !== 'string') return sibling.sectionEnd;
  }
  return parent.section;
};

/** The section of a child of the node: its own for an element, sectionAt for text. */
const sectionOf = (parent: MarkupNode, index: number): string | null => {
  const child = parent.children[index]!;
  return typeof child === 'string' ? sectionAt(parent, index) : child.section;
};

function walkChildren(left: MarkupNode, right: MarkupNode, delta: ArrayDelta, out: ChangeList, block: BlockPair): void {
  const removed: number[] = [];
  const added: number[] = [];
  for (const [key, value] of Object.entries(delta) as Array<[string, Delta]>) {
    if (key === '_t') continue;
    if (key.startsWith('_')) {
      const from = Number(key.slice(1));
      if (isMovedDelta(value)) {
        const moved = left.children[from]!;
        const to = right.children[value[1]]!;
        out.add(
          {
            path: typeof to === 'string' ? right.path : to.path,
            kind: 'moved',
            before: typeof moved === 'string' ? moved : moved.path,
            after: typeof to === 'string' ? to : to.path,
          },
          block.inAdSlot || isRotating(sectionOf(right, value[1])),
        );
      } else {
        removed.push(from);
      }
    } else if (isAddedDelta(value)) {
      added.push(Number(key));
    }
    // A matched child never carries an inner delta: it matched by its whole subtree's fingerprint.
  }
  removed.sort((p, q) => p - q);
  added.sort((p, q) => p - q);

  // Pair removals with additions in document order: text with text, elements with the same key.
  let nextAdded = 0;
  const pairedAdded = new Set<number>();
  for (const from of removed) {
    const old = left.children[from]!;
    let match = -1;
    for (let k = nextAdded; k < added.length; k++) {
      if (sameNode(old, right.children[added[k]!]!)) {
        match = k;
        break;
      }
    }
    if (match < 0) {
      out.add(
        {
          path: pathOf(old, left),
          kind: typeof old === 'string' ? 'text' : 'removed',
          before: shown(old),
          after: null,
        },
        textNoise(block, old, sectionOf(left, from)),
      );
      continue;
    }
    const now = right.children[added[match]!]!;
    pairedAdded.add(added[match]!);
    nextAdded = match + 1;
    if (typeof old === 'string' || typeof now === 'string') {
      out.add(
        { path: right.path, kind: 'text', before: clip(old as string), after: clip(now as string) },
        textNoise(block, now, sectionOf(right, added[match]!)),
      );
    } else {
      walkNode(old, now, out, block);
    }
  }
  for (const to of added) {
    if (pairedAdded.has(to)) continue;
    const now = right.children[to]!;
    out.add(
      {
        path: pathOf(now, right),
        kind: typeof now === 'string' ? 'text' : 'added',
        before: null,
        after: shown(now),
      },
      textNoise(block, now, sectionOf(right, to)),
    );
  }
}

/** A change of text (or of an element with its text) is noise by its block, its own label or its section. */
const textNoise = (block: BlockPair, node: MarkupNode | string, section: string | null): boolean =>
  block.onlyVolatileText || block.inAdSlot || (typeof node !== 'string' && isAdSlot(node)) || isRotating(section);

// The delta shapes (jsondiffpatch's docs/deltas.md); its own guards are not exported by the package.
const isObjectDelta = (d: Delta): d is ObjectDelta => typeof d === 'object' && d !== null && !Array.isArray(d);
const isArrayDelta = (d: Delta): d is ArrayDelta => isObjectDelta(d) && (d as { _t?: unknown })._t === 'a';
const isAddedDelta = (d: Delta): d is AddedDelta => Array.isArray(d) && d.length === 1;
const isMovedDelta = (d: Delta): d is MovedDelta => Array.isArray(d) && d.length === 3 && d[2] === 3;

const sameNode = (old: MarkupNode | string, now: MarkupNode | string): boolean =>
  typeof old === 'string' ? typeof now === 'string' : typeof now !== 'string' && old.key === now.key;

const pathOf = (node: MarkupNode | string, parent: MarkupNode): string =>
  typeof node === 'string' ? parent.path : node.path;

function shown(node: MarkupNode | string): string {
  if (typeof node === 'string') return clip(node);
  const text = textOfNode(node);
  if (text) return clip(text);
  const attrs = Object.entries(node.attrs)
    .map(([name, value]) => ` ${name}="${value}"`)
    .join('');
  return clip(`<${node.tag}${attrs}>`);
}

const clip = (text: string): string => (text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}…` : text);
