/// <reference lib="dom" />
// When a field's CSS selector stops matching, find where its element went and propose a new
// selector. Finding: every element of the new page is scored against the old one on several
// attributes at once, weighted as Similo does (Nass, Alégroth, Feldt & Coppola, "Similarity-
// based Web Element Localization for Robust Test Automation", 2023): tag, id, name, visible
// text and neighbour text weigh most; classes, other attributes, position and parent less. The
// score over the weights the old element offers is the confidence. Naming: the shortest
// selector that matches that element alone, found breadth first over Robula+'s refinements
// (Leotta et al., "ROBULA+: an algorithm for generating robust XPath locators", 2016) in CSS:
// a tag, an id, one lasting attribute or class at a time, a position, then a parent level.

import {
  cssIdent,
  cssString,
  isStableId,
  parseHtml,
  stableClasses,
  stableUrl,
  textOf,
  VOLATILE_ATTRIBUTE,
} from './dom-stability.js';
import { maskVolatile } from './volatile-patterns.js';

/**
 * Least confidence to repoint: 0.65 of the old element's weighted attributes. An element that
 * kept its tag and its text and neighbours but lost its class and moved (the usual redesign)
 * scores about 0.8; one that shares only its text with the old element scores under 0.5.
 */
export const REPOINT_THRESHOLD = 0.65;
/** The best candidate must lead the next by this much; two near-equal ones are a guess. */
export const REPOINT_MARGIN = 0.05;
/** Values this similar (or of the same shape, "$19.99" and "$21.50") count as the same content moved. */
export const SIMILAR_VALUE = 0.6;

const WEIGHTS = {
  tag: 1.5,
  id: 1.5,
  name: 1.5,
  text: 1.5,
  neighbours: 1.5,
  classes: 0.5,
  attributes: 0.5,
  position: 0.5,
  parent: 0.5,
} as const;

/** Attributes a selector may use, most lasting first (Robula+'s priority, with test ids added). */
const SELECTOR_ATTRIBUTES = [
  'name',
  'data-testid',
  'data-test',
  'data-qa',
  'data-cy',
  'itemprop',
  'aria-label',
  'role',
  'type',
  'title',
  'alt',
  'for',
  'href',
  'src',
];
const COMPARED_ATTRIBUTES = new Set([...SELECTOR_ATTRIBUTES, 'property', 'rel', 'lang', 'placeholder']);
const MAX_SELECTOR_ATTRIBUTE_CHARS = 80;
const MAX_CANDIDATE_SELECTORS = 4000;
const MAX_LEVELS = 4;

export interface RepointInput {
  /** The field's CSS selector that matches nothing on the new page. */
  selector: string;
  /** The field reads this attribute instead of the text. */
  attr?: string;
  /** What the field read in the baseline. */
  oldValue: string;
  /** The baseline page, when stored: the old element's attributes, position and neighbours. */
  oldHtml?: string;
  newHtml: string;
  /** The page URL: href/src values are compared absolute, as fields store them. */
  url?: string;
}

export interface Repoint {
  selector: string;
  confidence: number;
  /** What the new selector reads on the new page. */
  value: string;
  sameValue: boolean;
}

export interface RepointResult {
  /** The proposal, when the best element passed the threshold, the margin and the content check. */
  repointed: Repoint | null;
  /** The best element's score and value, repointed or not. */
  best: { confidence: number; value: string } | null;
  reason: string;
}

interface Profile {
  tag: string | null;
  id: string | null;
  classes: string[];
  attributes: Record<string, string>;
  text: string | null;
  neighbours: string | null;
  position: string[] | null;
  parent: string | null;
}

