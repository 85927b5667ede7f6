// The markup comparison of one page (GET /projects/{id}/changes/markup): both versions as
// normalized trees, diffed with jsondiffpatch. Children are matched by subtree fingerprint
// (objectHash), so jsondiffpatch's LCS finds every unchanged element; what it leaves as removed
// and added in one child list is paired here by node key (tag#id.classes) in order, and a pair
// is diffed again one level down. Changes come out as {path, kind, before, after}.

import type { MarkupChangeKindName } from '@tidemark/contracts';
import { create, type AddedDelta, type ArrayDelta, type Delta, type MovedDelta, type ObjectDelta } from 'jsondiffpatch';
import { BOOKKEEPING_PROPERTIES, normalizeMarkup, type MarkupNode, type NormalizeOptions } from './markup-tree.js';
import { maskVolatile } from './volatile-patterns.js';

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
  /** Only volatile text changed (a timestamp, a counter): shown, not counted. */
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
  if (before.hash !== after.hash) walkNode(before, after, out);
  return { changes: out.changes, truncated: out.truncated };
}

class ChangeList {
  readonly changes: MarkupChange[] = [];
  truncated = false;
  constructor(private readonly max: number) {}
  add(change: Omit<MarkupChange, 'volatile'>): void {
    if (this.changes.length >= this.max) {
      this.truncated = true;
      return;
    }
    const volatile =
      change.before !== null && change.after !== null && change.before !== change.after
        ? maskVolatile(change.before) === maskVolatile(change.after)
        : false;
    this.changes.push({ ...change, volatile });
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

function walkNode(left: MarkupNode, right: MarkupNode, out: ChangeList): void {
  const delta = differ.diff(oneLevel(left), oneLevel(right));
  if (!delta || !isObjectDelta(delta)) return;
  if (delta.attrs) {
    for (const name of new Set([...Object.keys(left.attrs), ...Object.keys(right.attrs)])) {
      const old = left.attrs[name] ?? null;
      const now = right.attrs[name] ?? null;
      if (old !== now) out.add({ path: right.path, kind: 'attr', attr: name, before: old, after: now });
    }
  }
  const children = delta.children;
  if (children && isArrayDelta(children)) walkChildren(left, right, children, out);
}

function walkChildren(left: MarkupNode, right: MarkupNode, delta: ArrayDelta, out: ChangeList): void {
  const removed: number[] = [];
  const added: number[] = [];
  for (const [key, value] of Object.entries(delta) as Array<[string, Delta]>) {
    if (key === '_t') continue;
    if (key.startsWith('_')) {
      const from = Number(key.slice(1));
      if (isMovedDelta(value)) {
        const moved = left.children[from]!;
        const to = right.children[value[1]]!;
        out.add({
          path: typeof to === 'string' ? right.path : to.path,
          kind: 'moved',
          before: typeof moved === 'string' ? moved : moved.path,
          after: typeof to === 'string' ? to : to.path,
        });
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
      out.add({
        path: pathOf(old, left),
        kind: typeof old === 'string' ? 'text' : 'removed',
        before: shown(old),
        after: null,
      });
      continue;
    }
    const now = right.children[added[match]!]!;
    pairedAdded.add(added[match]!);
    nextAdded = match + 1;
    if (typeof old === 'string' || typeof now === 'string') {
      out.add({ path: right.path, kind: 'text', before: clip(old as string), after: clip(now as string) });
    } else {
      walkNode(old, now, out);
    }
  }
  for (const to of added) {
    if (pairedAdded.has(to)) continue;
    const now = right.children[to]!;
    out.add({
      path: pathOf(now, right),
      kind: typeof now === 'string' ? 'text' : 'added',
      before: null,
      after: shown(now),
    });
  }
}

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

function textOfNode(node: MarkupNode): string {
  return node.children
    .map((c) => (typeof c === 'string' ? c : textOfNode(c)))
    .filter(Boolean)
    .join(' ');
}

const clip = (text: string): string => (text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}…` : text);
