import { nextInSubtree, walkElements, type PageScan } from './dom-walk.js';
import { BANNER_ROLES, FOLDED, NAME_BANNER, NAME_CONSENT, NameMatcher } from './patterns.js';
import { judgedAttributes, type JudgedAttributes } from './linked-nodes.js';
import { absoluteUrl, type UrlResolver } from './urls.js';

export interface CleanOptions {
  url: string;
  removeBanners: boolean;
  removeBase64Images: boolean;
  excludeTags: string[];
  /** Drop event handlers and inline styles (only clean HTML shows attributes). */
  stripAttributes: boolean;
  /**
   * Make links and image sources absolute in the document (default true). The markdown does it
   * as it renders (see resolvedAttr), for the links it shows only.
   */
  resolveUrls?: boolean;
  /**
   * The page as scanPage found it before anything changed it: its <noscript>s and streamed
   * segments, and its elements in document order, which cleaning then goes through instead of
   * walking the tree again.
   */
  scan?: Pick<PageScan, 'noscripts' | 'segments'> & Partial<Pick<PageScan, 'elements' | 'ends' | 'noscriptAt'>>;
  /** Class/id matching shared with findMainContent (one per page). */
  names?: NameMatcher;
  /**
   * Openings of the text the page declares as its content (`declaredOpenings`): a dialog, drawer
   * or collapsed section that holds one is the content a click reveals, and stays.
   */
  declared?: string[];
  /** Told of each element removed, just before it goes (pages/removed explains a page with it). */
  onRemove?: (el: Element, why: RemovalReason) => void;
}

export type RemovalReason = 'excluded' | 'hidden' | 'non-content' | 'banner' | 'base64 image';

/** Elements that never carry readable content. */
const DROP = new Set([
  'script',
  'style',
  'template',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'link',
  'meta',
  'base',
  'canvas',
  'input',
  'select',
  'option',
  'textarea',
  'button',
  'dialog',
  'map',
  'svg',
  'math',
  // What a <video> or <audio> holds is shown only by a browser that cannot play it ("Sorry, your
  // browser doesn't support embedded videos"): no browser a reader has shows it.
  'video',
  'audio',
  // Only in the body (the head is not walked): a browser hides it there, as an SVG's title
  // pasted without its <svg> ("<title>Doorbell Calls</title>" beside the heading it names).
  'title',
]);

// A banner is short; a long element whose class says "modal" (or a <body class="cookie-ok">)
// is the page itself. Consent dialogs run longer: they list purposes and vendors, and a
// privacy-preference centre (OneTrust's lists every cookie) can hold more text than the page.
const MAX_BANNER_CHARS = 1500;
const MAX_CONSENT_CHARS = 40000;
const MIN_NOSCRIPT_CHARS = 500;
const LAZY_SRC = ['data-src', 'data-lazy-src', 'data-original', 'data-lazy', 'data-srcset'];
/**
 * How highlighters name a code block's language in a class: Prism, highlight.js and most others
 * (`language-x`, `lang-x`), GitHub (`highlight-source-x`), MediaWiki (`mw-highlight-lang-x`), one
 * class token each; SyntaxHighlighter (`brush: x; gutter: false`) and pandoc (`sourceCode x`)
 * across tokens. Sphinx names it on Pygments' wrapper (`div.highlight-python`), but a
 * `highlight-x` on the block itself is the site's own (`highlight-height`), so it is read on
 * wrappers only, and after the others.
 */
