import { CAPTCHA_MARKUP, CHALLENGE_MARKUP, includesAny } from './markers.js';

/** What a page's markup says, read once from the parsed document before any cleaning. */
export interface PageFeatures {
  title: string;
  h1: string;
  /**
   * The opening of the body's visible text (scripts, styles, templates and noscript left out),
   * collapsed: its first TEXT_KEPT characters, all the verdict reads of it.
   */
  text: string;
  /** Words of the visible text, counted up to WORDS_COUNTED (the verdict's bounds are under it). */
  words: number;
  links: number;
  nav: boolean;
  main: boolean;
  jsonLd: boolean;
  openGraph: boolean;
  scripts: number;
  noscriptText: string;
  /** A root element single-page apps mount into (#root, #app, #__next, …), empty of text. */
  appRoot: boolean;
  listItems: number;
  tableRows: number;
  forms: number;
  inputs: number;
  passwordInputs: number;
  /** Markup of a challenge page or captcha widget, found in the raw HTML. */
  challengeMarkup?: string;
  captchaMarkup?: string;
}

/** Ids of the roots single-page apps mount into; `app-root`, `[data-reactroot]` and `[ng-app]` follow them. */
const ROOT_IDS = ['root', 'app', '__next', '__nuxt', '___gatsby', 'svelte'];
const APP_ROOT_TAG = ROOT_IDS.length;
const REACT_ROOT = APP_ROOT_TAG + 1;
const NG_APP = APP_ROOT_TAG + 2;
/** By local name, which the HTML parser lower-cases (tagName is its upper-case copy, made at each read). */
const INVISIBLE = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head']);
/** Elements after whose text a space separates words (visible text has no layout to do it). */
const BLOCK_BREAK = new Set(['p', 'div', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'br', 'section', 'article']);

/**
 * Any marker, in any letter case. The markers are ASCII, so ASCII case folding (`i` without `u`)
 * is what they need, and it reads a 186 KB page in ~0.8 ms where Unicode folding takes ~1.2.
 */
const ANY_MARKUP = new RegExp(
  [...CHALLENGE_MARKUP, ...CAPTCHA_MARKUP].map((m) => m.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'),
  'i',
);

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** A node as linkedom links it: its type, and its links under linkedom's symbols. */
interface Linked {
  nodeType: number;
  [link: symbol]: Linked | null;
}
/** linkedom's end marker of an element. */
const END_NODE = -1;
const ATTRIBUTE_NODE = 2;

/**
 * linkedom's own links between nodes (the next in document order, an element's end marker, the
 * element an end marker closes), found on the document as linkedom exports no names for them
 * (libs/content's surveyDocument reads them the same way); null when they are not there.
 */
export interface DocumentLinks {
  next: symbol;
  end: symbol;
  start: symbol;
}
const linksOf = (doc: Document): DocumentLinks | null => {
  const own = (o: object, name: string) => Object.getOwnPropertySymbols(o).find((s) => s.description === name);
  const next = own(doc, 'next');
  const end = own(doc, 'end');
  const marker = end && (doc as unknown as Linked)[end];
  const start = marker && own(marker, 'start');
  return next && end && start ? { next, end, start } : null;
};

/**
 * What PageFeatures keeps of the visible text: the verdict reads its first 400 characters and
 * compares its words with bounds under 300. Collapsing and counting a long page's whole text was
 * a third of the features' time (~0.35 of ~0.5 ms on a 30 KB article).
 */
export const TEXT_KEPT = 1000;
export const WORDS_COUNTED = 1000;

/**
 * Words of `text` (a letter or digit, then letters, digits, apostrophes and hyphens), up to
 * `bound`: the matches of the expression `[\p{L}\p{N}][\p{L}\p{N}'’-]*` (flags gu), counted character
 * by character (matching it made an array per word: a quarter of the features' time). A word's
 * start and end are summed from each character's kind, not branched on: such branches change
 * every few characters, and the processor mispredicted them that often.
 */
export const countWords = (text: string, bound = Infinity): number => {
  let n = 0;
  /** 1 inside a word, else 0. */
  let inWord = 0;
  for (let i = 0; i < text.length && n < bound; i++) {
    const c = text.charCodeAt(i);
    let kind: number;
    if (c < 128) kind = ASCII_KINDS[c]!;
    else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      // A code point beyond the BMP: the expression (u flag) reads the pair as one character.
      kind = LETTER_OR_DIGIT.test(text.slice(i, i + 2)) ? LETTER : 0;
      i++;
    } else {
      let known = letters[c]!;
      if (known === 0) letters[c] = known = LETTER_OR_DIGIT.test(String.fromCharCode(c)) ? 1 : 2;
      kind = (known & LETTER) | (c === 0x2019 ? JOINER : 0);
    }
    const letter = kind & LETTER;
    n += letter & ~inWord;
    inWord = letter | (inWord & (kind >> 1));
  }
  return n;
};