/** Finds the element a broken selector's element moved to and proposes a selector for it. */
export function repointSelector(input: RepointInput, threshold: number = REPOINT_THRESHOLD): RepointResult {
  if (/^\s*[/(]/.test(input.selector)) return none('XPath selectors are not repointed');
  const target = oldProfile(input);
  const doc = parseHtml(input.newHtml);
  const page = new PageIndex();
  const scored: Array<{ el: Element; score: number }> = [];
  for (const el of Array.from(doc.body?.querySelectorAll('*') ?? [])) {
    scored.push({ el, score: similarity(target, profileOf(el, page)) });
  }
  scored.sort((p, q) => q.score - p.score);
  const [first, second] = scored;
  if (!first) return none('the new page has no elements');
  const value = valueOf(first.el, input.attr, input.url);
  const best = { confidence: round(first.score), value };
  if (first.score < threshold)
    return { repointed: null, best, reason: `best match scored ${best.confidence}, under ${threshold}` };
  if (second && first.score - second.score < REPOINT_MARGIN) {
    return { repointed: null, best, reason: 'two elements match about as well; not guessing' };
  }
  const sameValue = value === input.oldValue;
  if (!sameValue && !similarValue(value, input.oldValue)) {
    return { repointed: null, best, reason: 'the best match holds different content' };
  }
  const selector = uniqueSelector(doc, first.el);
  return { repointed: { selector, confidence: best.confidence, value, sameValue }, best, reason: 'repointed' };
}

/** The shortest selector (fewest refinements) matching exactly this element of its document. */
export function uniqueSelector(doc: Document, el: Element): string {
  const queue: Locator[] = [[{ depth: 0, tag: false, id: false, attributes: [], classes: [], nth: false }]];
  const tried = new Set<string>();
  while (queue.length && tried.size < MAX_CANDIDATE_SELECTORS) {
    const locator = queue.shift()!;
    for (const refined of refinements(locator, el)) {
      const css = render(refined, el);
      if (tried.has(css)) continue;
      tried.add(css);
      if (locatesOnly(doc, css, el)) return css;
      queue.push(refined);
    }
  }
  return structuralPath(el);
}

// --- finding the element -------------------------------------------------------------------

function oldProfile(input: RepointInput): Profile {
  if (input.oldHtml) {
    const doc = parseHtml(input.oldHtml);
    let el: Element | null = null;
    try {
      el = doc.querySelector(input.selector);
    } catch {
      el = null;
    }
    if (el) return profileOf(el, new PageIndex());
  }
  // No stored page (or it no longer matches): what the selector itself says, and the value.
  const profile = selectorProfile(input.selector);
  if (input.attr) profile.attributes[input.attr] = input.oldValue;
  else profile.text = input.oldValue;
  return profile;
}

function profileOf(el: Element, page: PageIndex): Profile {
  const attributes: Record<string, string> = {};
  for (const { name, value } of Array.from(el.attributes)) {
    if ((COMPARED_ATTRIBUTES.has(name) || name.startsWith('data-')) && !VOLATILE_ATTRIBUTE.test(name)) {
      attributes[name] = name === 'href' || name === 'src' ? stableUrl(value) : value;
    }
  }
  const id = el.getAttribute('id');
  const parent = el.parentElement;
  return {
    tag: el.localName,
    id: id && isStableId(id) ? id : null,
    classes: stableClasses(el),
    attributes,
    text: page.text(el).slice(0, 500),
    neighbours: neighbourText(el, page),
    position: page.path(el),
    parent: parent ? `${parent.localName}.${stableClasses(parent).join('.')}` : null,
  };
}

/** The last compound of a CSS selector as a profile: tag, #id, .classes, [attr=value]. */
function selectorProfile(selector: string): Profile {
  const last =
    selector
      .trim()
      .split(/\s*[\s>+~]\s*/)
      .at(-1) ?? '';
  const attributes: Record<string, string> = {};
  for (const m of last.matchAll(/\[\s*([\w-]+)\s*(?:[~|^$*]?=\s*(?:"([^"]*)"|'([^']*)'|([^\]\s]+)))?\s*\]/g)) {
    attributes[m[1]!] = m[2] ?? m[3] ?? m[4] ?? '';
  }
  const bare = last.replace(/\[[^\]]*\]/g, '').replace(/:[\w-]+(?:\([^)]*\))?/g, '');
  return {
    tag: /^[a-z][\w-]*/i.exec(bare)?.[0]?.toLowerCase() ?? null,
    id: /#([\w-]+)/.exec(bare)?.[1] ?? null,
    classes: [...bare.matchAll(/\.([\w-]+)/g)].map((m) => m[1]!).sort(),
    attributes,
    text: null,
    neighbours: null,
    position: null,
    parent: null,
  };
}

/** Similo's weighted sum over the attributes the old element has, divided by their weights. */
function similarity(target: Profile, candidate: Profile): number {
  let score = 0;
  let weight = 0;
  const add = (w: number, present: boolean, sim: () => number) => {
    if (!present) return;
    weight += w;
    score += w * sim();
  };
  add(WEIGHTS.tag, target.tag !== null, () => (target.tag === candidate.tag ? 1 : 0));
  add(WEIGHTS.id, target.id !== null, () => (target.id === candidate.id ? 1 : 0));
  const name = target.attributes.name;
  add(WEIGHTS.name, name !== undefined, () => (candidate.attributes.name === name ? 1 : 0));
  add(WEIGHTS.text, target.text !== null, () => stringSimilarity(target.text!, candidate.text ?? ''));
  add(WEIGHTS.neighbours, target.neighbours !== null, () =>
    wordSimilarity(target.neighbours!, candidate.neighbours ?? ''),
  );
  add(WEIGHTS.classes, target.classes.length > 0, () => jaccard(target.classes, candidate.classes));
  const others = Object.keys(target.attributes).filter((a) => a !== 'name');
  add(WEIGHTS.attributes, others.length > 0, () => {
    const same = others.filter((a) => candidate.attributes[a] === target.attributes[a]).length;
    return same / others.length;
  });
  add(WEIGHTS.position, target.position !== null, () => sequenceSimilarity(target.position!, candidate.position ?? []));
  add(WEIGHTS.parent, target.parent !== null, () =>
    target.parent === candidate.parent ? 1 : target.parent!.split('.')[0] === candidate.parent?.split('.')[0] ? 0.5 : 0,
  );
  return weight ? score / weight : 0;
}

/** Text around the element: its label, heading or caption usually sits in a sibling or the parent. */
function neighbourText(el: Element, page: PageIndex): string | null {
  const parts: string[] = [];
  const before = el.previousElementSibling;
  const after = el.nextElementSibling;
  if (before) parts.push(page.text(before).slice(0, 200));
  if (after) parts.push(page.text(after).slice(0, 200));
  if (el.parentElement) parts.push(page.ownText(el.parentElement));
  const text = parts.join(' ').replace(/\s+/g, ' ').trim();
  return text || null;
}

/**
 * What scoring reads of the new page, memoised per element: scoring visits every element, and
 * a list of thousands of rows would otherwise recount its siblings and reread its parent for
 * each of them. Paths are index paths from the body ("div[2]": the second div of its parent).
 */
class PageIndex {
  private readonly paths = new Map<Element, string[]>();
  private readonly nth = new Map<Element, number>();
  private readonly texts = new Map<Element, string>();
  private readonly ownTexts = new Map<Element, string>();

  text(el: Element): string {
    let text = this.texts.get(el);
    if (text === undefined) this.texts.set(el, (text = textOf(el)));
    return text;
  }

  /** The element's own text nodes, not its children's. */
  ownText(el: Element): string {
    let text = this.ownTexts.get(el);
    if (text === undefined) {
      text = '';
      for (let node = el.firstChild; node; node = node.nextSibling) {
        if (node.nodeType === 3) text += ` ${node.nodeValue ?? ''}`;
      }
      this.ownTexts.set(el, (text = text.replace(/\s+/g, ' ').trim()));
    }
    return text;
  }

  path(el: Element): string[] {
    const known = this.paths.get(el);
    if (known) return known;
    const parent = el.parentElement;
    const above = parent && parent.localName !== 'body' && parent.localName !== 'html' ? this.path(parent) : [];
    const path = [...above, `${el.localName}[${this.nthOf(el)}]`];
    this.paths.set(el, path);
    return path;
  }

  private nthOf(el: Element): number {
    if (!this.nth.has(el)) {
      const counts = new Map<string, number>();
      for (const sibling of Array.from(el.parentElement?.children ?? [el])) {
        const n = (counts.get(sibling.localName) ?? 0) + 1;
        counts.set(sibling.localName, n);
        this.nth.set(sibling, n);
      }
    }
    return this.nth.get(el) ?? 1;
  }
}

function valueOf(el: Element, attr: string | undefined, url: string | undefined): string {
  if (!attr) return textOf(el);
  const value = (el.getAttribute(attr) ?? '').trim();
  if (!url || !['href', 'src', 'action', 'poster', 'data-src', 'cite'].includes(attr.toLowerCase())) return value;
  try {
    return new URL(value, url).href;
  } catch {
    return value;
  }
}

function similarValue(now: string, old: string): boolean {
  const shape = (v: string) => maskVolatile(v).replace(/\d/g, '0');
  return shape(now) === shape(old) || stringSimilarity(now, old) >= SIMILAR_VALUE;
}

// --- naming the element ----------------------------------------------------------------------

/** One level of a locator: the element `depth` levels above the target, and what pins it down. */
interface Level {
  depth: number;
  tag: boolean;
  id: boolean;
  attributes: string[];
  classes: string[];
  nth: boolean;
}
/** Outermost level first; the last level is the target. */
type Locator = Level[];

/** Robula+'s refinements of a locator's outermost level, or a new level above it. */
function refinements(locator: Locator, target: Element): Locator[] {
  const [top, ...rest] = locator as [Level, ...Level[]];
  const el = ancestor(target, top.depth);
  if (!el) return [];
  const out: Locator[] = [];
  const withTop = (level: Level): Locator => [level, ...rest];
  if (!top.tag) out.push(withTop({ ...top, tag: true }));
  const id = el.getAttribute('id');
  if (!top.id && id && isStableId(id)) out.push(withTop({ ...top, id: true }));
  const specifiers = top.attributes.length + top.classes.length;
  if (specifiers < 2) {
    for (const name of selectorAttributes(el)) {
      if (!top.attributes.includes(name)) out.push(withTop({ ...top, attributes: [...top.attributes, name] }));
    }
    for (const name of stableClasses(el)) {
      if (!top.classes.includes(name)) out.push(withTop({ ...top, classes: [...top.classes, name] }));
    }
  }
  if (top.tag && !top.nth) out.push(withTop({ ...top, nth: true }));
  const parent = el.parentElement;
  if (locator.length < MAX_LEVELS && parent && parent.localName !== 'html') {
    out.push([{ depth: top.depth + 1, tag: false, id: false, attributes: [], classes: [], nth: false }, ...locator]);
  }
  return out;
}

function render(locator: Locator, target: Element): string {
  return locator
    .map((level) => {
      const el = ancestor(target, level.depth)!;
      let css = level.tag ? el.localName : '';
      if (level.id) css += `#${cssIdent(el.getAttribute('id')!)}`;
      for (const name of level.attributes) css += `[${name}=${cssString(el.getAttribute(name)!)}]`;
      for (const name of level.classes) css += `.${cssIdent(name)}`;
      if (level.nth) css += `:nth-of-type(${nthOfType(el)})`;
      return css || '*';
    })
    .join(' > ');
}

function selectorAttributes(el: Element): string[] {
  const names: string[] = [];
  const usable = (name: string) => {
    const value = el.getAttribute(name);
    if (value === null || !value.trim() || value.length > MAX_SELECTOR_ATTRIBUTE_CHARS) return false;
    if (VOLATILE_ATTRIBUTE.test(name)) return false;
    return !((name === 'href' || name === 'src') && stableUrl(value) !== value);
  };
  for (const name of SELECTOR_ATTRIBUTES) if (usable(name)) names.push(name);
  for (const { name } of Array.from(el.attributes)) {
    if (name.startsWith('data-') && !names.includes(name) && usable(name)) names.push(name);
  }
  return names;
}

function locatesOnly(doc: Document, css: string, el: Element): boolean {
  try {
    const found = doc.querySelectorAll(css);
    return found.length === 1 && found[0] === el;
  } catch {
    return false;
  }
}

/** The fallback: a child-by-child path from the nearest lasting id or the body; always unique. */
function structuralPath(el: Element): string {
  const parts: string[] = [];
  for (let node: Element | null = el; node && node.localName !== 'html'; node = node.parentElement) {
    const id = node.getAttribute('id');
    if (id && isStableId(id) && node.ownerDocument.querySelectorAll(`#${cssIdent(id)}`).length === 1) {
      parts.unshift(`#${cssIdent(id)}`);
      return parts.join(' > ');
    }
    parts.unshift(node.localName === 'body' ? 'body' : `${node.localName}:nth-of-type(${nthOfType(node)})`);
    if (node.localName === 'body') break;
  }
  return parts.join(' > ');
}

const ancestor = (el: Element, depth: number): Element | null => {
  let node: Element | null = el;
  for (let i = 0; i < depth && node; i++) node = node.parentElement;
  return node;
};

function nthOfType(el: Element): number {
  let n = 1;
  for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === el.localName) n++;
  return n;
}

