import {
  BOILERPLATE_ROLES,
  NAME_BOILERPLATE,
  NAME_COMMENTS,
  NAME_CONTENT,
  NAME_DESCRIPTION,
  NAME_FURNITURE_ALWAYS,
  NAME_LABEL,
  NAME_OTHER_PAGES,
  NAME_PURCHASE,
  NAME_REVIEWS,
  NameMatcher,
  POSTER_BOX,
  POSTER_NAME,
} from './patterns.js';
import { blockLogit, type BlockModel } from './block-model.js';
import { firstChildOf, judgedAttributes, nextSiblingOf } from './linked-nodes.js';
import { BLOCK_MODEL } from './block-model.weights.js';
import { nameKey } from './declared-content.js';
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
  /** Null when the page's text is all site furniture (inSiteFurniture): it has no main content. */
  root: Element | null;
  /** Elements inside root to leave out when rendering. */
  pruned: Set<Element>;
  /**
   * Text nodes that open a word right after another element's word with no space between
   * ("Big Agnes" + "Anthracite 20 Sleeping Bag" in two spans the page's CSS lays out apart):
   * a space is put before them when rendering.
   */
  glued: Text[];
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
  /** An <aside> or <nav> at least this share links is a menu however much of the page it holds. */
  menuLinkDensity: 0.5,
  /** Furniture by class or id alone from this many characters… */
  boilerNameMaxChars: 1500,
  /** …and below this link density is not furniture. */
  boilerNameLinkDensity: 0.3,
  /** Screen-reader labels score nothing (rather than as furniture). */
  labels: 1,
  /** On a product's page, its reviews inside the winner are left out below this share of it. */
  reviewsMaxShare: 0.9,
  /** Comment sections keep this share of their score. */
  commentsFactor: 0.2,
  /**
   * Characters of the winner outside its comment sections from which they are left out even
   * when longer than the rest (sixty comments under a post; a thread's opening post is shorter).
   */
  articleBesideComments: 2000,
  /** A comment section that opens with its heading is left out below this share of the winner. */
  titledCommentsMaxShare: 0.9,
  /** Score below which a winner outside comments gives way to one inside (a page of comments). */
  minContent: 250,
  /** Prose (text outside links) of a post that comments won over, from which it is taken instead. */
  commentedPostProse: 500,
  /** Link text share above which such a post is a list of links, not prose. */
  commentedPostLinkShare: 0.5,
  /** Winner's share of its <main>/<article> below which that element is taken instead. */
  fallbackShare: 0.25,
  contentBonus: 1.15,
  semanticBonus: 1.25,
  /** Levels the winner may climb to take in sibling sections with content of their own. */
  siblingLevels: 1,
  /** A sibling section joins when its score reaches this share of the winner's. */
  siblingMinShare: 0.2,
  /** The longest name a post's user box shows for its poster. */
  posterNameChars: 60,
  /** The most text of a poster's user cell (name, rank, join date, counts) that keeps its name. */
  posterCellChars: 300,
  /** Winner's share of the page's text below which the page is read again as a listing. */
  listingWinnerShare: 0.3,
  /** Share of a small winner's score from which an element around it is taken (a landing page). */
  landingMinShare: 0.2,
  /**
   * Winner's share of the page's text below which the elements around it are looked at
   * (`landingSections`); on a page that declares itself an article or when the winner is or
   * sits in an `<article>`, `listingWinnerShare`.
   */
  landingWinnerShare: 0.5,
  /** A listing replaces the winner when it holds this many times its text. */
  listingGain: 3,
  /** Siblings of one shape from which they read as the items of a listing. */
  repeatMin: 3,
  /** …when they hold this many characters each on average. */
  repeatItemChars: 30,
  /** Value per character of link text in a listing's cards (a card that is one link). */
  itemLinkValue: 1,
  /**
   * Share of an element's text from which the grid it wraps makes it the listing too, when the
   * grid holds `listingWinnerShare` of the page.
   */
  holderShare: 0.9,
  /** Text pieces per item from which a listing's items are cards (a menu's items hold one). */
  cardPieces: 2,
  /** Cost per character of link text when reading the page as a listing. */
  listingLinkPenalty: 0,
  /** Characters from which a block repeated word for word inside the winner is kept once. */
  repeatedBlockChars: 80,
  /** …and from which one is when the copy is inside a quote (a reply quoting an earlier post). */
  repeatedShortChars: 40,
  /** …and from which one is when the copy follows it with no text between (a small screen's copy). */
  adjacentCopyChars: 20,
  /** Extra weight, per character, of the block showing the page's declared description. */
  declaredWeight: 1,
  /** Characters from which a product page's description, inside the winner, is the content. */
  descriptionMinChars: 200,
  /** …and from this share of the winner's text (a one-line summary is not the description). */
  descriptionMinShare: 0.25,
  /** Characters from which an element repeating the text it touches is a copy. */
  sideCopyChars: 4,
  sideCopyMaxChars: 200,
  /** Share of link text above which what surrounds the description is not its specifications. */
  besideDescriptionLinks: 0.3,
  /** A product page's purchase widget inside the winner is left out below this share of it. */
  purchaseMaxShare: 0.5,
  /** Characters up to which an item of a repeated structure around a widget is a card. */
  purchaseCardChars: 600,
  /** Characters from which a link repeated on its own (same address and text) is kept once. */
  repeatedLinkChars: 8,
  /** …when the smallest element holding both copies has at most this many characters (a card). */
  repeatedLinkCard: 600,
  /** Link density from which a negative block inside the winner is pruned as a link list. */
  pruneLinkDensity: 0.55,
  /**
   * Teasers of other stories: at most this share of the winner, after an element that holds
   * this share of it with under this link density (the story).
   */
  storiesMaxShare: 0.3,
  storiesAfterShare: 0.5,
  storiesLinkDensity: 0.3,
  /** …or at most this share when their excerpts are cut off with an ellipsis (`excerptsCut`). */
  cutStoriesMaxShare: 0.7,
  /**
   * A stream of teasers beside a story ("latest posts"): an element whose text is this share
   * teasers does not join the story, and the story (a prose element, its score at least
   * `storyMinScore` of the winner's and `storyMinChars` long) is taken out of a winner that is
   * otherwise such a stream.
   */
  streamMinShare: 0.6,
  storyMinScore: 0.3,
  storyMinChars: 1000,
  /** Characters up to which a label and a link ("Also read: …") is a line sending readers on. */
  recirculationChars: 300,
  /** Mean characters of a grid's cards from which they are looked at as teasers. */
  teaserChars: 25,
  /** Characters beside its form from which an element is not a sign-up box. */
  formBoxChars: 1000,
  /** Characters from which an element around a link to an author's page is not an author box. */
  authorBoxChars: 1000,
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
/** Empty blocks that markdown writes as a line break or a rule: no space is needed after them. */
const BREAKS = new Set(['br', 'hr']);
// Parts of a list or a line: pruned with their list, never on their own.
const LIST_PARTS = new Set(['li', 'td', 'th', 'tr', 'dd', 'dt', 'p', 'a', 'span', 'strong', 'em', 'b', 'i', 'code']);
const REPEATABLE = new Set(['li', 'td', 'th', 'tr', 'dd', 'dt', 'code']);
const HEADING = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const FURNITURE_TAGS = new Set(['nav', 'aside', 'footer', 'form', 'header', 'menu']);

const enum Flag {
  Boiler = 1,
  Content = 2,
  Semantic = 4,
  Comments = 8,
  Heading = 16,
  Pre = 32,
  /** A label for screen readers: scores nothing, is pruned. */
  Label = 64,
  /** Furniture by its class or id only (not by tag or role). */
  BoilerName = 128,
  /** A product's reviews (also flagged Comments): left out unless they are the whole winner. */
  Reviews = 256,
  /** A <header> inside an <article>: the title and byline of a listed story on a listing. */
  ArticleHeader = 512,
  /** Named or marked up as a description (a product's, on a product page). */
  Description = 1024,
  /** Named as a purchase widget (price, buy box, variant picker), read on product pages. */
  Purchase = 2048,
  /** Named as links to other pages ("related", "recirc"): furniture, but a listing's card may be. */
  OtherPages = 4096,
  /** A <form> with no field to fill in (PageScan.fieldForms): furniture only when mostly links. */
  FormShown = 8192,
  /** Marked up as an author (microdata's `itemprop="author"`): a byline's name, or an author box. */
  Author = 16384,
}

/**
 * What the walk measured, per element in pre-order (a parent before its children), one typed
 * array per figure rather than an object per element: a page has thousands of elements.
 */
class Stats {
  n = 0;
  el: Element[] = [];
  parent = new Int32Array(INITIAL);
  depth = new Int32Array(INITIAL);
  /**
   * Index just past the element's subtree. Its children, in document order:
   * for (let c = i + 1; c < end[i]; c = end[c]).
   */
  end = new Int32Array(INITIAL);
  /** Characters of text in the subtree. */
  text = new Float64Array(INITIAL);
  /** Characters of link text in the subtree. */
  link = new Float64Array(INITIAL);
  /** Value of this element's own inline text, when it is a block. */
  own = new Float64Array(INITIAL);
  /** The same with link text counted as text (how a listing's own items read). */
  ownListing = new Float64Array(INITIAL);
  /** The block paid the short-fragment cost (a few words without punctuation). */
  frag = new Uint8Array(INITIAL);
  /** Characters of link text in the block's own inline text. */
  ownLink = new Float64Array(INITIAL);
  /** Characters of the block's own inline text, its anchors and its punctuated text nodes. */
  ownText = new Float64Array(INITIAL);
  ownAnchors = new Float64Array(INITIAL);
  ownPuncts = new Float64Array(INITIAL);
  flags = new Int32Array(INITIAL);
  score = new Float64Array(INITIAL);
  /** Some text in the subtree that is not whitespace (textContent.trim() !== ''). */
  hasText = new Uint8Array(INITIAL);
  /** Scores are those of the listing reading. */
  listing = false;
  /** The winner was found by the listing reading. */
  listingChosen = false;
  /** The winner is a post that its comments outscored (`commentedPost`). */
  postOverComments = false;
  /** The most text of a child named or tagged as content, per element (`contentChild`). */
  contentChildText: Float64Array | null = null;
  /** The page declares itself one article (`Declared.article`). */
  article = false;
  /** No post stands outside the comments: the page is a thread, scored without their factor. */
  thread = false;
  /** The values the scores were last summed from (`score`), to sum them again. */
  scoredFrom: Float64Array | null = null;
  /** Characters of the winner outside its comment sections. */
  besideComments = 0;
  /** Each element's shape (`shapeOf`), once asked. */
  shapes: (string | undefined)[] = [];
  /** Shapes of the winner's post body outside its comment sections (`postBodyShapes`), once asked. */
  postBodies: Set<string> | null = null;
  /** Characters of each element's text in teasers of other stories (`teaserText`), once asked. */
  teasers: Float64Array | null = null;
  /** The element inside which teasers are counted (0 elsewhere): the winner's parent. */
  teaserScope = 0;
  /** The cards of the page's repeated items and their descendants (listing reading). */
  card = new Set<number>();
  /** Elements whose children are cards of the page's repeated items (listing reading). */
  cardHolder = new Set<number>();
  /** The elements around a block showing the page's declared description (never pruned). */
  anchored = new Set<number>();
  /** The page declares itself a product page (purchase widgets are flagged). */
  product = false;
  /** A product page's purchase widgets inside the winner (pruned). */
  purchase = new Set<number>();
  /** The page's `<h1>` names the product its JSON-LD declares: one product's page. */
  oneProduct = false;
  /**
   * Cards of other products inside the winner (pruned): a carousel of related items; and what a
   * template appends after the story: teasers of other stories (and their grid's heading),
   * sign-up and author boxes.
   */
  otherCards = new Set<number>();
  /** Links pruned as copies of an earlier one (`repeatedLinks`), each with that earlier one. */
  linkCopies: [copy: number, first: number][] = [];
  /** Text nodes with visible text in the subtree. */
  pieces = new Int32Array(INITIAL);
  /**
   * The words of the block's own text (all its text, for a leaf block: isLeafBlock), as readText
   * counted them, four figures each: words, digits, capitalised words, the last visible character.
   */
  ownWords = new Int32Array(WORD_FIGURES * INITIAL);
  /** Text nodes glued to the word before them across inline elements (MainContent.glued). */
  glued: Text[] = [];

  add(el: Element, parent: number, depth: number, flags: number): number {
    const i = this.n++;
    if (i === this.parent.length) this.grow();
    this.el.push(el);
    this.parent[i] = parent;
    this.depth[i] = depth;
    this.flags[i] = flags;
    return i;
  }

  private grow(): void {
    const size = this.parent.length * 2;
    const grown = <T extends Int32Array | Float64Array | Uint8Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(size);
      b.set(a);
      return b;
    };
    this.parent = grown(this.parent);
    this.depth = grown(this.depth);
    this.end = grown(this.end);
    this.text = grown(this.text);
    this.link = grown(this.link);
    this.own = grown(this.own);
    this.ownListing = grown(this.ownListing);
    this.frag = grown(this.frag);
    this.ownLink = grown(this.ownLink);
    this.ownText = grown(this.ownText);
    this.ownAnchors = grown(this.ownAnchors);
    this.ownPuncts = grown(this.ownPuncts);
    this.flags = grown(this.flags);
    this.score = grown(this.score);
    this.hasText = grown(this.hasText);
    this.pieces = grown(this.pieces);
    const ownWords = new Int32Array(WORD_FIGURES * size);
    ownWords.set(this.ownWords);
    this.ownWords = ownWords;
  }
}

const INITIAL = 1024;
const WORD_FIGURES = 4;

/**
 * The inline text gathered for the blocks being measured, one slot per open block (a stack:
 * blocks nest), SLOT figures each: text, link text, anchors, text nodes with punctuation, and
 * the words as readText counts them (words, digits, capitalised words, the last visible character).
 */
const SLOT = 8;
let inline = new Float64Array(SLOT * 64);
const TEXT = 0;
const LINK = 1;
const ANCHORS = 2;
const PUNCTS = 3;
const WORDS = 4;
const DIGITS = 5;
const UPPER = 6;
const LAST = 7;

/**
 * @param declared openings of the text the page declares as its content (lower-cased, blanks
 *   collapsed: `declaredOpenings`); the block that shows one is content, and weighs more.
 */
export function findMainContent(
  body: Element,
  names = new NameMatcher(),
  declared: string[] = [],
  hints: { product?: boolean; productNames?: string[]; article?: boolean; fieldForms?: ReadonlySet<Element> } = {},
): MainContent {
  // Held for this page's walk only: a set kept after it would keep the page's tree alive.
  fieldForms = hints.fieldForms ?? null;
  try {
    return findIn(body, names, declared, hints);
  } finally {
    fieldForms = null;
  }
}

/**
 * The text nodes of a subtree glued to the word before them across inline elements, as the
 * measuring walk notes them (MainContent.glued): for a page rendered whole, where no main
 * content is looked for.
 */
export function gluedTexts(body: Element, names = new NameMatcher()): Text[] {
  return measured(body, names, false).glued;
}

/** The measuring walk over a page's body, from a fresh start. */
function measured(body: Element, names: NameMatcher, product: boolean): Stats {
  const stats = new Stats();
  stats.product = product;
  lastChar = 0;
  verbatim = 0;
  measure(body, -1, 0, false, -1, 0, stats, names);
  return stats;
}

