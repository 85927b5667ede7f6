import { BOILERPLATE_ROLES, NAME_BOILERPLATE, NAME_COMMENTS, NAME_CONTENT, NameMatcher } from './patterns.js';
import { isSpace } from './text.js';

// Finds the main content of a cleaned page.
//
// The page is read as a tree of blocks (p, li, td, div with text…). Each block gets a value:
// its plain text counts for it, its link text and its shortness against it. An element's
// score is the sum over its subtree, except that furniture (nav, footer, sidebars, sharing…)
// counts as negative whatever it holds. The main content is the element with the best score:
// a tree version of the maximum-sum segment, so a thread of forty posts or a listing of items
// wins over any single post, while a wrapper that adds a menu and a footer loses to the
// element inside it. The winner is then pruned of the furniture and link lists it contains.

export interface MainContent {
  root: Element;
  /** Elements inside root to leave out when rendering. */
  pruned: Set<Element>;
}

/**
 * Tuning knobs, kept together so the benchmark runner can vary them. On WCXB dev (see
 * EXTRACTION.md) the overall F1 is flat around these values: the structure does the work.
 */
export const TUNING = {
  /** Cost per character of link text in short anchors (menus, tags). */
  linkPenalty: 1.0,
  /** Per character of long anchors (titles of listed items): negative, so they count for. */
  longLinkPenalty: -0.3,
  /** Average anchor text length from which an anchor reads as a title. */
  longLinkChars: 30,
  /** Cost of a short block without punctuation ("Share", "Menu", "12 comments"). */
  blockCost: 6,
  shortBlockChars: 20,
  /** Furniture counts as minus this share of its text. */
  boilerFactor: 0.6,
  /** …unless it holds at least this share of the page (a wrapper class that says "sidebar"). */
  boilerMaxShare: 0.5,
  /** Comment sections keep this share of their score. */
  commentsFactor: 0.2,
  /** Score below which a winner outside comments gives way to one inside (a page of comments). */
  minContent: 250,
  /** Winner's share of its <main>/<article> below which that element is taken instead. */
  fallbackShare: 0.25,
  contentBonus: 1.15,
  semanticBonus: 1.25,
  /** Levels the winner may climb to take in sibling sections with content of their own. */
  siblingLevels: 1,
  /** A sibling section joins when its score reaches this share of the winner's. */
  siblingMinShare: 0.2,
  /** Link density from which a negative block inside the winner is pruned as a link list. */
  pruneLinkDensity: 0.55,
  /** Winner's link density from which its link lists are its content and stay. */
  linkPageDensity: 0.35,
};

const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'center',
  'dd',
  'details',
  'dialog',
  'dir',
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
  'hgroup',
  'hr',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
  'br',
  'caption',
]);
// Parts of a list or a line: pruned with their list, never on their own.
const LIST_PARTS = new Set(['li', 'td', 'th', 'tr', 'dd', 'dt', 'p', 'a', 'span', 'strong', 'em', 'b', 'i', 'code']);
const HEADING = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const FURNITURE_TAGS = new Set(['nav', 'aside', 'footer', 'form', 'header', 'menu']);

const enum Flag {
  Boiler = 1,
  Content = 2,
  Semantic = 4,
  Comments = 8,
  Heading = 16,
  Pre = 32,
}

interface Stat {
  el: Element;
  parent: number;
  depth: number;
  /** Characters of text in the subtree. */
  text: number;
  /** Characters of link text in the subtree. */
  link: number;
  /** Value of this element's own inline text, when it is a block. */
  own: number;
  flags: number;
  score: number;
  /** Some text in the subtree that is not whitespace (textContent.trim() !== ''). */
  hasText: boolean;
}

interface Inline {
  text: number;
  link: number;
  anchors: number;
  punct: number;
}

export function findMainContent(body: Element, names = new NameMatcher()): MainContent {
  const stats: Stat[] = [];
  const index = new Map<Element, number>();
  measure(body, -1, 0, false, null, stats, index, names);
  const pageText = stats[0]?.text ?? 0;
  score(stats, pageText);
  const best = widenToSemantic(stats, pickBest(stats));
  if (best === -1) return { root: body, pruned: prune(body, stats, index) };
  const { root, dropped } = gatherSiblings(stats, index, best);
  const pruned = prune(root, stats, index);
  for (const el of dropped) pruned.add(el);
  return { root, pruned };
}