/** A character's kind to countWords: a letter or digit, or what a word runs on through (' ’ -). */
const LETTER = 1;
const JOINER = 2;
const ASCII_KINDS = Uint8Array.from({ length: 128 }, (_, c) =>
  (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122) ? LETTER : c === 39 || c === 45 ? JOINER : 0,
);

const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
/** Per UTF-16 unit from 128: 0 not looked up yet, 1 a letter or digit, 2 not. */
const letters = new Uint8Array(0x10000);

/**
 * The first TEXT_KEPT characters of `collapse(raw)`: its words (runs of what \s does not match)
 * joined by one space, read only until there are enough. A page's text often opens with its
 * menus, indented: thousands of blanks that collapse to a few hundred characters, so a fixed
 * prefix of the raw text was too short and the whole page's text was collapsed for the first
 * thousand characters of it.
 */
const openingOf = (raw: string): string => {
  let out = '';
  WORD.lastIndex = 0;
  for (let m = WORD.exec(raw); m && out.length < TEXT_KEPT; m = WORD.exec(raw)) out += out ? ` ${m[0]}` : m[0];
  return out.slice(0, TEXT_KEPT);
};

/** A word of `collapse`: a run of what \s does not match. */
const WORD = /\S+/g;

/** Words under which a page says little: its challenge and captcha markup may be what it is. */
export const LITTLE_WORDS = 150;

export interface FeatureOptions {
  /**
   * The answer's status, when known: the challenge and captcha markup, which decide a verdict
   * only on a page that says little or answered an error (decideVerdict), is then looked for
   * only there. (Unknown: always.)
   */
  status?: number;
  /** linkedom's links to follow; null: the DOM's getters (the way any other DOM is walked). */
  links?: DocumentLinks | null;
}

/**
 * What the page says, in one walk over the document. (It was a querySelectorAll per feature:
 * linkedom matches every element of the page against each selector, fifteen walks a page, which
 * cost more than parsing it.) Like querySelectorAll, the walk does not look into <template>
 * contents; the visible text is the body's, without scripts, styles, templates and noscript.
 */
