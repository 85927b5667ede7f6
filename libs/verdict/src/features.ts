import { CAPTCHA_MARKUP, CHALLENGE_MARKUP, includesAny } from './markers.js';

/** What a page's markup says, read once from the parsed document before any cleaning. */
export interface PageFeatures {
  title: string;
  h1: string;
  /** Visible text of the body (scripts, styles, templates and noscript left out), collapsed. */
  text: string;
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
const INVISIBLE = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'HEAD']);
/** Elements after whose text a space separates words (visible text has no layout to do it). */
const BLOCK_BREAK = new Set(['P', 'DIV', 'LI', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'TR', 'BR', 'SECTION', 'ARTICLE']);

const ANY_MARKUP = new RegExp(
  [...CHALLENGE_MARKUP, ...CAPTCHA_MARKUP].map((m) => m.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'),
  'iu',
);

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

export const countWords = (text: string): number => (text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []).length;

/**
 * What the page says, in one walk over the document. (It was a querySelectorAll per feature:
 * linkedom matches every element of the page against each selector, fifteen walks a page, which
 * cost more than parsing it.) Like querySelectorAll, the walk does not look into <template>
 * contents; the visible text is the body's, without scripts, styles, templates and noscript.
 */
export const pageFeatures = (doc: Document, html: string): PageFeatures => {
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
    if (el.hasAttributes()) {
      const role = el.getAttribute('role');
      if (role === 'navigation') nav = true;
      else if (role === 'main') main = true;
      const id = el.getAttribute('id');
      if (id !== null) {
        const k = ROOT_IDS.indexOf(id);
        if (k >= 0) roots[k] ??= el;
      }
      if (roots[REACT_ROOT] === null && el.hasAttribute('data-reactroot')) roots[REACT_ROOT] = el;
      if (roots[NG_APP] === null && el.hasAttribute('ng-app')) roots[NG_APP] = el;
    }
    return true;
  };

  /** `visible`: inside the text root and outside anything invisible. */
  const walk = (node: Node, visible: boolean): void => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) {
        if (visible) text.push(child.nodeValue ?? '');
      } else if (child.nodeType === 1) {
        const el = child as Element;
        if (!visit(el)) continue;
        const tag = el.tagName;
        const shown = child === textRoot || (visible && !INVISIBLE.has(tag));
        walk(el, shown);
        if (shown && child !== textRoot && BLOCK_BREAK.has(tag)) text.push(' ');
      }
    }
  };
  // The document's own children as a list: linkedom's doctype has no nextSibling, and markup
  // it could not place (a fragment, content after </html>) sits beside documentElement.
  for (const top of Array.from(doc.childNodes))
    if (top.nodeType === 1 && visit(top as Element)) walk(top, top === textRoot);

  const visibleText = collapse(text.join(''));
  const features: PageFeatures = {
    title: collapse((title as Element | null)?.textContent ?? ''),
    h1: collapse((h1 as Element | null)?.textContent ?? ''),
    text: visibleText,
    words: countWords(visibleText),
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
  if (ANY_MARKUP.test(head)) {
    const lowerHtml = head.toLowerCase();
    const challenge = includesAny(lowerHtml, CHALLENGE_MARKUP);
    if (challenge) features.challengeMarkup = challenge;
    const captcha = includesAny(lowerHtml, CAPTCHA_MARKUP);
    if (captcha) features.captchaMarkup = captcha;
  }
  return features;
};