function findIn(
  body: Element,
  names: NameMatcher,
  declared: string[],
  hints: { product?: boolean; productNames?: string[]; article?: boolean },
): MainContent {
  const stats = measured(body, names, !!hints.product);
  stats.article = !!hints.article;
  if (stats.product && hints.productNames?.length) stats.oneProduct = titledAsDeclared(stats, hints.productNames);
  const pageText = stats.n ? stats.text[0]! : 0;
  if (declared.length) anchorDeclared(stats, declared);
  score(stats, pageText, stats.own);
  const first = landingSections(
    stats,
    pageText,
    listingFallback(stats, pageText, widenToSemantic(stats, pickBest(stats))),
  );
  // Teasers are asked about inside the winner and beside it (its siblings): counted there only.
  let scope = first;
  for (let up = 0; up < TUNING.siblingLevels && scope >= 0 && stats.parent[scope]! >= 0; up++)
    scope = stats.parent[scope]!;
  stats.teaserScope = scope;
  const best = storyBesideStream(stats, first);
  if (best === -1) return { root: body, pruned: prune(stats.n ? 0 : -1, stats), glued: stats.glued };
  const gathered = gatherSiblings(stats, best);
  const description = hints.product ? productDescription(stats, gathered.root) : -1;
  const { root, dropped } = description >= 0 ? withSectionsAfter(description, gathered.root, stats) : gathered;
  if (inSiteFurniture(root, stats)) return { root: null, pruned: new Set(), glued: [] };
  const pruned = prune(root, stats);
  for (const el of dropped) pruned.add(el);
  if (REFINE.model || REFINE.observe) refine(root, stats, pruned);
  keepOneLinkCopy(root, stats, pruned);
  return { root: stats.el[root]!, pruned, glued: stats.glued };
}

/**
 * The winner sits in the site's furniture: a footer or a navigation, by tag or by role. Furniture
 * scores against itself, so it wins only when nothing else on the page scores: the page as served
 * is its template alone (an application that renders its content with a script, a shop's product
 * page that serves its footer and nothing else). Its footer is not its content, and a main
 * content made of it would also hide from the verdict that the page is an application shell.
 */
function inSiteFurniture(i: number, stats: Stats): boolean {
  for (let a = i; a >= 0; a = stats.parent[a]!) {
    const el = stats.el[a]!;
    const tag = el.localName;
    if (tag === 'footer' || tag === 'nav') return true;
    const role = el.getAttribute('role');
    if (role === 'contentinfo' || role === 'navigation') return true;
  }
  return false;
}

/**
 * Walks the subtree once, filling stats in pre-order. `slot` is the inline-text slot of the
 * nearest enclosing block: an inline element adds its text straight to it, a block opens its
 * own (at `free`, the first slot no open block holds).
 */
function measure(
  el: Element,
  parent: number,
  depth: number,
  inLink: boolean,
  slot: number,
  free: number,
  stats: Stats,
  names: NameMatcher,
): number {
  const tag = el.localName;
  const isBlock = BLOCK.has(tag);
  const linkHere = inLink || tag === 'a';
  const me = stats.add(el, parent, depth, flagsOf(el, tag, names, stats.product));
  let own = slot;
  // A block's words are its own: none runs on into it. Whether one runs on past it is decided by
  // what it holds (a word stops at a space inside it, and runs on over an empty block).
  const opens = isBlock || slot < 0;
  const wordBefore = inWord;
  const charsBefore = charsRead;
  if (opens) {
    own = free++;
    if (SLOT * free > inline.length) {
      const grown = new Float64Array(inline.length * 2);
      grown.set(inline);
      inline = grown;
    }
    inline.fill(0, SLOT * own, SLOT * own + SLOT);
    inWord = false;
  }
  const at = SLOT * own;
  if (tag === 'a') inline[at + ANCHORS]!++;
  const joins = GLUE_INLINE.has(tag);
  const keeps = VERBATIM.has(tag);
  const textBefore = lastChar;
  // A block inside a link (a card's heading) opens a line of its own on the page; the link's
  // markdown is one line, where it would run on from the text before it.
  if (!joins) lastChar = isBlock && inLink && textBefore !== 0 ? -2 : 0;
  if (keeps) verbatim++;
  let text = 0;
  let link = 0;
  let pieces = 0;
  let hasText = false;
  for (let n = firstChildOf(el); n; n = nextSiblingOf(n)) {
    const type = n.nodeType;
    if (type === 3) {
      const data = (n as Text).data;
      const len = readText(data);
      inline[at + WORDS]! += textWords;
      inline[at + DIGITS]! += textDigits;
      inline[at + UPPER]! += textUpper;
      if (textLast) inline[at + LAST] = textLast;
      if (textSeen & NOT_BLANK) hasText = true;
      if (len === 0) {
        if (data.length) lastChar = 0;
        continue;
      }
      const first = data.charCodeAt(0);
      if (!verbatim && (lastChar === -2 ? !isSpace(first) : lastChar === -1 && opensWord(first)))
        stats.glued.push(n as Text);
      const last = data.charCodeAt(data.length - 1);
      lastChar = endsWord(last) ? 1 : isSpace(last) ? 0 : 2;
      pieces++;
      inline[at + TEXT]! += len;
      text += len;
      if (linkHere) {
        inline[at + LINK]! += len;
        link += len;
      } else if (textSeen & PUNCTUATED) inline[at + PUNCTS]!++;
    } else if (type === 1) {
      if (depth > MAX_DEPTH) {
        // Pathologically deep markup (unclosed inline tags): count the rest as plain text
        // rather than recurse until the stack runs out.
        const data = n.textContent ?? '';
        lastChar = 0;
        if (!hasText && NOT_BLANK_RE.test(data)) hasText = true;
        const len = readText(data);
        inline[at + WORDS]! += textWords;
        inline[at + DIGITS]! += textDigits;
        inline[at + UPPER]! += textUpper;
        if (textLast) inline[at + LAST] = textLast;
        inline[at + TEXT]! += len;
        text += len;
        continue;
      }
      const child = measure(n as Element, me, depth + 1, linkHere, own, free, stats, names);
      text += stats.text[child]!;
      link += stats.link[child]!;
      pieces += stats.pieces[child]!;
      if (stats.hasText[child]) hasText = true;
    } else if (type === 4 && !hasText && NOT_BLANK_RE.test((n as CDATASection).data)) {
      hasText = true; // textContent counts CDATA sections
    }
  }
  // Leaving an inline element: the next text opens a new piece (lastChar -1 marks the boundary).
  // So does an empty block between two pieces (a spacer, a swatch): on the page they are apart,
  // in markdown nothing of the block would be left between them.
  if (!joins)
    lastChar = isBlock && ((text === 0 && textBefore !== 0 && !BREAKS.has(tag)) || (inLink && text > 0)) ? -2 : 0;
  else if (lastChar === 1) lastChar = -1;
  if (keeps) verbatim--;
  stats.text[me] = text;
  stats.link[me] = link;
  stats.hasText[me] = hasText ? 1 : 0;
  stats.pieces[me] = pieces;
  stats.end[me] = stats.n;
  if (isBlock) {
    stats.own[me] = blockValue(at, stats.flags[me]!, false);
    stats.ownListing[me] = blockValue(at, stats.flags[me]!, true);
    stats.frag[me] = blockFragment;
    stats.ownLink[me] = inline[at + LINK]!;
    stats.ownText[me] = inline[at + TEXT]!;
    stats.ownAnchors[me] = inline[at + ANCHORS]!;
    stats.ownPuncts[me] = inline[at + PUNCTS]!;
    const w = WORD_FIGURES * me;
    stats.ownWords[w] = inline[at + WORDS]!;
    stats.ownWords[w + 1] = inline[at + DIGITS]!;
    stats.ownWords[w + 2] = inline[at + UPPER]!;
    stats.ownWords[w + 3] = inline[at + LAST]!;
  }
  if (opens && charsRead === charsBefore) inWord = wordBefore;
  return me;
}

const MAX_DEPTH = 1500;
const NOT_BLANK_RE = /\S/;

/**
 * Glued words. Themes lay out a card's brand and name, a tag and the next, a label and its count
 * as separate boxes of inline elements with no space between them in the markup ("<span>Big
 * Agnes</span><span>Anthracite 20</span>"); their text would read "AgnesAnthracite". A text that
 * opens with a capital or a digit right after a lower-case letter that ended the text of an
 * inline element is such a piece: prose does not join words that way. The walk notes it as it
 * goes: lastChar is 1 after a text ending in a lower-case letter, 2 after one ending in another
 * visible character, -1 once an inline element around a text ending in a lower-case letter has
 * closed, 0 otherwise (a space, a block, an image or a line break between). An empty block right
 * after a text (a spacer, a swatch) sets -2: whatever text comes next is a piece of its own, as
 * the page shows it on a line of its own ("Linear.<div class=spacer></div>Feb 26").
 */
let lastChar = 0;
/** Inside code or a superscript, where pieces are joined on purpose ("m²", "getElement<b>ById</b>"). */
let verbatim = 0;
const GLUE_INLINE = new Set(['a', 'span', 'b', 'strong', 'em', 'i', 'u', 'small', 'font', 'label', 'mark', 'time']);
const VERBATIM = new Set(['pre', 'code', 'kbd', 'samp', 'tt', 'var', 'sup', 'sub', 'math', 'svg']);
const LOWER_RE = /\p{Ll}/u;
const UPPER_RE = /\p{Lu}/u;
const endsWord = (c: number): boolean => (c >= 97 && c <= 122) || (c > 127 && LOWER_RE.test(String.fromCharCode(c)));
const opensWord = (c: number): boolean =>
  (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || (c > 127 && UPPER_RE.test(String.fromCharCode(c)));

/** What readText found besides the length: bits of NOT_BLANK (\S) and PUNCTUATED. */
let textSeen = 0;
/**
 * What readText counted of the words (a word is a run of characters other than controls, spaces
 * and no-break spaces): words begun, digits, words begun with a capital A-Z, the last visible
 * character (0 if none). A word runs on across texts (`inWord`); `charsRead` counts every
 * character read, so that a block can tell whether it held any.
 */
let textWords = 0;
let textDigits = 0;
let textUpper = 0;
let textLast = 0;
let inWord = false;
let charsRead = 0;
const NOT_BLANK = 1;
const PUNCTUATED = 2;

/** What one character is to readText: bits of a table built once for those below U+1680. */
const VISIBLE = 1;
const DIGIT = 2;
const CAPITAL = 4;
const SEEN_NOT_BLANK = 8;
const SEEN_PUNCTUATED = 16;
/** Sentence punctuation: . , ! ? : ; and their CJK forms. */
const isPunctuation = (c: number): boolean =>
  c === 46 ||
  c === 44 ||
  c === 33 ||
  c === 63 ||
  c === 58 ||
  c === 59 ||
  c === 0x3002 ||
  c === 0xff01 ||
  c === 0xff1f ||
  c === 0x3001;
/** A character's bits: visible (not a space, control or no-break space), a digit, A-Z, not blank, punctuation. */
const classOf = (c: number): number => {
  if (c <= 32 || c === 160) return isSpace(c) ? 0 : SEEN_NOT_BLANK;
  let k = VISIBLE;
  if (c >= 48 && c <= 57) k |= DIGIT;
  if (c >= 65 && c <= 90) k |= CAPITAL;
  if (!isSpace(c)) k |= SEEN_NOT_BLANK;
  if (isPunctuation(c)) k |= SEEN_PUNCTUATED;
  return k;
};
const CLASSES = Uint8Array.from({ length: 0x1680 }, (_, c) => classOf(c));

/**
 * A text's visible length (characters other than spaces, controls and no-break spaces), in one
 * pass that also notes in textSeen whether it holds anything but whitespace and whether it
 * holds sentence punctuation (. ! ? ; , : and their CJK forms). Each character's kind comes from
 * a table and is summed without branches: branches on whether a character is visible or opens a
 * word were mispredicted at every space (4.3 against 6.0–6.5 ns a character of a bench page).
 */
function readText(s: string): number {
  let n = 0;
  let bits = 0;
  let words = 0;
  let digits = 0;
  let upper = 0;
  let lastAt = -1;
  let inside = inWord ? 1 : 0;
  const length = s.length;
  for (let i = 0; i < length; i++) {
    const c = s.charCodeAt(i);
    const k = c < 0x1680 ? CLASSES[c]! : classOf(c);
    const visible = k & VISIBLE;
    const opens = visible & ~inside;
    n += visible;
    digits += (k >> 1) & 1;
    words += opens;
    upper += opens & (k >> 2);
    bits |= k;
    lastAt += (i - lastAt) & -visible;
    inside = visible;
  }
  textSeen = (bits & SEEN_NOT_BLANK ? NOT_BLANK : 0) | (bits & SEEN_PUNCTUATED ? PUNCTUATED : 0);
  textWords = words;
  textDigits = digits;
  textUpper = upper;
  textLast = lastAt < 0 ? 0 : s.charCodeAt(lastAt);
  inWord = inside === 1;
  charsRead += length;
  return n;
}

/**
 * The page's forms that ask for something (PageScan.fieldForms), for the page being measured;
 * null when the caller did not scan the page: every form is then furniture.
 */
let fieldForms: ReadonlySet<Element> | null = null;

/** Flags of furniture by its tag (nav, aside, footer, form, header, menu). */
const furnitureTag = (el: Element, tag: string): number =>
  !FURNITURE_TAGS.has(tag)
    ? 0
    : tag === 'form' && fieldForms !== null && !fieldForms.has(el)
      ? Flag.Boiler | Flag.FormShown
      : Flag.Boiler;

/** `product`: the page is a product page, and purchase widgets are looked for. */
function flagsOf(el: Element, tag: string, matcher: NameMatcher, product: boolean): number {
  let flags = 0;
  if (HEADING.has(tag)) flags |= Flag.Heading;
  if (tag === 'pre') flags |= Flag.Pre;
  if (!el.hasAttributes()) {
    flags |= furnitureTag(el, tag);
    if (tag === 'header' && inArticle(el)) flags |= Flag.ArticleHeader;
    if (tag === 'article' || tag === 'main') flags = (flags | Flag.Semantic) & ~Flag.Boiler;
    return flags;
  }
  const { class: cls, id, role, itemprop } = judgedAttributes(el);
  const names = matcher.ofNames(
    cls,
    id,
    NAME_BOILERPLATE |
      NAME_COMMENTS |
      NAME_CONTENT |
      NAME_LABEL |
      NAME_FURNITURE_ALWAYS |
      NAME_REVIEWS |
      NAME_DESCRIPTION |
      NAME_OTHER_PAGES |
      (product ? NAME_PURCHASE : 0),
  );
  flags |= furnitureTag(el, tag);
  if (role !== null && BOILERPLATE_ROLES.has(role)) flags = (flags | Flag.Boiler) & ~Flag.FormShown;
  if (tag === 'header' && inArticle(el)) flags |= Flag.ArticleHeader;
  else if (names & NAME_FURNITURE_ALWAYS) flags |= Flag.Boiler;
  else if (names & NAME_BOILERPLATE) flags |= Flag.Boiler | Flag.BoilerName;
  if (names & NAME_LABEL || (tag === 'a' && isSkipLink(el))) {
    flags |= TUNING.labels ? Flag.Label : Flag.Boiler | Flag.BoilerName;
  }
  if (names & NAME_COMMENTS) flags |= Flag.Comments;
  if (names & NAME_REVIEWS) flags |= Flag.Comments | Flag.Reviews;
  if (names & NAME_CONTENT) flags |= Flag.Content;
  if (names & NAME_DESCRIPTION || itemprop === 'description') flags |= Flag.Description;
  if (itemprop !== null && ITEMPROP_AUTHOR.test(itemprop)) flags |= Flag.Author;
  if (names & NAME_PURCHASE) flags |= Flag.Purchase;
  if (names & NAME_OTHER_PAGES) flags |= Flag.OtherPages;
  if (tag === 'article' || tag === 'main' || role === 'main' || itemprop === 'articleBody') {
    flags = (flags | Flag.Semantic) & ~Flag.Boiler;
  }
  return flags;
}

/**
 * A keyboard user's shortcut ("Skip to main content", "Skip to product list"): a link to a
 * place on the same page, read by screen readers and shown on focus only.
 */
function isSkipLink(el: Element): boolean {
  const href = el.getAttribute('href');
  return !!href && href.length > 1 && href.charCodeAt(0) === 35 && SKIP_TEXT.test(el.textContent ?? '');
}

const SKIP_TEXT = /^\s*skip\s+(?:to|navigation|listing|the)\b/i;

/** Whether a <header> heads an <article> (its title and byline), not the page. */
function inArticle(el: Element): boolean {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const t = p.localName;
    if (t === 'article') return true;
    if (t === 'body' || t === 'main') return false;
  }
  return false;
}