export const pageFeatures = (doc: Document, html: string, opts: FeatureOptions = {}): PageFeatures => {
  const links = opts.links === undefined ? linksOf(doc) : opts.links;
  const textRoot: Node | null = doc.body ?? doc.documentElement;
  const head = html.length > 400_000 ? html.slice(0, 400_000) : html;
  const counts = { links: 0, scripts: 0, listItems: 0, tableRows: 0, forms: 0, inputs: 0, passwordInputs: 0 };
  let nav = false;
  let main = false;
  let jsonLd = false;
  let openGraph = false;
  let title: Element | null = null;
  let h1: Element | null = null;
  const noscripts: string[] = [];
  // The first element each app-root selector would find (querySelector), in ROOT_IDS' order then tag, react, angular.
  const roots: (Element | null)[] = new Array<Element | null>(ROOT_IDS.length + 3).fill(null);
  const text: string[] = [];

  /** Looks at one element; answers whether its subtree is walked (not a template's contents). */
  const visit = (el: Element): boolean => {
    switch (el.localName) {
      case 'a':
        if (el.hasAttribute('href')) counts.links++;
        break;
      case 'title':
        title ??= el;
        break;
      case 'h1':
        h1 ??= el;
        break;
      case 'nav':
        nav = true;
        break;
      case 'main':
      case 'article':
        main = true;
        break;
      case 'script':
        counts.scripts++;
        if (el.getAttribute('type') === 'application/ld+json') jsonLd = true;
        break;
      case 'meta':
        if (el.getAttribute('property')?.startsWith('og:')) openGraph = true;
        break;
      case 'noscript':
        noscripts.push(el.textContent ?? '');
        break;
      case 'li':
        counts.listItems++;
        break;
      case 'tr':
        counts.tableRows++;
        break;
      case 'form':
        counts.forms++;
        break;
      case 'input': {
        const type = el.getAttribute('type');
        if (type !== 'hidden') counts.inputs++;
        if (type === 'password') counts.passwordInputs++;
        break;
      }
      case 'select':
      case 'textarea':
        counts.inputs++;
        break;
      case 'template':
        return false;
    }
    if (el.localName === 'app-root') roots[APP_ROOT_TAG] ??= el;
    return true;
  };

  /** Looks at one attribute of an element `visit` walks into. */
  const attribute = (el: Element, name: string, value: string): void => {
    switch (name) {
      case 'role':
        if (value === 'navigation') nav = true;
        else if (value === 'main') main = true;
        break;
      case 'id': {
        const k = ROOT_IDS.indexOf(value);
        if (k >= 0) roots[k] ??= el;
        break;
      }
      case 'data-reactroot':
        roots[REACT_ROOT] ??= el;
        break;
      case 'ng-app':
        roots[NG_APP] ??= el;
        break;
    }
  };

  if (links) {
    // linkedom keeps the document as one list in document order (an element, its attributes,
    // its children, its end marker): following it costs less than the DOM's getters.
    const stop = (doc as unknown as Linked)[links.end];
    const parents: boolean[] = [];
    let owner: Element | null = null;
    /** Whether text here is visible: inside the text root and outside anything invisible. */
    let shown = false;
    for (let n = (doc as unknown as Linked)[links.next]; n && n !== stop; n = n[links.next]!) {
      const type = n.nodeType;
      if (type === 1) {
        const el = n as unknown as Element;
        // Not walked (a template's contents): on from its end marker.
        if (!visit(el)) {
          n = n[links.end]!;
          continue;
        }
        parents.push(shown);
        shown = el === textRoot || (shown && !INVISIBLE.has(el.localName));
        owner = el;
      } else if (type === ATTRIBUTE_NODE) {
        // An element's attributes follow it in the list.
        const a = n as unknown as Attr;
        attribute(owner!, a.name, a.value);
      } else if (type === 3) {
        if (shown) text.push((n as unknown as Text).nodeValue ?? '');
      } else if (type === END_NODE) {
        const el = n[links.start] as unknown as Element;
        if (shown && el !== textRoot && BLOCK_BREAK.has(el.localName)) text.push(' ');
        shown = parents.pop() ?? false;
      }
    }
  } else walkDom();

  function walkDom(): void {
    // The document's own children as a list: linkedom's doctype has no nextSibling, and markup
    // it could not place (a fragment, content after </html>) sits beside documentElement.
    for (const top of Array.from(doc.childNodes))
      if (top.nodeType === 1 && visit(top as Element)) {
        for (const a of Array.from((top as Element).attributes)) attribute(top as Element, a.name, a.value);
        walk(top, top === textRoot);
      }
  }

  /** `visible`: inside the text root and outside anything invisible. */
  function walk(node: Node, visible: boolean): void {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) {
        if (visible) text.push(child.nodeValue ?? '');
      } else if (child.nodeType === 1) {
        const el = child as Element;
        if (!visit(el)) continue;
        for (const a of Array.from(el.attributes)) attribute(el, a.name, a.value);
        const tag = el.localName;
        const shown = child === textRoot || (visible && !INVISIBLE.has(tag));
        walk(el, shown);
        if (shown && child !== textRoot && BLOCK_BREAK.has(tag)) text.push(' ');
      }
    }
  }

  const visibleText = text.join('');
  const features: PageFeatures = {
    title: collapse((title as Element | null)?.textContent ?? ''),
    h1: collapse((h1 as Element | null)?.textContent ?? ''),
    text: openingOf(visibleText),
    words: countWords(visibleText, WORDS_COUNTED),
    links: counts.links,
    nav,
    main,
    jsonLd,
    openGraph,
    scripts: counts.scripts,
    noscriptText: collapse(noscripts.join(' ')),
    appRoot: roots.some((el) => el !== null && collapse(el.textContent ?? '').length < 40),
    listItems: counts.listItems,
    tableRows: counts.tableRows,
    forms: counts.forms,
    inputs: counts.inputs,
    passwordInputs: counts.passwordInputs,
  };
  // One pass over the markup says whether any marker is there (almost never); only then is it
  // lowered and searched for each (twenty searches of the page cost more than the rest of this).
  // A page of many words that answered 2xx/3xx is judged without them: the pass is skipped.
  const markersMatter = opts.status === undefined || opts.status >= 400 || features.words < LITTLE_WORDS;
  if (markersMatter && ANY_MARKUP.test(head)) {
    const lowerHtml = head.toLowerCase();
    const challenge = includesAny(lowerHtml, CHALLENGE_MARKUP);
    if (challenge) features.challengeMarkup = challenge;
    const captcha = includesAny(lowerHtml, CAPTCHA_MARKUP);
    if (captcha) features.captchaMarkup = captcha;
  }
  return features;
};