const LANGUAGE_TOKEN = /^(?:language|lang|highlight-source|mw-highlight-lang)-([\w+#.-]+)$/i;
const WRAPPER_LANGUAGE_TOKEN = /^highlight-([\w+#.-]+)$/i;
const LANGUAGE_IN_CLASS = /(?:^|[\s;])(?:brush:\s*|sourceCode\s+(?:numberSource\s+)?)([\w+#.-]+)/i;
/** Attributes that name it outright: Hugo's Chroma (`data-lang`), Shiki and Gatsby (`data-language`). */
const LANGUAGE_ATTRS = ['data-lang', 'data-language'];
/**
 * Elements around a <pre> that a highlighter wraps it in, and may name its language on: Sphinx
 * and Jekyll put it two levels up (`div.highlight-python > div.highlight > pre`), with a copy
 * button or a file name beside the code at most. A wrapper has few children, so the language of a
 * section or an article around the block (`<article class="lang-en">`) is not read as the code's.
 */
const WRAPPER_LEVELS = 3;
const WRAPPER_CHILDREN = 3;

/**
 * Cleans the document in one walk: drops scripts, styles, frames, form controls, hidden
 * elements, event handlers and inline styles; with the options, banners and base64 images; resolves links and
 * images against the page URL; moves a code block's language onto its <pre> for the markdown.
 */
export function cleanDocument(doc: Document, opts: CleanOptions): void {
  let excluded = false;
  for (const selector of opts.excludeTags) {
    for (const el of safeSelectAll(doc, selector)) {
      opts.onRemove?.(el, 'excluded');
      el.remove();
      excluded = true;
    }
  }
  const root = doc.documentElement;
  if (!root) return;
  const moved = placeStreamedSegments(doc, opts.scan?.segments ?? safeSelectAll(doc, 'div[hidden][id^="S:"]'));
  const noscripts = unwrapNoscripts(opts.scan?.noscripts ?? safeSelectAll(doc, 'noscript'));
  const resolveUrls = opts.resolveUrls ?? true;
  const names = opts.names ?? new NameMatcher();
  const hidden: Element[] = [];
  const runs: Element[] = [];
  const visit = (el: Element): boolean => {
    const tag = el.localName;
    if (RUN_TAGS.has(tag) && el.previousSibling?.nodeType === 1) runs.push(el);
    // Most elements carry no attribute at all: nothing to look up then.
    const attributed = el.hasAttributes();
    if (DROP.has(tag) && tag !== 'body' && tag !== 'head') {
      opts.onRemove?.(el, 'non-content');
      el.remove();
      return false;
    }
    if (tag === 'head') return false;
    // Hidden elements are decided once the page has been walked (dropHidden); they are cleaned
    // like the rest meanwhile, in case they stay.
    const attrs = attributed ? judgedAttributes(el) : null;
    if (attrs && tag !== 'body' && (attrs.hidden || isStyledHidden(attrs.style))) hidden.push(el);
    if (opts.removeBanners && attrs && isBanner(el, tag, attrs, names, opts.declared)) {
      opts.onRemove?.(el, 'banner');
      el.remove();
      return false;
    }
    if (opts.stripAttributes) dropScriptingAndStyle(el);
    if (tag === 'a') {
      // A link that is a button going nowhere ("Add to Compare", "Quick view" on every card) is a
      // script's control, as the form controls dropped above are; a call to action has an address.
      if (attrs?.role === 'button' && isNowhere(el.getAttribute('href')) && isShortLabel(el.textContent ?? '')) {
        opts.onRemove?.(el, 'non-content');
        el.remove();
        return false;
      }
      if (resolveUrls) resolveAttr(el, 'href', opts.url);
    } else if (tag === 'img') return fixImage(el, opts, resolveUrls);
    else if (tag === 'pre') labelCodeLanguage(el);
    return true;
  };
  const { elements, ends, noscriptAt } = opts.scan ?? {};
  // The scan's list is the document's order as long as nothing but <noscript>s changed it:
  // an unwrapped one leaves its children where it was, a dropped one takes its subtree along.
  if (elements && ends && noscriptAt && elements[0] === root && !excluded && !moved) {
    const skip = new Uint8Array(elements.length);
    noscripts.forEach((unwrapped, k) => (skip[noscriptAt[k]!] = unwrapped ? SKIP_ONE : SKIP_SUBTREE));
    for (let i = 1, end = ends[0]!; i < end;) {
      if (skip[i] === SKIP_ONE) i++;
      else if (skip[i] === SKIP_SUBTREE || !visit(elements[i]!)) i = ends[i]!;
      else i++;
    }
  } else {
    walkElements(root, visit);
  }
  if (hidden.length) dropHidden(hidden, doc.body ?? root, opts);
  for (const el of runs) joinRun(el);
}

const WORD_END = /\p{L}$/u;
const WORD_GOES_ON = /^\p{Ll}/u;

/** Inline formatting that an editor splits into runs: `<b>S</b><b>aving</b>` is one bold word. */
const RUN_TAGS = new Set(['b', 'strong', 'em', 'i', 's', 'del', 'strike']);

/**
 * Joins an element to the one just before it when both are the same formatting with nothing
 * between (not even a space) and a word runs across them: written apart, the markdown puts a
 * space between their delimiters (`**S** **aving**`) and a renderer shows two words. Done after
 * the walk, so that what it holds was cleaned like the rest; in document order, so a run of three
 * becomes one.
 */
function joinRun(el: Element): void {
  const prev = el.previousSibling as Element | null;
  if (!el.parentNode || prev?.nodeType !== 1 || prev.localName !== el.localName) return;
  if (el.attributes.length || prev.attributes.length) return; // a class may mean another look
  // Only a word cut in two ("S" + "aving"); "02:19 pm" + "Guest post" are two runs, written so.
  if (!WORD_END.test(edgeText(prev, 'lastChild')) || !WORD_GOES_ON.test(edgeText(el, 'firstChild'))) return;
  prev.append(...Array.from(el.childNodes));
  el.remove();
}

/**
 * The text at an element's end (or start), read down its last (or first) children: not its
 * textContent, which a chain of thousands of runs would build again at each join.
 */
function edgeText(el: Element, side: 'lastChild' | 'firstChild'): string {
  let node: Node | null = el[side];
  while (node?.nodeType === 1) node = node[side];
  return node?.nodeType === 3 ? (node as Text).data : '';
}

/** Share of the page's text from which hidden elements are taken for content a script reveals. */
const REVEALED_SHARE = 0.5;

/**
 * Hidden elements are what a reader does not see: collapsed menus, closed dialogs, templates of
 * widgets. But some pages hide the content itself until a script runs (it moves streamed
 * segments into place, or unhides the article once its styles load): when the hidden elements
 * hold more of the page's text than the visible ones, they are read as shown, and the main
 * content is found among them like anywhere else. Otherwise they go.
 */
function dropHidden(hidden: Element[], body: Element, opts: CleanOptions): void {
  // The outermost ones still in the page (cleaning may have removed some, or their ancestors).
  const outer: Element[] = [];
  const marked = new Set(hidden);
  for (const el of hidden) {
    let attached = false;
    let inner = false;
    for (let p = el.parentElement; p; p = p.parentElement) {
      if (marked.has(p)) inner = true;
      if (p === body) {
        attached = true;
        break;
      }
    }
    if (attached && !inner) outer.push(el);
  }
  let hiddenText = 0;
  for (const el of outer) hiddenText += visibleTextLength(el);
  // The page's text is read only as far as it decides: hidden text is mostly a menu's few words.
  if (hiddenText > 0 && hiddenText > REVEALED_SHARE * visibleTextLength(body, hiddenText / REVEALED_SHARE)) return;
  for (const el of outer) {
    if (opts.declared?.length && holdsDeclared(el.textContent ?? '', opts.declared)) continue;
    if (isFoldedSection(el)) continue;
    opts.onRemove?.(el, 'hidden');
    el.remove();
  }
}

/** Characters from which a folded section holds text of its own (a menu's entries are shorter). */
const MIN_FOLDED_CHARS = 200;

/**
 * A tab panel, accordion body or "read more" continuation with text of its own: hidden until a
 * click, it is part of the page's content (a product's specifications tab, a service's answers,
 * an installation's other platforms). A panel the markup declares one (role=tabpanel) is, even
 * when it lists links (a tab of resources); one known by its class or id only is not when it is
 * mostly links (a collapsed menu's panel).
 */
function isFoldedSection(el: Element): boolean {
  const { class: cls, id, role } = judgedAttributes(el);
  const declared = role === 'tabpanel';
  if (!declared && !(cls && FOLDED.test(cls)) && !(id && FOLDED.test(id))) return false;
  const text = visibleTextLength(el);
  return text >= MIN_FOLDED_CHARS && (declared || linkTextLength(el) < LINKS_SHARE * text);
}

/** Share of link text from which a folded section is a menu's panel, not content. */
const LINKS_SHARE = 0.5;

/** Characters of text inside links under el, other than spaces. */
function linkTextLength(el: Element): number {
  let n = 0;
  for (const a of el.getElementsByTagName('a')) n += visibleTextLength(a);
  return n;
}

/**
 * Characters of text under el other than spaces, read node by node (no textContent string built);
 * the count stops once it reaches `enough`.
 */
function visibleTextLength(el: Element, enough = Infinity): number {
  let n = 0;
  let node: Node | null = el.firstChild;
  while (node && node !== el) {
    if (node.nodeType === 3) {
      const s = (node as Text).data;
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c > 32 && c !== 160) n++;
      }
      if (n >= enough) return n;
    }
    node = nextInSubtree(node, el, node.nodeType === 1);
  }
  return n;
}

const SKIP_ONE = 1;
const SKIP_SUBTREE = 2;

/**
 * React's streaming SSR sends late parts of the page as <div hidden id="S:n"> at the end of
 * the body and a script that moves each into its placeholder: a suspense boundary's
 * <template id="B:n"> ($RC), or a segment's <template id="P:n"> ($RS). No script runs here, so
 * do the move: otherwise whole sections of the content look hidden.
 */
function placeStreamedSegments(doc: Document, segments: Element[]): boolean {
  let moved = false;
  for (const segment of segments) {
    const n = segment.id.slice(2);
    const hole = doc.getElementById(`B:${n}`) ?? doc.getElementById(`P:${n}`);
    if (!hole?.parentNode) continue;
    hole.replaceWith(...Array.from(segment.childNodes));
    segment.remove();
    moved = true;
  }
  return moved;
}

export function safeSelectAll(doc: Document | Element, selector: string): Element[] {
  try {
    return Array.from(doc.querySelectorAll(selector));
  } catch {
    return []; // an invalid user selector removes nothing rather than failing the page
  }
}

/**
 * No script runs here, so a page reads as it does with JavaScript off: a <noscript> that holds
 * the page's text (Discourse serves whole threads that way) is unwrapped; the usual one-line
 * "enable JavaScript" notice or tracking pixel is dropped. Answers, for each, whether it was
 * unwrapped.
 */
function unwrapNoscripts(noscripts: Element[]): boolean[] {
  return noscripts.map((el) => {
    if ((el.textContent ?? '').length >= MIN_NOSCRIPT_CHARS && el.firstElementChild) {
      el.replaceWith(...Array.from(el.childNodes));
      return true;
    }
    el.remove();
    return false;
  });
}

function isStyledHidden(style: string | null): boolean {
  return !!style && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}

function isBanner(
  el: Element,
  tag: string,
  attrs: JudgedAttributes,
  matcher: NameMatcher,
  declared: string[] = [],
): boolean {
  if (tag === 'body' || tag === 'main' || tag === 'article') return false;
  const names = matcher.ofNames(attrs.class, attrs.id, NAME_CONSENT | NAME_BANNER);
  const role = attrs.role;
  let limit = 0;
  if (names & NAME_CONSENT) limit = MAX_CONSENT_CHARS;
  else if (names & NAME_BANNER || (role !== null && BANNER_ROLES.has(role)) || attrs.ariaModal === 'true') {
    limit = MAX_BANNER_CHARS;
  }
  if (limit === 0 || !textShorterThan(el, limit)) return false;
  // The text itself is built only to look for the declared description in it.
  return !(declared.length && holdsDeclared(el.textContent ?? '', declared));
}

/**
 * Whether an element's textContent is shorter than `limit`, read node by node only as far as
 * that decides: a wrapper named "overlay" can hold the whole page.
 */
function textShorterThan(el: Element, limit: number): boolean {
  let n = 0;
  let node: Node | null = el.firstChild;
  while (node && node !== el) {
    const type = node.nodeType;
    if (type === 3 || type === 4) {
      n += (node as CharacterData).data.length;
      if (n >= limit) return false;
    }
    node = nextInSubtree(node, el, type === 1);
  }
  return true;
}

/** Whether a text shows one of the page's declared openings (lower-cased, blanks collapsed). */
function holdsDeclared(text: string, declared: string[]): boolean {
  if (!declared.length) return false;
  const flat = text.replace(/\s+/g, ' ').toLowerCase();
  return declared.some((d) => flat.includes(d));
}

/** Event handlers and inline styles: clean HTML carries structure, not behaviour or looks. */
function dropScriptingAndStyle(el: Element): void {
  const attrs = el.attributes;
  for (let i = attrs.length - 1; i >= 0; i--) {
    const name = attrs[i]?.name;
    if (name && (name === 'style' || (name.length > 2 && name.startsWith('on')))) el.removeAttribute(name);
  }
}

/**
 * What an attribute the markdown shows reads once cleaning has resolved it: a link's href and
 * an image's src (but a data: URI) absolute, null where cleaning would have dropped it.
 * `resolve` is absent when cleaning resolved them in the document (resolveUrls).
 */
export function resolvedAttr(
  tag: string,
  name: string,
  value: string,
  resolve: UrlResolver | undefined,
): string | null {
  if (!resolve) return value;
  if (tag === 'a' ? name !== 'href' : tag !== 'img' || name !== 'src' || value.startsWith('data:')) return value;
  return resolve(value);
}

function resolveAttr(el: Element, attr: string, base: string): void {
  const value = el.getAttribute(attr);
  if (value === null) return;
  const abs = absoluteUrl(value, base);
  if (abs) el.setAttribute(attr, abs);
  else el.removeAttribute(attr); // javascript: links become plain text
}

const SRCSET_IN_SRC = /^\s*(\S.*?)\s+\d+(?:\.\d+)?[wx]\s*(?:,|$)/;

/**
 * Whether an image's alt text is already the text of the link or figure around it (a card's
 * caption): the image then adds nothing when it is not shown.
 */
function captioned(img: Element, alt: string): boolean {
  if (img.getAttribute('aria-hidden') === 'true') return true; // decorative: its alt is not read
  const holder = img.closest('a') ?? img.closest('figure, li');
  return !!holder && (holder.textContent ?? '').includes(alt);
}

/** Lazy-loaded images carry the real URL in a data attribute and a placeholder in src. */
function fixImage(img: Element, opts: CleanOptions, resolveUrls: boolean): boolean {
  const src = img.getAttribute('src') ?? '';
  if (!src || src.startsWith('data:')) {
    for (const attr of LAZY_SRC) {
      const lazy = img.getAttribute(attr)?.trim().split(/\s+/)[0];
      if (lazy && !lazy.startsWith('data:')) {
        img.setAttribute('src', lazy);
        break;
      }
    }
  }
  let finalSrc = img.getAttribute('src') ?? '';
  // Some themes write a srcset list into src ("a.jpg 1000w, b.jpg 2000w"): its first candidate
  // is the image (file names may hold spaces, so the list is read by its descriptors).
  const listed = finalSrc.length > 40 ? SRCSET_IN_SRC.exec(finalSrc) : null;
  if (listed) {
    finalSrc = listed[1]!;
    img.setAttribute('src', finalSrc);
  }
  if (finalSrc.startsWith('data:')) {
    if (opts.removeBase64Images) {
      opts.onRemove?.(img, 'base64 image');
      const alt = (img.getAttribute('alt') ?? '').trim();
      if (alt && !captioned(img, alt)) img.replaceWith(img.ownerDocument.createTextNode(alt));
      else img.remove();
    }
    return false;
  }
  if (resolveUrls) {
    resolveAttr(img, 'src', opts.url);
    img.removeAttribute('srcset');
  }
  return false;
}

function labelCodeLanguage(pre: Element): void {
  const code = pre.querySelector('code');
  let language = codeLanguageOn(pre) ?? (code ? codeLanguageOn(code) : null);
  for (let el = pre.parentElement, level = 0; !language && el && level < WRAPPER_LEVELS; level++) {
    if (el.children.length > WRAPPER_CHILDREN) break;
    language = codeLanguageOn(el, true);
    el = el.parentElement;
  }
  if (language) pre.setAttribute('class', `language-${language.toLowerCase()}`);
}

/** The language one element names for the code it holds (the first way found), or null. */
function codeLanguageOn(el: Element, wrapper = false): string | null {
  for (const name of LANGUAGE_ATTRS) {
    const value = el.getAttribute(name)?.trim();
    if (value && /^[\w+#.-]+$/.test(value)) return value;
  }
  const cls = el.getAttribute('class');
  if (!cls) return null;
  const tokens = cls.split(/\s+/);
  for (const token of tokens) {
    const m = LANGUAGE_TOKEN.exec(token);
    if (m) return m[1]!;
  }
  const across = LANGUAGE_IN_CLASS.exec(cls)?.[1];
  if (across) return across;
  if (!wrapper) return null;
  for (const token of tokens) {
    const m = WRAPPER_LANGUAGE_TOKEN.exec(token);
    if (m) return m[1]!;
  }
  return null;
}

/** No address: none, the page's top ("#") or a script ("javascript:void(0)"). */
const isNowhere = (href: string | null): boolean => href === null || href === '#' || /^\s*javascript:/i.test(href);
/** A button's label: some text, up to 40 characters (an anchor around a card's content is not one). */
const isShortLabel = (s: string): boolean => s.length <= 40 && /\S/.test(s);