/**
 * Walks the subtree once, filling stats in pre-order (a parent before its children). `acc`
 * gathers the inline text of the nearest enclosing block: an inline element adds its text
 * straight to it, a block starts its own.
 */
function measure(
  el: Element,
  parent: number,
  depth: number,
  inLink: boolean,
  acc: Inline | null,
  stats: Stat[],
  index: Map<Element, number>,
  names: NameMatcher,
): Stat {
  const tag = el.localName;
  const isBlock = BLOCK.has(tag);
  const linkHere = inLink || tag === 'a';
  const me = stats.length;
  const stat: Stat = {
    el,
    parent,
    depth,
    text: 0,
    link: 0,
    own: 0,
    flags: flagsOf(el, tag, names),
    score: 0,
    hasText: false,
  };
  stats.push(stat);
  index.set(el, me);
  const own: Inline = isBlock || !acc ? { text: 0, link: 0, anchors: 0, punct: 0 } : acc;
  if (tag === 'a') own.anchors++;
  for (let n = el.firstChild; n; n = n.nextSibling) {
    const type = n.nodeType;
    if (type === 3) {
      const data = (n as Text).data;
      const len = readText(data);
      if (textSeen & NOT_BLANK) stat.hasText = true;
      if (len === 0) continue;
      own.text += len;
      stat.text += len;
      if (linkHere) {
        own.link += len;
        stat.link += len;
      } else if (textSeen & PUNCTUATED) own.punct++;
    } else if (type === 1) {
      if (depth > MAX_DEPTH) {
        // Pathologically deep markup (unclosed inline tags): count the rest as plain text
        // rather than recurse until the stack runs out.
        const data = n.textContent ?? '';
        if (!stat.hasText && NOT_BLANK_RE.test(data)) stat.hasText = true;
        const len = visibleLength(data);
        own.text += len;
        stat.text += len;
        continue;
      }
      const child = measure(n as Element, me, depth + 1, linkHere, own, stats, index, names);
      stat.text += child.text;
      stat.link += child.link;
      if (child.hasText) stat.hasText = true;
    } else if (type === 4 && !stat.hasText && NOT_BLANK_RE.test((n as CDATASection).data)) {
      stat.hasText = true; // textContent counts CDATA sections
    }
  }
  if (isBlock) stat.own = blockValue(own, stat.flags);
  return stat;
}

const MAX_DEPTH = 1500;
const NOT_BLANK_RE = /\S/;

/** What readText found besides the length: bits of NOT_BLANK (\S) and PUNCTUATED. */
let textSeen = 0;
const NOT_BLANK = 1;
const PUNCTUATED = 2;

/**
 * A text's visible length (characters other than spaces, controls and no-break spaces), in one
 * pass that also notes in textSeen whether it holds anything but whitespace and whether it
 * holds sentence punctuation (. ! ? ; , : and their CJK forms).
 */
function readText(s: string): number {
  let n = 0;
  let seen = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 32 && c !== 160) {
      n++;
      if (c < 0x1680) {
        seen |= NOT_BLANK;
        if (c === 46 || c === 44 || c === 33 || c === 63 || c === 58 || c === 59) seen |= PUNCTUATED;
      } else {
        if (!isSpace(c)) seen |= NOT_BLANK;
        if (c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0x3001) seen |= PUNCTUATED;
      }
    } else if (!isSpace(c)) seen |= NOT_BLANK;
  }
  textSeen = seen;
  return n;
}

function flagsOf(el: Element, tag: string, matcher: NameMatcher): number {
  let flags = 0;
  if (HEADING.has(tag)) flags |= Flag.Heading;
  if (tag === 'pre') flags |= Flag.Pre;
  if (!el.hasAttributes()) {
    if (FURNITURE_TAGS.has(tag)) flags |= Flag.Boiler;
    if (tag === 'article' || tag === 'main') flags = (flags | Flag.Semantic) & ~Flag.Boiler;
    return flags;
  }
  const names = matcher.of(el, NAME_BOILERPLATE | NAME_COMMENTS | NAME_CONTENT);
  const role = el.getAttribute('role');
  if (FURNITURE_TAGS.has(tag) || (role !== null && BOILERPLATE_ROLES.has(role)) || names & NAME_BOILERPLATE) {
    flags |= Flag.Boiler;
  }
  if (names & NAME_COMMENTS) flags |= Flag.Comments;
  if (names & NAME_CONTENT) flags |= Flag.Content;
  if (tag === 'article' || tag === 'main' || role === 'main' || el.getAttribute('itemprop') === 'articleBody') {
    flags = (flags | Flag.Semantic) & ~Flag.Boiler;
  }
  return flags;
}