/** Whether the last blockValue charged the short-fragment cost. */
let blockFragment = 0;

/**
 * What a block's own text is worth: plain sentences for it, links and fragments against it.
 * `at`: the block's slot in `inline`.
 */
function blockValue(at: number, flags: number, listing: boolean): number {
  blockFragment = 0;
  const text = inline[at + TEXT]!;
  const link = inline[at + LINK]!;
  if (text === 0) return 0;
  const plain = text - link;
  // A block inside a link (a teaser card) holds no <a> of its own: it is one long anchor.
  const avgAnchor = link / Math.max(1, inline[at + ANCHORS]!);
  const penalty = listing
    ? TUNING.listingLinkPenalty
    : avgAnchor >= TUNING.longLinkChars
      ? TUNING.longLinkPenalty
      : TUNING.linkPenalty;
  let value = plain - penalty * link;
  if (flags & (Flag.Heading | Flag.Pre)) return value;
  if (text < TUNING.shortBlockChars && inline[at + PUNCTS] === 0) {
    value -= TUNING.blockCost;
    blockFragment = 1;
  }
  return value;
}

/**
 * The page declares its content in its JSON-LD (a product's description): the first text node
 * that shows one of those openings is in the description block. That block counts twice, and
 * neither it nor any element around it is furniture (a "subscription-eligible" product, a
 * "read-more" toggle around the description).
 */
/** Characters from which a text node that starts a declared opening is taken for it. */
const MIN_OPENING = 15;

function anchorDeclared(stats: Stats, declared: string[]): void {
  for (let i = 0; i < stats.n; i++) {
    if (stats.text[i]! < MIN_OPENING * 0.8) continue;
    for (let n = stats.el[i]!.firstChild; n; n = n.nextSibling) {
      if (n.nodeType !== 3) continue;
      const data = (n as Text).data;
      if (data.length < MIN_OPENING) continue;
      // The node holds the opening, or starts it (the rest follows in bold, in the next line).
      const flat = data.replace(/\s+/g, ' ').trim().toLowerCase();
      if (!declared.some((d) => flat.includes(d) || (flat.length >= MIN_OPENING && d.startsWith(flat)))) continue;
      let block = i;
      while (block > 0 && !BLOCK.has(stats.el[block]!.localName)) block = stats.parent[block]!;
      stats.own[i]! += TUNING.declaredWeight * stats.text[block]!;
      for (let p = i; p >= 0; p = stats.parent[p]!) {
        stats.flags[p]! &= ~(Flag.Boiler | Flag.BoilerName);
        stats.anchored.add(p);
      }
      return;
    }
  }
}

const MENU_TAGS = new Set(['aside', 'nav']);

/**
 * Furniture: a nav/aside/footer/header/form, a navigation role, or a class or id of furniture,
 * unless it holds half the page (a layout wrapper's class; page builders also put whole
 * articles in a <header>). A <footer> stays furniture however much it holds: a site's footer
 * of testimonials, store lists and legal notes can outweigh a short product or a grid of
 * links, and no page puts its content there; so does an <aside> or <nav> half of whose text
 * is links (a blog's archive of every post, month by month, beside a short article). A class
 * or id alone does not make furniture of a long stretch of text with few links (a
 * "search-page-wrapper" around results, a "promo" section of a landing page): menus, footers
 * and link boxes are short or link-dense.
 */
function isFurniture(i: number, stats: Stats, pageText: number): boolean {
  const f = stats.flags[i]!;
  if (!(f & Flag.Boiler)) return false;
  // A form that asks for nothing (old Reddit puts each comment's text in a form of its own) is
  // furniture when it is a menu (a country picker's list of links), not when it holds prose.
  if (f & Flag.FormShown && !(f & Flag.BoilerName) && stats.link[i]! < TUNING.menuLinkDensity * stats.text[i]!) {
    return false;
  }
  // On a listing reading, a card named after furniture is one of many results, not a menu
  // ("discover-search-card", a "promo-tile" of a grid), nor is a list so named that holds the
  // page's cards ("c-search-grid", "search-results" full of links; a <nav> or <aside> holding
  // cards stays a menu), and the <header> of a listed <article> is that story's title and byline,
  // not the site's header.
  if (stats.listing || stats.listingChosen) {
    const item = stats.card.has(i) || (stats.cardHolder.has(i) && !FURNITURE_TAGS.has(stats.el[i]!.localName));
    if ((item && f & Flag.BoilerName) || (item && f & Flag.OtherPages && !stats.product) || f & Flag.ArticleHeader) {
      return false;
    }
  }
  const text = stats.text[i]!;
  // Named for the layout it sets up ("c-layout-sidebar-left" around its sidebars and its
  // "c-layout-main"): not furniture when a child named or tagged as content holds half of it.
  if (f & Flag.BoilerName && contentChild(stats)[i]! >= 0.5 * text && LAYOUT_NAME.test(stats.el[i]!.className)) {
    return false;
  }
  // On a listing reading, links count: a <nav> holding most of the page's text (a docs
  // sidebar beside a short index) is still a menu.
  if (
    text >= TUNING.boilerMaxShare * pageText &&
    !(stats.listing && !(f & Flag.BoilerName)) &&
    !(MENU_TAGS.has(stats.el[i]!.localName) && stats.link[i]! >= TUNING.menuLinkDensity * text) &&
    stats.el[i]!.localName !== 'footer'
  ) {
    return false;
  }
  return !(
    f & Flag.BoilerName &&
    text >= TUNING.boilerNameMaxChars &&
    stats.link[i]! < TUNING.boilerNameLinkDensity * text
  );
}

/**
 * A name for a layout ("c-layout-sidebar-left", "has-sidebar", "with-sidebar", a section's
 * "n-sidebar-left" modifier), not a part of the page.
 */
const LAYOUT_NAME = /\blayout\b|(?:^|\s)(?:has|with)-|sidebar-(?:left|right)\b/i;

/** For each element, the most text of a child named or tagged as content and not furniture. */
function contentChild(stats: Stats): Float64Array {
  if (stats.contentChildText) return stats.contentChildText;
  const { n, flags, text, parent } = stats;
  const within = new Float64Array(n);
  for (let i = 1; i < n; i++) {
    const f = flags[i]!;
    const p = parent[i]!;
    if (f & (Flag.Content | Flag.Semantic) && !(f & Flag.Boiler) && text[i]! > within[p]!) within[p] = text[i]!;
  }
  return (stats.contentChildText = within);
}

function score(stats: Stats, pageText: number, own: Float64Array): void {
  // Children come after their parent in pre-order, so a backward sweep sees them first.
  const acc = new Float64Array(stats.n);
  const { flags, text, parent } = stats;
  stats.scoredFrom = own;
  const factor = stats.thread ? 1 : TUNING.commentsFactor;
  for (let i = stats.n - 1; i >= 0; i--) {
    let v = acc[i]! + own[i]!;
    if (flags[i]! & Flag.Label) v = 0;
    else if (isFurniture(i, stats, pageText)) v = Math.min(v, 0) - TUNING.boilerFactor * text[i]!;
    if (flags[i]! & Flag.Comments && v > 0) v *= factor;
    stats.score[i] = v;
    if (parent[i]! >= 0) acc[parent[i]!]! += v;
  }
}

function pickBest(stats: Stats): number {
  // A comment section must not win over the article it comments on: candidates inside one
  // compete only when nothing outside has real content (a page that is a thread of comments).
  // Nor must a paragraph of the footer (an address) or of a sidebar win over the page: blocks
  // inside furniture compete only when nothing outside it scores at all.
  const inComments = new Uint8Array(stats.n);
  const inFurniture = new Uint8Array(stats.n);
  const { flags, parent, text } = stats;
  const pageText = stats.n ? text[0]! : 0;
  for (let i = 0; i < stats.n; i++) {
    const p = parent[i]!;
    inComments[i] = flags[i]! & Flag.Comments || (p >= 0 && inComments[p]) ? 1 : 0;
    const furniture = isFurniture(i, stats, pageText);
    inFurniture[i] = furniture || (p >= 0 && inFurniture[p]) ? 1 : 0;
    if (inFurniture[i]) inComments[i] = 1;
  }
  const outside = bestAmong(stats, inComments);
  if (outside !== -1 && stats.score[outside]! >= TUNING.minContent) return outside;
  const outsideComments = inComments.slice();
  for (let i = 0; i < stats.n; i++) inComments[i] = inFurniture[i]!;
  const notFurniture = bestAmong(stats, inComments);
  if (notFurniture === -1) return bestAmong(stats, null);
  const post = commentedPost(stats, notFurniture, outsideComments);
  if (post === null) {
    if (stats.thread || !outsideComments[notFurniture]) return notFurniture;
    // Comments won and no post stands outside them: the page is a thread. Their factor keeps
    // comments from outscoring an article; a thread's replies nest sections in sections, each
    // level a fifth of the one above, so the longest reply alone would win. Scored again without.
    // The thread is the outermost comment section around the reply that wins then (below the
    // body, whose classes name the page's state: "has-comments"): a short comment at its top
    // level is as much a part of it as the longest.
    stats.thread = true;
    score(stats, pageText, stats.scoredFrom!);
    let thread = bestAmong(stats, inComments);
    if (thread < 0) return notFurniture;
    for (let a = thread; a > 0 && !inComments[a]; a = parent[a]!) if (flags[a]! & Flag.Comments) thread = a;
    return thread;
  }
  // Widened to a <main> around it, the post would take its comments back in.
  stats.postOverComments = true;
  return post;
}

/**
 * When comments won (nothing outside them scored as real content), the post they comment on, if
 * the page has one: an element outside comments and furniture, named or tagged as content
 * (`article`, `.entry-content`), that does not hold the winner and holds a paragraph's worth of
 * prose. A short post whose lines are mostly links to what it rounds up scores low, and thirty
 * comments under it score higher, but they are replies to it. Null when the winner is not in a
 * comment section or no such post stands outside it (a thread of comments is then the page).
 */
function commentedPost(stats: Stats, winner: number, excluded: Uint8Array): number | null {
  const { flags, parent, text, link } = stats;
  let commented = false;
  for (let a = winner; a >= 0 && !commented; a = parent[a]!) commented = (flags[a]! & Flag.Comments) !== 0;
  if (!commented) return null;
  let best: number | null = null;
  let bestProse = TUNING.commentedPostProse - 1;
  for (let i = 0; i < stats.n; i++) {
    if (excluded[i] || !(flags[i]! & (Flag.Semantic | Flag.Content))) continue;
    const prose = text[i]! - link[i]!;
    if (prose <= bestProse || link[i]! > TUNING.commentedPostLinkShare * text[i]!) continue;
    // Not a wrapper of the comments (the page, its <main>).
    if (i <= winner && winner < stats.end[i]!) continue;
    best = i;
    bestProse = prose;
  }
  return best;
}