// --- similarity measures -------------------------------------------------------------------------

/** 1 - Levenshtein distance / longer length, for short strings; word overlap for long ones. */
function stringSimilarity(p: string, q: string): number {
  if (p === q) return 1;
  if (!p || !q) return 0;
  if (p.length > 200 || q.length > 200) return wordSimilarity(p, q);
  return 1 - levenshtein(p, q) / Math.max(p.length, q.length);
}

function wordSimilarity(p: string, q: string): number {
  return jaccard(p.toLowerCase().split(/\s+/).filter(Boolean), q.toLowerCase().split(/\s+/).filter(Boolean));
}

function jaccard(p: readonly string[], q: readonly string[]): number {
  const a = new Set(p);
  const b = new Set(q);
  if (!a.size && !b.size) return 1;
  let common = 0;
  for (const item of a) if (b.has(item)) common++;
  return common / (a.size + b.size - common);
}

function sequenceSimilarity(p: readonly string[], q: readonly string[]): number {
  if (!p.length && !q.length) return 1;
  return 1 - levenshtein(p, q) / Math.max(p.length, q.length);
}

function levenshtein<T>(p: ArrayLike<T>, q: ArrayLike<T>): number {
  let row = new Int32Array(q.length + 1);
  let next = new Int32Array(q.length + 1);
  for (let j = 0; j <= q.length; j++) row[j] = j;
  for (let i = 1; i <= p.length; i++) {
    next[0] = i;
    for (let j = 1; j <= q.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (p[i - 1] === q[j - 1] ? 0 : 1));
    }
    [row, next] = [next, row];
  }
  return row[q.length]!;
}

const round = (n: number): number => Math.round(n * 1000) / 1000;

const none = (reason: string): RepointResult => ({ repointed: null, best: null, reason });