const visibleLength = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 32 && c !== 160) n++;
  }
  return n;
};

/** What a block's own text is worth: plain sentences for it, links and fragments against it. */
function blockValue(own: Inline, flags: number): number {
  if (own.text === 0) return 0;
  const plain = own.text - own.link;
  // A block inside a link (a teaser card) holds no <a> of its own: it is one long anchor.
  const avgAnchor = own.link / Math.max(1, own.anchors);
  const penalty = avgAnchor >= TUNING.longLinkChars ? TUNING.longLinkPenalty : TUNING.linkPenalty;
  let value = plain - penalty * own.link;
  if (flags & (Flag.Heading | Flag.Pre)) return value;
  if (own.text < TUNING.shortBlockChars && own.punct === 0) value -= TUNING.blockCost;
  return value;
}

function score(stats: Stat[], pageText: number): void {
  // Children come after their parent in pre-order, so a backward sweep sees them first.
  const acc = new Float64Array(stats.length);
  for (let i = stats.length - 1; i >= 0; i--) {
    const s = stats[i]!;
    let v = acc[i]! + s.own;
    if (s.flags & Flag.Boiler && s.text < TUNING.boilerMaxShare * pageText) {
      v = Math.min(v, 0) - TUNING.boilerFactor * s.text;
    }
    if (s.flags & Flag.Comments && v > 0) v *= TUNING.commentsFactor;
    s.score = v;
    if (s.parent >= 0) acc[s.parent]! += v;
  }
}

function pickBest(stats: Stat[]): number {
  // A comment section must not win over the article it comments on: candidates inside one
  // compete only when nothing outside has real content (a page that is a thread of comments).
  const inComments = new Uint8Array(stats.length);
  for (let i = 0; i < stats.length; i++) {
    const s = stats[i]!;
    inComments[i] = s.flags & Flag.Comments || (s.parent >= 0 && inComments[s.parent]) ? 1 : 0;
  }
  const outside = bestAmong(stats, (i) => !inComments[i]);
  if (outside !== -1 && stats[outside]!.score >= TUNING.minContent) return outside;
  return bestAmong(stats, () => true);
}

function bestAmong(stats: Stat[], allowed: (i: number) => boolean): number {
  // Backwards, so that on a tie the inner element (later in pre-order) wins over its wrapper.
  let best = -1;
  let bestScore = 0;
  for (let i = stats.length - 1; i >= 0; i--) {
    const s = stats[i]!;
    if (s.score <= 0 || !allowed(i)) continue;
    let v = s.score;
    if (s.flags & Flag.Semantic) v *= TUNING.semanticBonus;
    else if (s.flags & Flag.Content) v *= TUNING.contentBonus;
    if (v > bestScore) {
      bestScore = v;
      best = i;
    }
  }
  return best;
}

/**
 * A link-heavy page (a listing, a wiki index) can leave only a heading or an intro with a
 * positive score. When the winner holds a small share of the page's <main>/<article>
 * (or role=main) that contains it, that semantic element is the better answer.
 */
function widenToSemantic(stats: Stat[], best: number): number {
  const b = stats[best];
  if (!b) return best;
  for (let p = b.parent; p >= 0; p = stats[p]!.parent) {
    const s = stats[p]!;
    if (s.flags & Flag.Semantic) {
      return b.text < TUNING.fallbackShare * s.text && s.score > -s.text * 0.3 ? p : best;
    }
  }
  return best;
}

/**
 * Landing, product and collection pages spread their content over sibling sections, and the
 * winner is then one of them. Climb to the parent while its other children hold real content
 * of their own (a share of the winner's score), leaving out the siblings that do not.
 */