/** The best-scoring element, among those not marked in `excluded` when it is given. */
function bestAmong(stats: Stats, excluded: Uint8Array | null): number {
  // Backwards, so that on a tie the inner element (later in pre-order) wins over its wrapper.
  let best = -1;
  let bestScore = 0;
  const { score, flags } = stats;
  for (let i = stats.n - 1; i >= 0; i--) {
    let v = score[i]!;
    if (v <= 0 || (excluded && excluded[i])) continue;
    if (flags[i]! & Flag.Semantic) v *= TUNING.semanticBonus;
    else if (flags[i]! & Flag.Content) v *= TUNING.contentBonus;
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
function widenToSemantic(stats: Stats, best: number): number {
  if (best < 0 || stats.postOverComments) return best;
  const { text, parent, flags, score } = stats;
  for (let p = parent[best]!; p >= 0; p = parent[p]!) {
    if (flags[p]! & Flag.Semantic) {
      return text[best]! < TUNING.fallbackShare * text[p]! && score[p]! > -text[p]! * 0.3 ? p : best;
    }
  }
  return best;
}

/**
 * A page whose content is a grid or list of links (products of a collection, a job board, a
 * chart, a list of articles) gives links a negative value everywhere, and the winner is then a
 * short piece of prose beside the listing: a newsletter form's hint, a notice, a banner's
 * tagline. When the winner holds a small share of the page's text, the page is read again with
 * link text counted as text (furniture still counts against): if that finds a block with much
 * more text than the winner, the listing is the content.
 */
function listingFallback(stats: Stats, pageText: number, best: number): number {
  // A post its comments outscored is no listing: read again with links as text, the comments
  // (a list of posts) would win back.
  if (stats.postOverComments) return best;
  if (best >= 0 && stats.text[best]! >= TUNING.listingWinnerShare * pageText) return best;
  const scores = stats.score;
  const thread = stats.thread;
  stats.score = new Float64Array(stats.score.length);
  stats.listing = true;
  score(stats, pageText, listingValues(stats));
  const listing = widenToSemantic(stats, pickBest(stats));
  stats.listing = false;
  if (listing >= 0 && (best < 0 || stats.text[listing]! >= TUNING.listingGain * stats.text[best]!)) {
    stats.listingChosen = true;
    return listing;
  }
  stats.score = scores;
  stats.thread = thread;
  return best;
}

/** The element is an `<article>` or inside one. */
function inArticleTag(stats: Stats, i: number): boolean {
  for (let a = i; a >= 0; a = stats.parent[a]!) if (stats.el[a]!.localName === 'article') return true;
  return false;
}

/**
 * A landing page spreads its content over a column of sections (a hero, features, testimonials,
 * a call to action) separated by logo strips and buttons, and the winner is then one section,
 * a part of the page. When it holds under `landingWinnerShare` of the page's text and no
 * listing replaced it, the highest element around it (below any furniture) that still scores
 * `landingMinShare` of its score is taken: the strips between the sections cost less than the
 * sections bring. Furniture inside is pruned as anywhere. A page that declares itself one
 * article, or a winner that is or sits in an `<article>`, is held to the lower
 * `listingWinnerShare`: a story may be a third of a heavy page.
 */
function landingSections(stats: Stats, pageText: number, best: number): number {
  if (best < 0 || stats.listingChosen || stats.postOverComments) return best;
  const share = stats.article || inArticleTag(stats, best) ? TUNING.listingWinnerShare : TUNING.landingWinnerShare;
  if (stats.text[best]! >= share * pageText) return best;
  let top = best;
  for (let p = stats.parent[best]!; p >= 0; p = stats.parent[p]!) {
    if (stats.flags[p]! & Flag.Boiler) break;
    if (stats.score[p]! >= TUNING.landingMinShare * stats.score[best]!) top = p;
  }
  return top;
}

/**
 * What siblings of one kind share: the tag and the first class name, digits aside (the rest
 * varies from item to item: "post-15859", "first", "instock", "product_cat-cups").
 */
function shapeOf(e: Element): string {
  const cls = e.getAttributeNode('class')?.value;
  if (!cls) return e.localName;
  const first = cls.trimStart().split(/\s/, 1)[0]!;
  return `${e.localName} ${first.replace(/\d+/g, '')}`;
}

/** The children of `p` that hold text, grouped by shape (into `groups`, cleared first). */
function groupByShape(p: number, stats: Stats, groups: Map<string, number[]>): void {
  const { el, end, text } = stats;
  groups.clear();
  for (let c = p + 1; c < end[p]!; c = end[c]!) {
    if (text[c] === 0) continue;
    const key = (stats.shapes[c] ??= shapeOf(el[c]!));
    const g = groups.get(key);
    if (g) g.push(c);
    else groups.set(key, [c]);
  }
}

/**
 * How the blocks read on a listing: links count as text, and the short fragments of a repeated
 * item (a product card's price, author, rating; a thread row's counts) are its content, not
 * the crumbs of a menu. An item is one of at least `repeatMin` siblings of the same shape (tag
 * and first class name) that hold text, `repeatItemChars` each on average: a grid, a list of
 * cards, a table's rows (a menu's items are shorter). In a card (several pieces of text: a
 * title and a price) link text counts for the item, as the whole card is often one link.
 */
function listingValues(stats: Stats): Float64Array {
  const own = stats.ownListing.slice(0, stats.n);
  const { el, end, text, frag, parent, ownLink } = stats;
  const inItem = new Uint8Array(stats.n);
  const holders: number[] = [];
  const groups = new Map<string, number[]>();
  for (let p = 0; p < stats.n; p++) {
    if (end[p]! - p < 1 + TUNING.repeatMin) continue;
    groupByShape(p, stats, groups);
    for (const g of groups.values()) {
      if (g.length < TUNING.repeatMin) continue;
      let sum = 0;
      let parts = 0;
      for (const c of g) {
        sum += text[c]!;
        parts += stats.pieces[c]!;
      }
      if (sum < TUNING.repeatItemChars * g.length) continue;
      // Cards hold several pieces (a title and a price); a menu's items, one link each.
      const cards = parts >= TUNING.cardPieces * g.length ? 2 : 1;
      for (const c of g) inItem[c] = cards;
      if (cards === 2) holders.push(p);
    }
  }
  // Marks of items reach their descendants in pre-order, and so does being inside furniture
  // by tag or role: cards inside a <nav>, <header>, <footer>… are a menu's entries, whatever
  // their names.
  const inTagFurniture = new Uint8Array(stats.n);
  for (let i = 0; i < stats.n; i++) {
    const p = parent[i]!;
    const f = stats.flags[i]!;
    // Furniture by name only: a furniture word beside others, or a name of links to other
    // pages on a page that is not a product's (its "related" grid is other products).
    const byName =
      f & Flag.BoilerName || (f & Flag.OtherPages && !stats.product && !FURNITURE_TAGS.has(el[i]!.localName));
    if ((f & Flag.Boiler && !byName) || (p >= 0 && inTagFurniture[p])) {
      inTagFurniture[i] = 1;
    }
    if (!inItem[i] && p >= 0 && inItem[p]) inItem[i] = inItem[p]!;
    if (!inItem[i]) continue;
    if (inItem[i] === 2 && !inTagFurniture[i]) stats.card.add(i);
    if (frag[i]) own[i]! += TUNING.blockCost;
    if (inItem[i] === 2) own[i]! += TUNING.itemLinkValue * ownLink[i]!;
  }
  const pageText = stats.n ? text[0]! : 0;
  for (const p of holders) {
    if (inTagFurniture[p]) continue;
    stats.cardHolder.add(p);
    // A grid that holds as large a share of the page as a winner must holds the wrappers it is
    // nearly all of too: a grid inside a row, a column and a results pane named
    // "search-results". (A menu's or a filter panel's entries are a small part of the page.)
    if (text[p]! < TUNING.listingWinnerShare * pageText) continue;
    for (let a = parent[p]!; a >= 0 && text[p]! >= TUNING.holderShare * text[a]!; a = parent[a]!) {
      stats.cardHolder.add(a);
    }
  }
  return own;
}

/**
 * Landing, product and collection pages spread their content over sibling sections, and the
 * winner is then one of them. Climb to the parent while its other children hold real content
 * of their own (a share of the winner's score), leaving out the siblings that score nothing
 * (menus, link lists), furniture, comments and a stream of teasers.
 */
function gatherSiblings(stats: Stats, best: number): { root: number; dropped: Element[] } {
  let current = best;
  let dropped: Element[] = [];
  const { score, flags, text } = stats;
  for (let step = 0; step < TUNING.siblingLevels; step++) {
    const b = current;
    const parent = stats.parent[b]!;
    if (parent < 0 || flags[parent]! & Flag.Boiler) break;
    let gained = 0;
    const out: Element[] = [];
    let bIsStory: boolean | undefined;
    // A story does not take in a stream of teasers beside it; teasers do take in more teasers.
    const stream = (c: number): boolean =>
      teaserShare(c, stats) >= TUNING.streamMinShare && (bIsStory ??= teaserShare(b, stats) < TUNING.streamMinShare);
    for (let c = parent + 1; c < stats.end[parent]!; c = stats.end[c]!) {
      if (c === b) continue;
      const content = !(flags[c]! & (Flag.Boiler | Flag.Comments)) && !stream(c);
      if (content && score[c]! >= TUNING.siblingMinShare * score[b]!) gained += score[c]!;
      // Sections too small to pull the winner up still come along when others do (a landing
      // page's short "our solutions" section between two long ones); what scores nothing goes.
      else if (!(content && score[c]! > 0) && text[c]! > 0 && !(flags[c]! & Flag.Heading && score[c]! > 0))
        out.push(stats.el[c]!);
    }
    if (gained < TUNING.siblingMinShare * score[b]!) break;
    current = parent;
    dropped = [...dropped, ...out];
  }
  return { root: current, dropped };
}

/**
 * The share of element i's text in teasers of other stories: cards of a grid (`repeatMin` or
 * more siblings of one shape, each up to `purchaseCardChars`) most of which open by an image or a
 * heading link, not showing prices. A story's stream of "latest posts" beside it is mostly that;
 * the story is not.
 */
function teaserShare(i: number, stats: Stats): number {
  return stats.text[i]! === 0 ? 0 : teaserText(stats)[i]! / stats.text[i]!;
}

/** Characters in teasers, by element: found inside `teaserScope` once, then summed up the tree. */
function teaserText(stats: Stats): Float64Array {
  if (stats.teasers) return stats.teasers;
  const { el, end, text, parent, n } = stats;
  const cards = new Float64Array(n);
  const groups = new Map<string, number[]>();
  const scope = Math.max(0, stats.teaserScope);
  for (let p = scope; p < end[scope]!; p++) {
    if (cards[p]! > 0) {
      p = end[p]! - 1; // a card's inside is not looked into
      continue;
    }
    if (end[p]! - p < 1 + TUNING.repeatMin) continue;
    groupByShape(p, stats, groups);
    for (const g of groups.values()) {
      if (g.length < TUNING.repeatMin) continue;
      let sum = 0;
      for (const c of g) sum += text[c]!;
      // A menu's entries (a few words each) are not worth the look: they hold little text.
      if (sum < TUNING.teaserChars * g.length || !g.every((c) => text[c]! <= TUNING.purchaseCardChars)) continue;
      // A run of paragraphs is prose, whatever links it holds.
      if (el[g[0]!]!.localName === 'p' || !mostlyTeasers(g, stats)) continue;
      for (const c of g) cards[c] = text[c]!;
    }
  }
  // Children come after their parent in pre-order: a backward sweep sums them up the tree.
  for (let i = end[scope]! - 1; i > scope; i--) if (cards[i]! > 0) cards[parent[i]!]! += cards[i]!;
  stats.teasers = cards;
  return cards;
}

/**
 * Two thirds or more of the cards open by a teaser (a card whose image or title did not load, an
 * empty heading link, is still one of the grid), and under half show prices.
 */
function mostlyTeasers(g: number[], stats: Stats, cut = false): boolean {
  let misses = 0;
  for (const c of g)
    if (!(cut ? linksAway(stats.el[c]!) : opensByTeaser(stats.el[c]!)) && 3 * ++misses > g.length) return false;
  let prices = 0;
  for (const c of g) if (PRICE.test(stats.el[c]!.textContent ?? '') && 2 * ++prices >= g.length) return false;
  return true;
}

/**
 * A story and the stream of teasers after it ("latest posts", each a heading link, a date and
 * an excerpt) can score together above the story alone, the excerpts being prose. When most of
 * the winner outside its best-scoring prose element is teasers, that element is the content.
 */
function storyBesideStream(stats: Stats, best: number): number {
  if (best < 0) return best;
  const { score, text, link, end } = stats;
  let story = -1;
  for (let d = best + 1; d < end[best]!; d++) {
    if (score[d]! < TUNING.storyMinScore * score[best]! || text[d]! < TUNING.storyMinChars) continue;
    if (link[d]! >= TUNING.storiesLinkDensity * text[d]!) continue;
    if (story >= 0 && score[d]! < score[story]!) continue;
    if (teaserShare(d, stats) < 1 - TUNING.streamMinShare) story = d;
  }
  if (story < 0 || text[story] === text[best]) return best;
  const teasers = teaserText(stats);
  return teasers[best]! - teasers[story]! >= TUNING.streamMinShare * (text[best]! - text[story]!) ? story : best;
}

/**
 * A product page's winner is the product: its gallery, prices, variant pickers, delivery notes
 * and buy box around the description the shop wrote. When the page declares itself a product
 * page (JSON-LD, Open Graph) and the winner holds an element named or marked up as a
 * description with a real share of its text, the largest such element, with the
 * specifications beside it, is the content (a one-line summary under the title is not).
 * Without one, the smallest element named as content ("tab-content", "rte-text") that shows
 * the description the page declares in its JSON-LD is.
 */
function productDescription(stats: Stats, root: number): number {
  const { flags, text, end } = stats;
  const pick = (ok: (i: number) => boolean): number => {
    let best = -1;
    for (let i = root + 1; i < end[root]!; i++) {
      if (!ok(i) || text[i]! < TUNING.descriptionMinChars) continue;
      if (isFurniture(i, stats, text[root]!) || flags[i]! & Flag.Comments) continue;
      if (best < 0 || text[i]! > text[best]!) best = i;
    }
    return best >= 0 && text[best]! >= TUNING.descriptionMinShare * text[root]! ? best : -1;
  };
  const named = pick((i) => (flags[i]! & Flag.Description) !== 0);
  // Narrowing is there to leave out the buy box and the gallery: a winner without a buy box (the
  // product's tabs: description, specifications, care) is its details as they are.
  if (named >= 0) return buyBoxIn(root, stats) ? withSpecifications(named, root, stats) : -1;
  if (!stats.anchored.size) return named;
  // No element named as the description: the smallest element named as content that holds
  // the declared description's opening.
  let best = -1;
  for (const i of stats.anchored) {
    if (i <= root || i >= end[root]! || !(flags[i]! & Flag.Content) || text[i]! < TUNING.descriptionMinChars) continue;
    if (best < 0 || text[i]! < text[best]!) best = i;
  }
  return best >= 0 && text[best]! >= TUNING.descriptionMinShare * text[root]! ? best : -1;
}

/** Whether the element holds a purchase widget with text (a price, an add-to-cart form). */
function buyBoxIn(root: number, stats: Stats): boolean {
  return flaggedWithText(root + 1, stats.end[root]!, Flag.Purchase, stats);
}

/** Whether an element of the range [from, to) holds text and one of the `mask` flags. */
function flaggedWithText(from: number, to: number, mask: number, stats: Stats): boolean {
  for (let i = from; i < to; i++) if (stats.text[i]! > 0 && stats.flags[i]! & mask) return true;
  return false;
}

/**
 * The description element and what sits beside it up to the buy box: a shop puts the
 * specifications, features and care notes in sections next to the description (the truths keep
 * them). From the description, each element around it is taken while what it adds holds no
 * purchase widget, furniture or comments, and is mostly not links; the winner itself is not.
 */
function withSpecifications(d: number, root: number, stats: Stats): number {
  const { flags, text, link, end, parent } = stats;
  let cur = d;
  for (let p = parent[d]!; p > root; cur = p, p = parent[p]!) {
    const added = text[p]! - text[cur]!;
    if (link[p]! - link[cur]! > TUNING.besideDescriptionLinks * added) return cur;
    for (let i = p + 1; i < end[p]!; i++) {
      if (i === cur) i = end[cur]! - 1;
      else if (text[i]! > 0 && flags[i]! & (Flag.Purchase | Flag.Comments | Flag.Boiler)) return cur;
    }
  }
  return cur;
}

/**
 * A shop's product view holds the gallery, the buy box and the description; the features, the
 * answers to questions and the care notes often come after it, in sections of their own (the
 * truths keep them). When the winner holds such prose after the section of the description, the
 * winner stays, with the rest of the description's section (the buy box, the gallery) left out.
 */
function withSectionsAfter(d: number, root: number, stats: Stats): { root: number; dropped: Element[] } {
  const { el, end, text, link, parent } = stats;
  // The section of the description: the child of the winner (or of the wrapper that is all
  // of it) that holds the description.
  let box = d;
  while (parent[box]! !== root && parent[box]! >= 0) box = parent[box]!;
  let top = root;
  while (box !== d && text[box] === text[top]) {
    top = box;
    for (box = d; parent[box]! !== top;) box = parent[box]!;
  }
  if (box === d) return { root: d, dropped: [] };
  const dropped: Element[] = [];
  let after = 0;
  for (let c = top + 1; c < end[top]!; c = end[c]!) {
    if (c === box || text[c]! === 0) continue;
    const prose =
      c > box &&
      link[c]! <= TUNING.besideDescriptionLinks * text[c]! &&
      !flaggedWithText(c, end[c]!, Flag.Purchase | Flag.Comments | Flag.Boiler, stats);
    if (prose) after += text[c]!;
    else dropped.push(el[c]!);
  }
  if (after < TUNING.descriptionMinChars) return { root: d, dropped: [] };
  // Inside the description's section, all but the description: the gallery, the buy box.
  for (let cur = d; cur !== box; cur = parent[cur]!) {
    const p = parent[cur]!;
    for (let c = p + 1; c < end[p]!; c = end[c]!) if (c !== cur && text[c]! > 0) dropped.push(el[c]!);
  }
  return { root: top, dropped };
}

/**
 * A link shown on its own (nothing else in its block: a card's title, a heading's link) that
 * repeats an earlier one of the winner, same address and same text: a card that names its
 * product over its image, in its heading and in a hidden label for another layout.
 */
function repeatedLinks(root: number, stats: Stats): Map<number, number> {
  const { text, link, end, parent, el } = stats;
  const seen = new Map<string, [number, number]>();
  const copies = new Map<number, number>();
  for (let i = root + 1; i < end[root]!; i++) {
    if (text[i]! < TUNING.repeatedLinkChars || link[i] !== text[i] || el[i]!.localName !== 'a') continue;
    const href = el[i]!.getAttribute('href');
    if (!href || href.charCodeAt(0) === 35) continue;
    let top = i;
    while (parent[top]! > root && text[parent[top]!] === text[i]) top = parent[top]!;
    // Only a link on its own (its block's whole text, or beside blocks only): dropping it leaves
    // no sentence broken.
    if (top === i && (!BLOCK.has(el[parent[i]!]!.localName) || inSentence(el[i]!))) continue;
    // The same address and as many characters; the texts are compared only then.
    const key = `${text[i]} ${href}`;
    const seenAt = seen.get(key);
    if (seenAt === undefined) {
      seen.set(key, [top, i]);
      continue;
    }
    const [first, firstLink] = seenAt;
    // Within one card (the smallest element holding both is short), not two mentions far apart.
    let both = parent[first]!;
    while (both > root && end[both]! <= top) both = parent[both]!;
    if (text[both]! <= TUNING.repeatedLinkCard && sameText(el[firstLink]!, el[i]!)) copies.set(top, first);
  }
  return copies;
}

const sameText = (a: Element, b: Element): boolean =>
  (a.textContent ?? '').replace(/\s+/g, ' ').trim() === (b.textContent ?? '').replace(/\s+/g, ' ').trim();

/** Whether text or an inline element with text stands right beside an element (a sentence). */
function inSentence(e: Element): boolean {
  let before = e.previousSibling;
  while (before && before.nodeType === 3 && !NOT_BLANK_RE.test((before as Text).data)) before = before.previousSibling;
  let after = e.nextSibling;
  while (after && after.nodeType === 3 && !NOT_BLANK_RE.test((after as Text).data)) after = after.nextSibling;
  return isInlineText(before) || isInlineText(after);
}

const isInlineText = (n: ChildNode | null): boolean =>
  !!n &&
  (n.nodeType === 3 ||
    (n.nodeType === 1 && !BLOCK.has((n as Element).localName) && NOT_BLANK_RE.test(n.textContent ?? '')));

/** Whether an element is inside a quotation (a <blockquote>, a forum's "quote" box) below root. */
function inQuote(i: number, root: number, stats: Stats): boolean {
  for (let a = i; a > root; a = stats.parent[a]!) {
    const e = stats.el[a]!;
    if (e.localName === 'blockquote' || QUOTE_NAME.test(e.getAttributeNode('class')?.value ?? '')) return true;
  }
  return false;
}
const QUOTE_NAME = /(?:^|[\s_-])(?:quote|quotecontent)(?:$|[\s_-])/i;

/** Furniture and link lists inside the winner; comment sections unless they are the page. */
function prune(root: number, stats: Stats): Set<Element> {
  const pruned = new Set<Element>();
  if (root < 0) return pruned;
  // A block repeated word for word (a carousel's cloned slides, the same buy box or section
  // served once for small screens and once for large) is kept the first time only.
  const seen = new Map<string, number>();
  // Per figures, the last block that had them and where in the winner's text it ended.
  const last = new Map<string, { el: number; end: number }>();
  const { text, link, pieces, end } = stats;
  const repeated = (c: number, at: number): boolean => {
    if (text[c]! < TUNING.adjacentCopyChars || stats.flags[c]! & Flag.Pre) return false;
    // Items, cells and code repeat in reference pages (the same parameter for two calls).
    if (REPEATABLE.has(stats.el[c]!.localName)) return false;
    const key = `${text[c]} ${link[c]} ${pieces[c]}`;
    // A block that starts where the same block ended, no text between (a section served once for
    // small screens and once for large, side by side), is a copy whatever its length. A quoted
    // post right after the post it quotes is a reply, judged as quotes are below.
    const before = last.get(key);
    last.set(key, { el: c, end: at + text[c]! });
    if (before?.end === at && !inQuote(c, root, stats) && sameText(stats.el[before.el]!, stats.el[c]!)) return true;
    if (text[c]! < TUNING.repeatedShortChars) return false;
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, c);
      return false;
    }
    // The same figures for an element and its only child: not a repeat.
    if (end[first]! > c) return false;
    // A shorter block repeated is a copy only inside a quote (a reply quoting a post); elsewhere
    // it is the page's template (a card's delivery note, a pricing tier's features).
    if (text[c]! < TUNING.repeatedBlockChars && !inQuote(c, root, stats)) return false;
    return stats.el[first]!.textContent === stats.el[c]!.textContent;
  };
  // The text of the winner outside its comment sections: an article when long.
  let comments = 0;
  for (let c = root + 1; c < end[root]!;) {
    if (stats.flags[c]! & Flag.Comments && !(stats.flags[c]! & Flag.Content)) {
      comments += text[c]!;
      c = end[c]!;
    } else c++;
  }
  stats.besideComments = text[root]! - comments;
  stats.postBodies = null;
  // A winner found by the listing reading is a grid: its prices are its cards'.
  if (stats.product && !stats.listingChosen) purchaseWidgets(root, stats);
  // On one product's page a grid is other products, even when it is what the listing reading found.
  if (stats.oneProduct) otherProducts(root, stats);
  // Also on product pages: a "notify me" box after the description; a grid's cards show prices.
  if (!stats.listingChosen) {
    otherStories(root, stats);
    formBoxes(root, stats);
    authorBoxes(root, stats);
    describedAuthors(root, stats);
  }
  emptyContentsTitles(root, stats);
  const copies = repeatedLinks(root, stats);
  stats.linkCopies = [];
  // `at`: characters of the winner before element i.
  const visit = (i: number, at: number): void => {
    for (let c = i + 1; c < end[i]!; at += text[c]!, c = end[c]!) {
      const furniture = shouldPrune(c, root, stats);
      const first = furniture ? undefined : copies.get(c);
      if (first !== undefined) stats.linkCopies.push([c, first]);
      const other = furniture || first !== undefined || stats.otherCards.has(c);
      const copy = !other && repeated(c, at) && !stats.anchored.has(c);
      if (
        other ||
        copy ||
        sideCopy(c, stats) ||
        imageAddress(c, stats) ||
        (at <= CRUMB_OPENS_WITHIN && breadcrumbTrail(c, stats))
      ) {
        // A poster's user cell left out whole (a copy of the one above, the same for each of the
        // poster's posts; short fragments and links) keeps the name in its box; not a comment
        // section, whose first commenter would stay.
        const cell = copy || (text[c]! <= TUNING.posterCellChars && !(stats.flags[c]! & Flag.Comments));
        const name = posterName(c, stats, cell);
        if (name >= 0) allBut(c, name, stats, pruned);
        else pruned.add(stats.el[c]!);
        continue;
      }
      visit(c, at);
    }
  };
  visit(root, 0);
  return pruned;
}