function gatherSiblings(
  stats: Stat[],
  index: Map<Element, number>,
  best: number,
): { root: Element; dropped: Element[] } {
  let current = best;
  let dropped: Element[] = [];
  for (let step = 0; step < TUNING.siblingLevels; step++) {
    const b = stats[current]!;
    const parent = stats[b.parent];
    if (!parent || parent.flags & Flag.Boiler) break;
    let gained = 0;
    const out: Element[] = [];
    for (let c = parent.el.firstElementChild; c; c = c.nextElementSibling) {
      const s = stats[index.get(c) ?? -1];
      if (!s || s === b) continue;
      if (s.score >= TUNING.siblingMinShare * b.score && !(s.flags & (Flag.Boiler | Flag.Comments))) gained += s.score;
      else if (s.text > 0 && !(s.flags & Flag.Heading && s.score > 0)) out.push(c);
    }
    if (gained < TUNING.siblingMinShare * b.score) break;
    current = b.parent;
    dropped = [...dropped, ...out];
  }
  return { root: stats[current]!.el, dropped };
}

/** Furniture and link lists inside the winner; comment sections unless they are the page. */
function prune(root: Element, stats: Stat[], index: Map<Element, number>): Set<Element> {
  const pruned = new Set<Element>();
  const rootStat = stats[index.get(root) ?? -1];
  if (!rootStat) return pruned;
  const visit = (el: Element): void => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      const s = stats[index.get(c) ?? -1];
      if (!s) continue;
      if (shouldPrune(s, rootStat, stats, index)) {
        pruned.add(c);
        continue;
      }
      visit(c);
    }
  };
  visit(root);
  return pruned;
}

function shouldPrune(s: Stat, root: Stat, stats: Stat[], index: Map<Element, number>): boolean {
  if (s.text === 0) return false; // images, rules and breaks stay
  const share = s.text / Math.max(1, root.text);
  if (s.flags & Flag.Boiler && share < TUNING.boilerMaxShare) return true;
  if (s.flags & Flag.Comments && share < 0.5 && !(s.flags & Flag.Content)) return true;
  if (s.flags & (Flag.Heading | Flag.Pre)) return false;
  if (share < 0.3 && opensWithAsideHeading(s.el, stats, index)) return true;
  // Link lists go as a whole (a block of "related" links); single items and cells of a list
  // that belongs to the content (a docs index, a table of links) stay.
  if (LIST_PARTS.has(s.el.localName) || share > 0.3) return false;
  if (LIST_PARTS.has(s.el.parentElement?.localName ?? '')) return false; // a nested list is part of its item
  // In a page that is mostly links (a wiki index, a link collection) the lists are the content.
  if (root.link / Math.max(1, root.text) > TUNING.linkPageDensity) return false;
  return s.score < 0 && s.link / s.text > TUNING.pruneLinkDensity;
}

// Sections a page appends to its content, recognised by the heading they open with.
const ASIDE_HEADING =
  /^\s*(?:related\b|trending|popular|recommended|more (?:from|stories|articles|news|in|like this|to (?:read|explore))|you (?:may|might) (?:also )?(?:like|enjoy)|read (?:more|next|also)|also read|latest (?:news|posts|stories|articles)|further reading|share (?:this|on)|about the author|leave a (?:reply|comment)|\d*\s*comments?\b|(?:sign up|subscribe) (?:for|to))/i;

function opensWithAsideHeading(el: Element, stats: Stat[], index: Map<Element, number>): boolean {
  const first = firstHeading(el, 3, stats, index);
  return !!first && ASIDE_HEADING.test(first.textContent ?? '');
}

/** The first heading among the first few elements at the top of el (el itself included). */
function firstHeading(el: Element, depth: number, stats: Stat[], index: Map<Element, number>): Element | null {
  if (HEADING.has(el.localName)) return el;
  if (depth === 0) return null;
  let seen = 0;
  for (let c = el.firstElementChild; c && seen < 2; c = c.nextElementSibling, seen++) {
    const h = firstHeading(c, depth - 1, stats, index);
    if (h) return h;
    // Text before any heading: not a titled section (measured: no textContent walk here).
    const cs = stats[index.get(c) ?? -1];
    if (cs ? cs.hasText : (c.textContent ?? '').trim()) return null;
  }
  return null;
}