/**
 * A link repeated within a card is kept once, so a copy whose earlier one went after all (a
 * forum post's user box naming its poster as the post's "by" line does, a card's image link
 * named as its title, left out by a rule or by the block model) stays in its place: the card or
 * the post keeps its name.
 */
function keepOneLinkCopy(root: number, stats: Stats, pruned: Set<Element>): void {
  const restored = new Set<number>();
  for (const [copy, first] of stats.linkCopies) {
    if (restored.has(first)) continue;
    let gone = false;
    for (let a = first; a > root && !gone; a = stats.parent[a]!) gone = pruned.has(stats.el[a]!);
    if (!gone) continue;
    // The first copy stands in (copies are listed in the page's order); the others stay out.
    pruned.delete(stats.el[copy]!);
    restored.add(first);
  }
}

/**
 * The poster's name in a post's user box (`POSTER_BOX`: name, rank, banner, join date), by its
 * class or `itemprop=name`: in element i when it is such a box, or, `within`, holds one (a
 * poster's user cell left out whole); -1 when it names nobody.
 */
function posterName(i: number, stats: Stats, within = false): number {
  const { el, end, text } = stats;
  let box = -1;
  for (let b = i; b < (within ? end[i]! : i + 1) && box < 0; b++) {
    if (text[b]! > 0 && POSTER_BOX.test(el[b]!.getAttribute('class') ?? '')) box = b;
  }
  if (box < 0) return -1;
  for (let c = box + 1; c < end[box]!; c++) {
    const e = el[c]!;
    if (text[c]! === 0 || text[c]! > TUNING.posterNameChars) continue;
    if (POSTER_NAME.test(e.getAttribute('class') ?? '') || e.getAttribute('itemprop') === 'name') return c;
  }
  return -1;
}

/** Prunes what element i holds except element keep and the elements around it. */
function allBut(i: number, keep: number, stats: Stats, pruned: Set<Element>): void {
  const { end, text } = stats;
  for (let c = i + 1; c < end[i]!; c = end[c]!) {
    if (c <= keep && keep < end[c]!) {
      if (c !== keep) allBut(c, keep, stats, pruned);
    } else if (text[c]! > 0) pruned.add(stats.el[c]!);
  }
}

/**
 * The title of a table of contents ("Table of contents", "On this page") that has no list under
 * it in the content: the page's script was to build it (the title stands alone in its box, an
 * empty element or the first section's heading follows), or the list goes as a list of links.
 * In markdown it would be a stray heading over nothing.
 */
function emptyContentsTitles(root: number, stats: Stats): void {
  const { el, end, text, flags } = stats;
  for (let i = root + 1; i < end[root]!; i++) {
    if (!(flags[i]! & Flag.Heading) || !TOC_TITLE.test(el[i]!.textContent ?? '')) continue;
    // The list's place: an empty element right after the title, or the next section's heading.
    const sibling = end[i]! < end[root]! && stats.parent[end[i]!] === stats.parent[i] ? end[i]! : -1;
    let next = end[i]!;
    while (next < end[root]! && text[next]! === 0) next++;
    if (next >= end[root]! || flags[next]! & Flag.Heading) {
      stats.otherCards.add(i);
      continue;
    }
    // Or the title is all its box holds, or an empty element follows it, and what comes next is
    // not a list (a list in the next box is the contents, built).
    const p = stats.parent[i]!;
    const alone = p !== root && text[p] === text[i];
    let inner = next; // down the wrappers that hold all of what comes next
    while (!LISTS.has(el[inner]!.localName) && inner + 1 < end[inner]! && text[inner + 1] === text[inner]) inner++;
    // A list of links to the sections goes as any link list does (a GFM renderer's heading ids
    // would not match the page's); its title with it.
    const listGoes =
      LISTS.has(el[inner]!.localName) && (shouldPrune(next, root, stats) || shouldPrune(inner, root, stats));
    if (listGoes || ((alone || (sibling >= 0 && text[sibling]! === 0)) && !LISTS.has(el[inner]!.localName))) {
      stats.otherCards.add(i);
    }
  }
}

const LISTS = new Set(['ul', 'ol', 'dl', 'nav', 'table', 'menu']);
const TOC_TITLE =
  /^\s*(?:table of contents?|contents|in this (?:article|post|guide|page)|on this page|jump to(?: section)?)\s*:?\s*$/i;

/**
 * An element that says again, touching it, what the text beside it says: a copy for screen
 * readers ("GBP 0.00<span class="clipped">GBP 0.00</span>") or an overlay link over a heading
 * ("<a aria-hidden>Make mealtime amazing</a>Make mealtime amazing"). Read as shown, the words
 * would come twice with nothing between them.
 */
function sideCopy(c: number, stats: Stats): boolean {
  const n = stats.text[c]!;
  if (n < TUNING.sideCopyChars || n > TUNING.sideCopyMaxChars) return false;
  const el = stats.el[c]!;
  // Copies are inline (a span, a link); two headings or boxes that say the same are the page's.
  if (!GLUE_INLINE.has(el.localName)) return false;
  return copyBeside(el, n, el.previousSibling, true) || copyBeside(el, n, el.nextSibling, false);
}

/** Whether `sib` (the sibling before or after `el`, whose text is `n` characters) says what `el` says. */
function copyBeside(el: Element, n: number, sib: ChildNode | null, before: boolean): boolean {
  while (sib && sib.nodeType === 8) sib = before ? sib.previousSibling : sib.nextSibling;
  if (!sib) return false;
  let s: string;
  if (sib.nodeType === 3) {
    s = (sib as Text).data;
    if (s.length < n || s.length > 2 * n + 8 || /\s/.test(before ? s[s.length - 1]! : s[0]!)) return false;
  } else if (sib.nodeType === 1 && before) {
    s = (sib as Element).textContent ?? '';
    if (s.length < n || s.length > 2 * n + 8) return false;
  } else return false;
  return s.trim() === (el.textContent ?? '').trim();
}

/**
 * What separates the steps of a breadcrumb trail ("Home › Blog › Post", "News / Tips"). Not a
 * pipe: "Shop new | Shop sale" is a bar of links, which a page may mean as content.
 */
const CRUMB_SEPARATOR = /^\s*[›»>/→]\s*$/;
/** What follows a trail's last link: a separator, then a short text (the page's title) or nothing. */
const CRUMB_TAIL = /^[›»>/→]\s*([^›»>/→]*)$/;
/** A trail is short: its steps, and the page's own title at its end. */
const CRUMB_MAX_CHARS = 300;
const CRUMB_STEP_CHARS = 60;
const CRUMB_LAST_CHARS = 160;
/** Elements that would put a trail's text on lines of its own. */
const CRUMB_BLOCKS = new Set([
  ...HEADING,
  ...'div p ul ol li dl table section article header footer nav aside main form blockquote pre figure'.split(' '),
]);
/** Text of the winner before a trail at most: a kicker, no more. */
const CRUMB_OPENS_WITHIN = 120;

/**
 * A breadcrumb trail with no class to name it (asked of what opens the winner, at most
 * `CRUMB_OPENS_WITHIN` characters of it before): its whole text is two or more steps joined by
 * separators, every step but the last the text of a link in it, in order, and the last a link or
 * a short text after a separator (the page's own title; not compared with it, which the head
 * may spell otherwise). Navigation, not content: a model reading the markdown would take
 * "Newsroom/Online learning tips/…" for the article's first line.
 */
function breadcrumbTrail(c: number, stats: Stats): boolean {
  const { text, link, el, end } = stats;
  if (text[c]! > CRUMB_MAX_CHARS || link[c]! === 0) return false;
  // One line of inline content: a heading or paragraph after the trail is not its last step.
  // (Read on the walk's arrays, the subtree's elements in document order: linkedom's
  // querySelector parses its selector again at every call.)
  for (let d = c + 1; d < end[c]!; d++) if (CRUMB_BLOCKS.has(el[d]!.localName)) return false;
  // The links' texts and what stands between them, in order (a link's own text may hold a
  // separator: "Science/Technology").
  const links: string[] = [];
  const between: string[] = [''];
  const read = (node: Node): void => {
    for (let n = node.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3) between[between.length - 1] += (n as Text).data;
      else if (n.nodeType === 1 && (n as Element).localName === 'a') {
        const step = ((n as Element).textContent ?? '').trim();
        if (!step) continue;
        links.push(step);
        between.push('');
      } else if (n.nodeType === 1) read(n);
    }
  };
  read(el[c]!);
  // Two links at least: "Home »" alone may be a trail whose end was left out, or a stray link.
  if (links.length < 2 || between[0]!.trim()) return false;
  for (let k = 0; k < links.length; k++) {
    const last = k === links.length - 1;
    if (links[k]!.length > (last ? CRUMB_LAST_CHARS : CRUMB_STEP_CHARS)) return false;
    if (!last && !CRUMB_SEPARATOR.test(between[k + 1]!)) return false;
  }
  // After the last link: nothing, a separator ("Home » Blog »"), or one and a short text.
  const tail = between[links.length]!.trim();
  if (!tail) return true;
  const title = CRUMB_TAIL.exec(tail);
  return !!title && title[1]!.length <= CRUMB_LAST_CHARS;
}

/**
 * An element whose whole text is the address of an image ("https://cdn…/swatch_navy.jpg"): a
 * shop's custom fields dumped as text, a theme's data for a script. Nobody reads it; an image
 * the page shows is an <img>.
 */
function imageAddress(c: number, stats: Stats): boolean {
  const n = stats.text[c]!;
  if (n < 12 || n > 600 || stats.pieces[c] !== 1 || stats.link[c]! > 0) return false;
  // Its one piece of visible text, read where it lies: most elements of a winner pass the checks
  // above, and building each one's textContent cost the pipeline ~3%.
  const text = visibleTextNode(stats.el[c]!);
  return text !== null && IMAGE_ADDRESS.test(text.data);
}

/** The first text node under `el` with visible text (depth-first), or null. */
function visibleTextNode(el: Node): Text | null {
  for (let n = firstChildOf(el); n; n = nextSiblingOf(n)) {
    if (n.nodeType === 3) {
      if (NOT_BLANK_RE.test((n as Text).data)) return n as Text;
    } else if (n.nodeType === 1) {
      const inner = visibleTextNode(n);
      if (inner) return inner;
    }
  }
  return null;
}

const IMAGE_ADDRESS = /^\s*(?:https?:)?\/\/\S+?\.(?:jpe?g|png|gif|webp|avif|svg)(?:[?#]\S*)?\s*$/i;

/**
 * A product page's purchase widgets inside the winner (its price, buy box, variant pickers),
 * the outermost of each, unless they repeat: a grid of products shows a price on every card.
 */
function purchaseWidgets(root: number, stats: Stats): void {
  const { flags, text, end } = stats;
  const found: number[] = [];
  for (let i = root + 1; i < end[root]!;) {
    const f = flags[i]!;
    // A large element named after one (a "product-price-and-cart" wrapper around the
    // description) is looked into.
    if (
      f & Flag.Purchase &&
      !(f & (Flag.Description | Flag.Content)) &&
      text[i]! > 0 &&
      text[i]! < TUNING.purchaseMaxShare * text[root]!
    ) {
      found.push(i);
      i = end[i]!;
    } else i++;
  }
  // The same widget (by class) three times or more, or in an item of a repeated structure, is
  // a card's: a grid or carousel of products shows a price on every card.
  const count = new Map<string, number>();
  const key = (i: number): string => stats.el[i]!.getAttributeNode('class')?.value ?? '';
  for (const i of found) count.set(key(i), (count.get(key(i)) ?? 0) + 1);
  for (const i of found) {
    if (count.get(key(i))! >= TUNING.repeatMin || inRepeatedItem(i, root, stats)) continue;
    stats.purchase.add(i);
  }
}

/**
 * Whether the page's `<h1>` shows the name of a product its JSON-LD declares (or holds it: a
 * brand before the name, a variant after it). A category page that declares a product (its
 * first, its featured one) is titled with the category, which a product's name may hold ("Office
 * Chairs" in "Harbour Office Chairs, Oak"): that does not count.
 */
function titledAsDeclared(stats: Stats, names: string[]): boolean {
  for (let i = 0; i < stats.n; i++) {
    if (stats.el[i]!.localName !== 'h1' || stats.text[i]! === 0) continue;
    const title = nameKey(stats.el[i]!.textContent ?? '');
    if (!title) continue;
    for (const name of names) {
      if (title === name || (name.length >= MIN_NAME && title.includes(name))) return true;
    }
  }
  return false;
}

/** A price: a currency sign or code beside an amount ("$54.02", "149,00 €", "EUR 20"). */
const PRICE =
  /(?:[$€£¥₹]|\b(?:USD|EUR|GBP|AUD|CAD|CHF|zł|kr|Rs\.?))\s?\d|\d(?:[.,]\d{2})?\s?(?:[€£zł]|\b(?:EUR|USD|GBP|kr|Kč|zł|lei)\b)/;

/** Characters from which a title holding a declared name is that product's. */
const MIN_NAME = 8;

/**
 * On one product's page, the cards of other products inside the winner: `repeatMin` or more
 * siblings of one shape, each a short card (several pieces of text, up to `purchaseCardChars`,
 * `repeatItemChars` or more on average) that shows a price and not the declared description.
 * A product page shows one product; a row of priced cards is a carousel of similar, sponsored
 * or recently viewed items, or of add-ons (the benchmark's truths leave them out). The cards
 * need not be links: some carousels open their items by script.
 */
function otherProducts(root: number, stats: Stats): void {
  const { el, text, pieces } = stats;
  forEachSiblingGroup(root, stats, (_p, g) => {
    let sum = 0;
    for (const c of g) {
      sum += text[c]!;
      if (pieces[c]! < TUNING.cardPieces || text[c]! > TUNING.purchaseCardChars || stats.anchored.has(c)) return;
    }
    if (sum < TUNING.repeatItemChars * g.length) return;
    // Products: each card shows a price (a row of the product's own features does not).
    if (!g.every((c) => PRICE.test(el[c]!.textContent ?? ''))) return;
    for (const c of g) stats.otherCards.add(c);
  });
}

/**
 * Calls `fn` with each group of `repeatMin` or more siblings of one shape inside the winner and
 * the element holding them, the cards already found (stats.otherCards) not looked into.
 */
function forEachSiblingGroup(root: number, stats: Stats, fn: (p: number, g: number[]) => void): void {
  const { end } = stats;
  const groups = new Map<string, number[]>();
  for (let p = root; p < end[root]!; p++) {
    // A card's inside is not looked into (found when its parent was).
    if (stats.otherCards.has(p)) {
      p = end[p]! - 1;
      continue;
    }
    if (end[p]! - p < 1 + TUNING.repeatMin) continue;
    groupByShape(p, stats, groups);
    for (const g of groups.values()) if (g.length >= TUNING.repeatMin) fn(p, g);
  }
}

/**
 * Teasers of other stories after the text: `repeatMin` or more siblings of one shape, each a
 * short card (up to `purchaseCardChars`) that opens its story by an image or a heading link,
 * all after most of the winner's text. An article's own lists of links have neither (a
 * resource list's items are sentences), and a listing's grid is the winner, not its tail.
 */
function otherStories(root: number, stats: Stats): void {
  const { text } = stats;
  const total = Math.max(1, text[root]!);
  forEachSiblingGroup(root, stats, (p, g) => {
    let sum = 0;
    for (const c of g) sum += text[c]!;
    if (!g.every((c) => text[c]! <= TUNING.purchaseCardChars)) return;
    // Cards that show prices are products (a category's grid below its introduction), not
    // stories; a comment's "$5k" does not make a thread a grid.
    const teasers =
      (sum <= TUNING.storiesMaxShare * total && afterStory(g[0]!, root, stats) && mostlyTeasers(g, stats)) ||
      // Excerpts cut off mid-sentence ("…with the distribution of 1,500 Christmas hampers on
      // Tuesday, December 1...") are other stories' openings whatever their share of a short
      // story's page: the story is then looked for in what the cards leave. (Every condition is
      // looser than the above, so it is asked only of a group the above refused.)
      (sum <= TUNING.cutStoriesMaxShare * total &&
        excerptsCut(g, stats) &&
        afterStory(g[0]!, root, stats, sum) &&
        mostlyTeasers(g, stats, true));
    if (!teasers) return;
    for (const c of g) stats.otherCards.add(c);
    titleOf(p, g[0]!, root, stats);
  });
}

/**
 * The heading of a grid of teasers ("Recent articles", "More from …"): the sibling with text just
 * before its first card, or before the element that holds the cards and nothing else.
 */
function titleOf(p: number, first: number, root: number, stats: Stats): void {
  const { end, text, parent, flags } = stats;
  let at = first;
  let holder = p;
  // The cards' holder, when it holds nothing else, is the grid: its heading comes before it.
  let others = 0;
  for (let c = p + 1; c < end[p]!; c = end[c]!) if (text[c]! > 0 && !stats.otherCards.has(c)) others++;
  if (others === 0 && p !== root) {
    at = p;
    holder = parent[p]!;
  }
  let before = -1;
  for (let c = holder + 1; c < at; c = end[c]!) if (text[c]! > 0) before = c;
  if (before >= 0 && flags[before]! & Flag.Heading) stats.otherCards.add(before);
}

/**
 * Whether element i comes after the story: an element before it (a sibling of i or of one of
 * the elements around it, inside the winner) holds most of the winner as prose, not links. On a
 * landing page's sections or a grid no element does.
 */
function afterStory(i: number, root: number, stats: Stats, besides = 0): boolean {
  const { end, text, link, parent } = stats;
  const least = TUNING.storiesAfterShare * (text[root]! - besides);
  for (let a = i; a !== root && a >= 0; a = parent[a]!) {
    for (let c = parent[a]! + 1; c < a; c = end[c]!) {
      if (text[c]! >= least && link[c]! < TUNING.storiesLinkDensity * text[c]!) return true;
    }
  }
  return false;
}

/**
 * Sign-up and contact boxes after the story: the largest element around a form (itself
 * furniture, pruned) that holds little beside it (under `formBoxChars`, and under
 * `storiesMaxShare` of the winner with the form), its heading and pitch ("Join our mailing
 * list", "Need a hand? Fill out the form below"). Left without its form, the pitch read as text.
 */
function formBoxes(root: number, stats: Stats): void {
  const { el, end, text, parent } = stats;
  for (let f = root + 1; f < end[root]!; f++) {
    if (el[f]!.localName !== 'form' || (fieldForms !== null && !fieldForms.has(el[f]!))) continue;
    let box = -1;
    // Up to a small part of the winner: on a short page the story is near the form's size.
    const most = Math.min(TUNING.formBoxChars + text[f]!, TUNING.storiesMaxShare * text[root]!);
    for (let a = parent[f]!; a !== root && a >= 0 && text[a]! <= most; a = parent[a]!) box = a;
    if (box >= 0 && text[box]! > text[f]! && afterStory(box, root, stats)) stats.otherCards.add(box);
    f = end[f]! - 1;
  }
}

/**
 * Author boxes after the story: the largest small element (as for a sign-up box) around a link
 * to an author's page (`rel=author`, a path through /author/ or /authors/): the writer's photo,
 * bio and "View all posts by". A byline above the text is not after the story.
 */
function authorBoxes(root: number, stats: Stats): void {
  const { el, end, text, parent } = stats;
  for (let f = root + 1; f < end[root]!; f++) {
    const e = el[f]!;
    if (e.localName !== 'a' || !isAuthorLink(e)) continue;
    let box = -1;
    const most = Math.min(TUNING.authorBoxChars, TUNING.storiesMaxShare * text[root]!);
    // One heading at most (the writer's name): two are sections of the text ("How we test",
    // then "Who wrote this").
    for (let a = parent[f]!; a !== root && a >= 0 && text[a]! <= most && headings(a, stats) < 2; a = parent[a]!) {
      box = a;
    }
    if (box >= 0 && afterStory(box, root, stats)) {
      stats.otherCards.add(box);
      f = end[box]! - 1;
    }
  }
}

/**
 * An author box the page marks as one, wherever it stands: microdata's author (`itemprop="author"`)
 * around a description (`itemprop="description"`, or an element named as one): the bio that the
 * Simple Author Box, Starbox and theme author boxes write. A byline names its author without
 * describing them, and a forum post's author card carries no description. Small, as
 * `authorBoxes` asks of a box found by its link.
 */
function describedAuthors(root: number, stats: Stats): void {
  const { end, text, flags } = stats;
  const most = Math.min(TUNING.authorBoxChars, TUNING.storiesMaxShare * text[root]!);
  for (let f = root + 1; f < end[root]!; f++) {
    if (!(flags[f]! & Flag.Author) || text[f]! === 0 || text[f]! > most) continue;
    let described = false;
    for (let c = f + 1; c < end[f]! && !described; c++)
      described = text[c]! > 0 && (flags[c]! & Flag.Description) !== 0;
    if (!described) continue;
    stats.otherCards.add(f);
    f = end[f]! - 1;
  }
}

const ITEMPROP_AUTHOR = /(?:^|\s)author(?:\s|$)/i;

function headings(i: number, stats: Stats): number {
  let n = 0;
  for (let c = i; c < stats.end[i]!; c++) if (stats.flags[c]! & Flag.Heading) n++;
  return n;
}

const AUTHOR_PATH = /\/authors?\/[^/?#]/i;

function isAuthorLink(a: Element): boolean {
  const rel = a.getAttribute('rel');
  if (rel && /(?:^|\s)author(?:\s|$)/i.test(rel)) return true;
  return AUTHOR_PATH.test(a.getAttribute('href') ?? '');
}

/**
 * Two thirds or more of the cards show a date and end in an excerpt cut off with an ellipsis
 * ("December 1...", "a new […]"): openings of other stories.
 */
function excerptsCut(g: number[], stats: Stats): boolean {
  let misses = 0;
  for (const c of g) {
    const card = stats.el[c]!;
    // The ending is read from the card's last characters (a group of a story's own paragraphs
    // is asked too); the date, from its whole text only when it ends so.
    const cut =
      CUT_EXCERPT.test(textEnding(card)) &&
      (DATED.test(card.textContent ?? '') || card.getElementsByTagName('time').length > 0);
    if (!cut && 3 * ++misses > g.length) return false;
  }
  return true;
}

/**
 * The end of an element's text, as long as CUT_EXCERPT can look back (a word's last character, a
 * space and a bracketed ellipsis: 7 characters that are not blank) and no longer: its text nodes
 * read from the last, not its whole textContent, and the last one cut there (CUT_EXCERPT, anchored
 * at the end only, would try every position of a long paragraph).
 */
function textEnding(el: Element): string {
  let ending = '';
  let solid = 0;
  for (let n: Node | null = el.lastChild; n && n !== el;) {
    if (n.nodeType === 1 && n.lastChild) {
      n = n.lastChild;
      continue;
    }
    if (n.nodeType === 3 || n.nodeType === 4) {
      const data = (n as CharacterData).data;
      let i = data.length - 1;
      for (; i >= 0 && solid < 7; i--) if (!isSpace(data.charCodeAt(i))) solid++;
      if (solid >= 7) return data.slice(i + 1) + ending;
      ending = data + ending;
    }
    while (n && n !== el && !n.previousSibling) n = n.parentNode;
    n = n && n !== el ? n.previousSibling : null;
  }
  return ending;
}

/**
 * A date as story cards show one: "December 19, 2025", "19 Dec 2025", "2025-12-19", "3 days ago".
 * (A hub's own list of its sections, excerpts cut as well, shows none.)
 */
const DATED =
  /(?:\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2},? \d{4}|(?<!\d)\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{4}|(?<!\d)\d{4}-\d{2}-\d{2}|(?<!\d)\d{1,2}[./]\d{1,2}[./]\d{2,4}|(?<!\d)\d+ (?:minutes?|hours?|days?|weeks?|months?) ago)(?!\d)/i;

/** Text that ends in an ellipsis right after a word, a bracketed one included, then blanks. */
const CUT_EXCERPT = /[\p{L}\p{N},;]\s?(?:\.\.\.|…|\[(?:\.\.\.|…)\])\s*$/u;

/** A card with a link to another page (not a permalink of a section here). */
function linksAway(card: Element): boolean {
  for (const a of card.getElementsByTagName('a')) if (!(a.getAttribute('href') ?? '#').startsWith('#')) return true;
  return false;
}

/** A card that links to its story by an image or a heading (a teaser), not by a word of a sentence. */
function opensByTeaser(card: Element): boolean {
  for (const a of card.getElementsByTagName('a')) {
    // A heading's permalink (a section of the same page) is not another story.
    if ((a.getAttribute('href') ?? '#').startsWith('#')) continue;
    if (holdsTeaserPart(a)) return true;
    for (let up = a.parentElement; up; up = up.parentElement) if (TEASER_HEADING.has(up.localName)) return true;
  }
  return false;
}

const TEASER_HEADING = new Set(['h2', 'h3', 'h4', 'h5', 'h6']);

/**
 * An image or a heading (h2–h6) inside the element: a walk in document order, not a selector
 * (linkedom compiles one at each call).
 */
function holdsTeaserPart(e: Element): boolean {
  let c = e.firstElementChild;
  while (c) {
    if (c.localName === 'img' || TEASER_HEADING.has(c.localName)) return true;
    if (c.firstElementChild) {
      c = c.firstElementChild;
      continue;
    }
    while (c && c !== e && !c.nextElementSibling) c = c.parentElement;
    c = c && c !== e ? c.nextElementSibling : null;
  }
  return false;
}

/**
 * Whether an element sits in one of several siblings of one shape (a card of a grid, a row of
 * a list): `repeatMin` or more, named by a class or list-like (li, article, tr).
 */
function inRepeatedItem(i: number, root: number, stats: Stats): boolean {
  const { parent, end, el } = stats;
  for (let a = i; a !== root && a >= 0; a = parent[a]!) {
    const p = parent[a]!;
    if (p < 0) break;
    const e = el[a]!;
    if (stats.text[a]! > TUNING.purchaseCardChars) break; // a column of the page, not a card
    // A card links to its product; the rows of a buy box (size, quantity) do not.
    if (stats.link[a] === 0 || (!e.hasAttribute('class') && !ITEM_TAGS.has(e.localName))) continue;
    const shape = shapeOf(e);
    let same = 0;
    for (let c = p + 1; c < end[p]! && same < TUNING.repeatMin; c = end[c]!) {
      if (stats.text[c]! > 0 && shapeOf(el[c]!) === shape) same++;
    }
    if (same >= TUNING.repeatMin) return true;
  }
  return false;
}

const ITEM_TAGS = new Set(['li', 'article', 'tr']);

/** Characters a post's body holds at least, outside a comment section, to be read as a post. */
const POST_BODY_CHARS = 80;
/** Characters each reply's body holds at least. */
const REPLY_BODY_CHARS = 20;

/**
 * A comment section that continues the thread the winner opens: two or more of its bodies have
 * the shape (tag and first class name) of a post's body outside it. A forum prints the opening
 * post and its replies with one template ("Message userContent" in both), where a blog's
 * comments have a template of their own ("entry-content" against "comment-content"): the
 * replies are then what the page is, not an appendix of an article.
 */
function repliesOfThread(i: number, root: number, stats: Stats): boolean {
  const { end, text } = stats;
  const posts = (stats.postBodies ??= postBodyShapes(root, stats));
  if (!posts.size) return false;
  const inside = new Map<string, number>();
  for (let c = i + 1; c < end[i]!; c++) {
    if (text[c]! < REPLY_BODY_CHARS) {
      c = end[c]! - 1;
      continue;
    }
    const shape = classShape(c, stats);
    if (!shape || !posts.has(shape)) continue;
    const n = (inside.get(shape) ?? 0) + 1;
    if (n >= 2) return true;
    inside.set(shape, n);
  }
  return false;
}

/** An element's shape when it has a class (a bare tag is no template). */
const classShape = (c: number, stats: Stats): string | null =>
  stats.el[c]!.getAttributeNode('class') ? (stats.shapes[c] ??= shapeOf(stats.el[c]!)) : null;

/**
 * The shapes a post's body may have, read once a page: each the one element of its shape outside
 * the winner's comment sections, holding half or more of what is outside them (a class every
 * element wears, a utility framework's, is no template).
 */
function postBodyShapes(root: number, stats: Stats): Set<string> {
  const { end, text, flags } = stats;
  const outside = new Map<string, { n: number; chars: number }>();
  for (let c = root + 1; c < end[root]!; c++) {
    if (flags[c]! & Flag.Comments || text[c]! < POST_BODY_CHARS) {
      c = end[c]! - 1;
      continue;
    }
    const shape = classShape(c, stats);
    if (!shape) continue;
    const seen = outside.get(shape) ?? { n: 0, chars: 0 };
    seen.n++;
    seen.chars = Math.max(seen.chars, text[c]!);
    outside.set(shape, seen);
  }
  const posts = new Set<string>();
  for (const [shape, seen] of outside) if (seen.n === 1 && 2 * seen.chars >= stats.besideComments) posts.add(shape);
  return posts;
}

function shouldPrune(i: number, root: number, stats: Stats): boolean {
  const { text, link, flags } = stats;
  if (text[i] === 0 || stats.anchored.has(i)) return false; // images, rules and breaks stay
  const share = text[i]! / Math.max(1, text[root]!);
  if (flags[i]! & Flag.Label) return true;
  if (isFurniture(i, stats, text[root]!)) return true;
  // On a page that is a thread (`Stats.thread`) its comments are the content.
  if (
    flags[i]! & Flag.Comments &&
    !stats.thread &&
    (share < 0.5 ||
      stats.besideComments >= TUNING.articleBesideComments ||
      // Titled ("10 comments:", "Leave a reply"): the post's appendix however long, unless it is
      // nearly the whole winner (then the page is the thread).
      (share < TUNING.titledCommentsMaxShare && opensWithAsideHeading(i, stats))) &&
    !(flags[i]! & Flag.Content) &&
    !repliesOfThread(i, root, stats)
  )
    return true;
  if (flags[i]! & Flag.Reviews && stats.product && share < TUNING.reviewsMaxShare) return true;
  if (stats.purchase.has(i)) return true;
  if (flags[i]! & (Flag.Heading | Flag.Pre)) return false;
  if (share < 0.3 && opensWithAsideHeading(i, stats)) return true;
  if (recirculationLine(i, stats)) return true;
  // Link lists go as a whole (a block of "related" links); single items and cells of a list
  // that belongs to the content (a docs index, a table of links) stay.
  const el = stats.el[i]!;
  if (LIST_PARTS.has(el.localName) || share > 0.3) return false;
  if (LIST_PARTS.has(el.parentElement?.localName ?? '')) return false; // a nested list is part of its item
  // In a page that is mostly links (a wiki index, a link collection) the lists are the content.
  if (link[root]! / Math.max(1, text[root]!) > TUNING.linkPageDensity) return false;
  return stats.score[i]! < 0 && link[i]! / text[i]! > TUNING.pruneLinkDensity;
}

// Sections a page appends to its content, recognised by the heading they open with.
const ASIDE_HEADING =
  /^\s*(?:related\b|trending|popular|recommended|more (?:from|stories|articles|news|in|like this|to (?:read|explore))|you (?:may|might) (?:also )?(?:like|enjoy|be interested)|read (?:more|next|also|this next)|also read|keep reading|(?:what|more) to read|editor'?s'? picks|don'?t miss|all reads|more on (?:this|the) (?:topic|story)|recent (?:posts|articles|stories)|latest (?:news|posts|stories|articles)|further reading|share (?:this|on)|about the (?:authors?|reviewers?|writers?|editors?|contributors?)\b|leave a (?:reply|comment)|\d*\s*comments?\b|(?:customer |product |user |\d+\s+)?reviews\b|ratings (?:&|and) reviews|(?:customer )?questions (?:&|and) answers|(?:sign up|subscribe) (?:for|to)|(?:people|customers|shoppers) (?:who|also|frequently)\b|(?:seller|customer) feedback\b|(?:user |customer )?testimonials\b|detailed seller ratings|products related to|(?:similar|related|recommended|sponsored|featured) (?:items|products)|(?:explore|shop|see|discover) (?:related|similar|more)\b|frequently bought|recently viewed|complete the look|shop the look)/i;

/**
 * A line the publisher drops between paragraphs to send the reader to another story: a label and
 * one link ("Also read: …", "Related: …"), the link most of the line. "Read more: …" is not among
 * the labels: the truths keep such lines as often as they drop them.
 */
function recirculationLine(i: number, stats: Stats): boolean {
  const { text, link } = stats;
  if (text[i]! > TUNING.recirculationChars || link[i]! < 0.5 * text[i]!) return false;
  // One link in the subtree, counted on the walk's own arrays (every element of the subtree is
  // there in document order: the parse caps the tree's depth well under MAX_DEPTH): a list of the
  // subtree's anchors for each candidate cost the winner's pruning a fifth of its time on pages
  // of many small linked blocks.
  let anchors = 0;
  for (let c = i + 1; c < stats.end[i]!; c++) if (stats.el[c]!.localName === 'a' && ++anchors > 1) return false;
  if (anchors !== 1) return false;
  return RECIRCULATION_LABEL.test(stats.el[i]!.textContent ?? '');
}

const RECIRCULATION_LABEL =
  /^\s*(?:also read|read also|related(?: (?:article|story|post|reading|content))?|must read|don'?t miss|recommended(?: reading)?|further reading|read next|you (?:may|might) also like)\s*[:|–—-]/i;

function opensWithAsideHeading(i: number, stats: Stats): boolean {
  const first = firstHeading(i, 3, stats);
  if (first) return ASIDE_HEADING.test(first.textContent ?? '');
  const line = firstLine(i, 3, stats);
  return line >= 0 && RECIRCULATION_TITLE.test(stats.el[line]!.textContent ?? '');
}

/**
 * The titles of sections that send the reader elsewhere, as a line that is no heading may
 * spell them. Not reviews, comments, "popular" or "latest": a short bold line of such words
 * opens a page's own content as often (a game's user reviews, an article about reviews).
 */
const RECIRCULATION_TITLE =
  /^\s*(?:related (?:articles|stories|posts|content|reading)|recommended (?:for you|reading|articles|stories)|more (?:from|stories|articles|like this|to (?:read|explore))|you (?:may|might) (?:also )?(?:like|enjoy|be interested)|read (?:next|also|this next)|also read|keep reading|(?:what|more) to read|further reading|don'?t miss|editor'?s'? picks|(?:popular|trending) (?:posts|stories|articles|now)|(?:people|customers|shoppers) who\b|(?:similar|related|recommended|sponsored|featured) (?:items|products)|(?:explore|shop|see|discover) (?:related|similar)\b)/i;

/** Characters of a line styled as a section's title (a bold <p>, a <div>) at most. */
const TITLE_LINE_CHARS = 60;

/**
 * A section titled by a line that is no heading element: utility-class themes set "You might
 * also be interested in…" as a large bold <p> above the teasers. The section's first text is
 * such a line when it is a <p> or <div> of its own, short, holds no link and is followed by more
 * of the section (a bold phrase opening a paragraph is not a title).
 */
function firstLine(i: number, depth: number, stats: Stats): number {
  if (depth === 0 || stats.depth[i]! > MAX_DEPTH) return -1;
  for (let c = i + 1; c < stats.end[i]!; c = stats.end[c]!) {
    if (!stats.hasText[c]) continue;
    if (stats.text[c]! <= TITLE_LINE_CHARS && stats.link[c] === 0 && stats.end[c]! < stats.end[i]!)
      return TITLE_TAGS.has(stats.el[c]!.localName) ? c : -1;
    return firstLine(c, depth - 1, stats);
  }
  return -1;
}

const TITLE_TAGS = new Set(['p', 'div']);

/** The first heading among the first few elements at the top of element i (itself included). */
function firstHeading(i: number, depth: number, stats: Stats): Element | null {
  const el = stats.el[i]!;
  if (HEADING.has(el.localName)) return el;
  if (depth === 0) return null;
  // Below MAX_DEPTH the walk did not measure the children: read them in the document.
  if (stats.depth[i]! > MAX_DEPTH) return firstHeadingUnmeasured(el, depth);
  for (let c = i + 1, seen = 0; c < stats.end[i]! && seen < 2; c = stats.end[c]!, seen++) {
    const h = firstHeading(c, depth - 1, stats);
    if (h) return h;
    // Text before any heading: not a titled section (measured: no textContent walk here).
    if (stats.hasText[c]) return null;
  }
  return null;
}

function firstHeadingUnmeasured(el: Element, depth: number): Element | null {
  if (HEADING.has(el.localName)) return el;
  if (depth === 0) return null;
  let seen = 0;
  for (let c = el.firstElementChild; c && seen < 2; c = c.nextElementSibling, seen++) {
    const h = firstHeadingUnmeasured(c, depth - 1);
    if (h) return h;
    if ((c.textContent ?? '').trim()) return null;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// The learned refinement (block-model.ts): the winner's leaf blocks (p, li, td, headings, a div
// with text of its own and no block inside) are described by the figures the walk measured and
// where they sit, and a model trained on the development split leaves out those it judges
// boilerplate. The features describe the page's structure, never a site.

/** The shipped model, and an observer the training script reads the blocks and features with. */
export const REFINE: {
  model: BlockModel | null;
  observe: ((blocks: Element[], features: Float64Array) => void) | null;
} = { model: BLOCK_MODEL, observe: null };

/** Ancestor marks (within the winner, the block itself included), one feature each. */
const CONTEXT = [
  'nav',
  'aside',
  'footer',
  'header',
  'form',
  'li',
  'table',
  'link',
  'quote',
  'figure',
  'dl',
  'boiler',
  'boiler_name',
  'comments',
  'reviews',
  'content_name',
  'semantic',
  'description',
  'purchase',
  'article_header',
  'anchored',
  'card',
] as const;
const CONTEXT_TAGS: Record<string, number> = {
  nav: 1 << 0,
  aside: 1 << 1,
  footer: 1 << 2,
  header: 1 << 3,
  form: 1 << 4,
  li: 1 << 5,
  td: 1 << 6,
  th: 1 << 6,
  table: 1 << 6,
  a: 1 << 7,
  blockquote: 1 << 8,
  figure: 1 << 9,
  figcaption: 1 << 9,
  dl: 1 << 10,
  dd: 1 << 10,
  dt: 1 << 10,
};
const C_BOILER = 1 << 11;
/** The context bit of a block inside a listing's card (stats.card). */
const C_CARD = 1 << 21;

function contextOf(k: number, stats: Stats): number {
  const f = stats.flags[k]!;
  let b = CONTEXT_TAGS[stats.el[k]!.localName] ?? 0;
  if (f & Flag.Boiler) b |= C_BOILER;
  if (f & Flag.BoilerName) b |= 1 << 12;
  if (f & Flag.Comments) b |= 1 << 13;
  if (f & Flag.Reviews) b |= 1 << 14;
  if (f & Flag.Content) b |= 1 << 15;
  if (f & Flag.Semantic) b |= 1 << 16;
  if (f & Flag.Description) b |= 1 << 17;
  if (f & Flag.Purchase) b |= 1 << 18;
  if (f & Flag.ArticleHeader) b |= 1 << 19;
  if (stats.anchored.has(k)) b |= 1 << 20;
  if (stats.card.has(k)) b |= C_CARD;
  return b;
}

/** Marks of the winner and the elements around it. */
const ROOT_CONTEXT = ['root_boiler', 'root_comments', 'root_semantic', 'root_content_name', 'root_li', 'root_link'];
const ROOT_BITS = [C_BOILER, 1 << 13, 1 << 16, 1 << 15, 1 << 5, 1 << 7];

const TAGS = ['p', 'h1_h2', 'h3_h6', 'div', 'pre', 'cell', 'li', 'other'] as const;
const tagIndex = (t: string): number =>
  t === 'p'
    ? 0
    : t === 'h1' || t === 'h2'
      ? 1
      : HEADING.has(t)
        ? 2
        : t === 'div'
          ? 3
          : t === 'pre'
            ? 4
            : t === 'td' || t === 'th'
              ? 5
              : t === 'li'
                ? 6
                : 7;

const NUMERIC = [
  'log_chars',
  'link_density',
  'log_anchors',
  'log_puncts',
  'fragment',
  'value_per_char',
  'share_of_winner',
  'position_in_winner',
  'after_in_winner',
  'position_in_page',
  'depth_below_winner',
  'rank_in_winner',
  'parent_share',
  'parent_link_density',
  'parent_score_per_char',
  'log_siblings',
  'log_same_shape',
  'log_same_size',
  'winner_log_chars',
  'winner_share_of_page',
  'winner_link_density',
  'page_link_density',
  'relative_link_density',
  'log_blocks',
  'listing_reading',
  'product_page',
  'digit_share',
  'upper_word_share',
  'log_words',
  'mean_word_chars',
  'ends_sentence',
  'log_blocks_since_heading',
  'under_aside_heading',
] as const;

/** The features of a block, in the order of the columns blockFeatures fills. */
export const BLOCK_FEATURES: readonly string[] = [
  ...NUMERIC,
  ...TAGS.map((t) => `tag_${t}`),
  ...CONTEXT.map((c) => `in_${c}`),
  ...ROOT_CONTEXT,
];
const WIDTH = BLOCK_FEATURES.length;
const TAG_AT = NUMERIC.length;
const CONTEXT_AT = TAG_AT + TAGS.length;
const ROOT_AT = CONTEXT_AT + CONTEXT.length;

/** A block with text of its own and no block with text inside: the unit the model judges. */
const isLeafBlock = (k: number, stats: Stats): boolean =>
  stats.ownText[k]! > 0 && stats.ownText[k] === stats.text[k] && BLOCK.has(stats.el[k]!.localName);

let features = new Float64Array(64 * WIDTH);
/** Models whose feature names were found to be BLOCK_FEATURES. */
const checked = new WeakSet<BlockModel>();

function refine(root: number, stats: Stats, pruned: Set<Element>): void {
  const { el, end, parent, text, link, ownText, ownLink } = stats;
  const blocks: number[] = [];
  const context: number[] = [];
  const before: number[] = [];
  let seen = 0;
  const walk = (i: number, ctx: number): void => {
    for (let k = i + 1; k < end[i]!; k = end[k]!) {
      if (text[k] === 0 || pruned.has(el[k]!)) continue;
      const c = ctx | contextOf(k, stats);
      if (isLeafBlock(k, stats)) {
        blocks.push(k);
        context.push(c);
        before.push(seen);
        seen += text[k]!;
      } else walk(k, c);
    }
  };
  if (isLeafBlock(root, stats)) return; // one block: nothing to weigh it against
  walk(root, 0);
  const n = blocks.length;
  if (n < 2) return;
  let rootCtx = 0;
  for (let a = root; a >= 0; a = parent[a]!) rootCtx |= contextOf(a, stats);
  // Characters of the page before the winner (its preceding siblings and theirs, upwards).
  let pageBefore = 0;
  for (let a = root; parent[a]! >= 0; a = parent[a]!) {
    for (let c = parent[a]! + 1; c < a; c = end[c]!) pageBefore += text[c]!;
  }
  const pageText = Math.max(1, text[0]!);
  const rootText = Math.max(1, seen);
  const pageLd = link[0]! / pageText;
  const rootLd = link[root]! / Math.max(1, text[root]!);
  // Repetition inside the winner: blocks of one shape (tag and parent's shape), of one size.
  const shapes = new Map<string, number>();
  const sizes = new Map<number, number>();
  const shapeKey: string[] = [];
  // Per parent (blocks share them: the items of one list): its shape and its children.
  const parentShape = new Map<number, string>();
  const children = new Map<number, number>();
  for (const k of blocks) {
    const p = parent[k]!;
    let ps = parentShape.get(p);
    if (ps === undefined) {
      ps = shapeOf(el[p]!);
      parentShape.set(p, ps);
      let count = 0;
      for (let c = p + 1; c < end[p]!; c = end[c]!) count++;
      children.set(p, count);
    }
    const key = `${el[k]!.localName}>${ps}`;
    shapeKey.push(key);
    shapes.set(key, (shapes.get(key) ?? 0) + 1);
    const size = ownText[k]! * 4096 + ownLink[k]!;
    sizes.set(size, (sizes.get(size) ?? 0) + 1);
  }
  // One buffer for every page (a large listing has thousands of blocks).
  if (features.length < n * WIDTH) features = new Float64Array(2 * n * WIDTH);
  const x = features;
  x.fill(0, 0, n * WIDTH);
  let sinceHeading = 100;
  let asideHeading = 0;
  for (let r = 0; r < n; r++) {
    const k = blocks[r]!;
    const o = r * WIDTH;
    const t = ownText[k]!;
    const tag = el[k]!.localName;
    const p = parent[k]!;
    if (HEADING.has(tag)) {
      sinceHeading = 0;
      asideHeading = ASIDE_HEADING.test(el[k]!.textContent ?? '') ? 1 : 0;
    } else sinceHeading++;
    const siblings = children.get(p)!;
    const words = wordsOf(k, stats);
    x[o] = Math.log1p(t);
    x[o + 1] = ownLink[k]! / t;
    x[o + 2] = Math.log1p(stats.ownAnchors[k]!);
    x[o + 3] = Math.log1p(stats.ownPuncts[k]!);
    x[o + 4] = stats.frag[k]!;
    x[o + 5] = stats.own[k]! / t;
    x[o + 6] = t / rootText;
    x[o + 7] = before[r]! / rootText;
    x[o + 8] = (rootText - before[r]! - t) / rootText;
    x[o + 9] = (pageBefore + before[r]!) / pageText;
    x[o + 10] = stats.depth[k]! - stats.depth[root]!;
    x[o + 11] = r / n;
    x[o + 12] = text[p]! / rootText;
    x[o + 13] = link[p]! / Math.max(1, text[p]!);
    x[o + 14] = stats.score[p]! / Math.max(1, text[p]!);
    x[o + 15] = Math.log1p(siblings);
    x[o + 16] = Math.log1p(shapes.get(shapeKey[r]!)! - 1);
    x[o + 17] = Math.log1p(sizes.get(t * 4096 + ownLink[k]!)! - 1);
    x[o + 18] = Math.log1p(rootText);
    x[o + 19] = rootText / pageText;
    x[o + 20] = rootLd;
    x[o + 21] = pageLd;
    x[o + 22] = ownLink[k]! / t - pageLd;
    x[o + 23] = Math.log1p(n);
    x[o + 24] = stats.listingChosen ? 1 : 0;
    x[o + 25] = stats.product ? 1 : 0;
    x[o + 26] = words.digits / t;
    x[o + 27] = words.upper / Math.max(1, words.words);
    x[o + 28] = Math.log1p(words.words);
    x[o + 29] = words.letters / Math.max(1, words.words);
    x[o + 30] = words.endsSentence;
    x[o + 31] = Math.log1p(sinceHeading);
    x[o + 32] = asideHeading;
    x[o + TAG_AT + tagIndex(tag)] = 1;
    const c = context[r]!;
    for (let b = 0; b < CONTEXT.length; b++) if (c & (1 << b)) x[o + CONTEXT_AT + b] = 1;
    for (let b = 0; b < ROOT_BITS.length; b++) if (rootCtx & ROOT_BITS[b]!) x[o + ROOT_AT + b] = 1;
  }
  if (REFINE.observe)
    REFINE.observe(
      blocks.map((k) => el[k]!),
      x.slice(0, n * WIDTH),
    );
  const model = REFINE.model;
  if (!model) return;
  if (!checked.has(model)) {
    if (model.features.join() !== BLOCK_FEATURES.join()) {
      throw new Error('the block model was trained on other features: run scripts/train-block-model.ts');
    }
    checked.add(model);
  }
  const cut = Math.log(model.threshold / (1 - model.threshold));
  const logit = new Float64Array(n);
  const order: number[] = [];
  for (let r = 0; r < n; r++) {
    // Headings and code stay whatever the model says: the benchmark's truths leave an
    // article's title out, but the markdown is read without the page around it. So does a
    // price of a grid (a card's, or one of three or more blocks of its shape in the winner): a
    // listing whose cards lost their prices (the truths of some shops keep a card's
    // screen-reader sentence instead) is no use to a reader.
    const tag = el[blocks[r]!]!.localName;
    if (HEADING.has(tag) || tag === 'pre') continue;
    logit[r] = blockLogit(model, x, r);
    if (logit[r]! < cut) continue;
    // Asked only of the blocks the model would leave out: reading every block's text for a
    // price cost more than the model on pages of prose, whose paragraphs share one shape.
    if (
      (context[r]! & C_CARD || shapes.get(shapeKey[r]!)! >= TUNING.repeatMin) &&
      PRICE.test(el[blocks[r]!]!.textContent ?? '')
    ) {
      continue;
    }
    order.push(r);
  }
  // The most certain first, until the share of the winner the model may leave out.
  order.sort((a, b) => logit[b]! - logit[a]!);
  let budget = model.maxDrop * rootText;
  const rows = tableRowsOf(order, blocks, root, rootText, stats);
  for (const r of order) {
    const k = blocks[r]!;
    // A data table's cell goes only with its whole row: a value left out of a row reads as if
    // the page had left it blank ("| Dutchware | $142 | | 4.7 |").
    const row = rows.get(k);
    if (row === null) continue;
    const out = row ?? k;
    if (pruned.has(el[out]!)) continue;
    if (text[out]! > budget) continue;
    budget -= text[out]!;
    pruned.add(el[out]!);
  }
}

/**
 * For each block the model would leave out that sits in a row of a data table, the row it goes
 * with: the row itself when the model would leave out every block of it (a row left empty would
 * still be written), null (the block stays) when it would keep one. A row that holds half of the
 * winner is a layout table's (a sidebar's column beside the story's): its blocks are blocks like
 * any other and are not in the map.
 */
function tableRowsOf(
  order: number[],
  blocks: number[],
  root: number,
  rootText: number,
  stats: Stats,
): Map<number, number | null> {
  const rows = new Map<number, number | null>();
  const { el, parent, text } = stats;
  const rowOf = (k: number): number => {
    for (let a = parent[k]!; a > root; a = parent[a]!) if (el[a]!.localName === 'tr') return a;
    return -1;
  };
  const candidates = new Map<number, number>();
  const counts = new Map<number, { all: number; out: number }>();
  for (const r of order) {
    const k = blocks[r]!;
    const row = rowOf(k);
    if (row < 0 || text[row]! * 2 >= rootText) continue;
    candidates.set(k, row);
    counts.set(row, { all: 0, out: 0 });
  }
  if (!counts.size) return rows;
  for (const k of blocks) {
    const row = rowOf(k);
    const count = counts.get(row);
    if (!count) continue;
    count.all++;
    if (candidates.has(k)) count.out++;
  }
  for (const [k, row] of candidates) {
    const count = counts.get(row)!;
    rows.set(k, count.out === count.all ? row : null);
  }
  return rows;
}

/** Word figures of a block's text: words, letters, digits, capitalised words, a closing stop. */
const words = { words: 0, letters: 0, digits: 0, upper: 0, endsSentence: 0 };

/**
 * The word figures of a leaf block (isLeafBlock: all its text is its own), as the measuring walk
 * counted them (readText): the block's text is not read again. The shared object is reused by
 * the next call: read it before that.
 */
function wordsOf(k: number, stats: Stats): typeof words {
  const w = WORD_FIGURES * k;
  const last = stats.ownWords[w + 3]!;
  words.words = stats.ownWords[w]!;
  words.digits = stats.ownWords[w + 1]!;
  words.letters = stats.ownText[k]! - words.digits;
  words.upper = stats.ownWords[w + 2]!;
  words.endsSentence = last === 46 || last === 33 || last === 63 || last === 0x3002 ? 1 : 0;
  return words;
}

/** Iteration aid (explain-page.ts): the best candidates under both readings of the page. */
export function explainCandidates(
  body: Element,
  top = 8,
  names = new NameMatcher(),
  find?: string,
  forms: ReadonlySet<Element> | null = null,
): string[] {
  const stats = new Stats();
  fieldForms = forms;
  try {
    measure(body, -1, 0, false, -1, 0, stats, names);
  } finally {
    fieldForms = null;
  }
  const pageText = stats.n ? stats.text[0]! : 0;
  const out: string[] = [];
  for (const own of [stats.own, listingValues(stats)]) {
    stats.score = new Float64Array(stats.score.length);
    score(stats, pageText, own);
    const order = [...Array(stats.n).keys()].sort((a, b) => stats.score[b]! - stats.score[a]!).slice(0, top);
    out.push(own === stats.own ? '-- normal reading' : '-- listing reading');
    if (find) {
      let at = -1;
      for (let i = 0; i < stats.n; i++) if ((stats.el[i]!.textContent ?? '').includes(find)) at = i;
      for (let i = at; i >= 0; i = stats.parent[i]!) order.push(i);
    }
    for (const i of order) {
      const el = stats.el[i]!;
      const cls = (el.getAttribute('class') ?? '').trim().split(/\s+/).slice(0, 2).join('.');
      out.push(
        `  ${stats.score[i]!.toFixed(0)} text=${stats.text[i]} link=${stats.link[i]} flags=${stats.flags[i]} ${el.localName}${el.id ? '#' + el.id : ''}${cls ? '.' + cls : ''}`,
      );
    }
  }
  return out;
}
