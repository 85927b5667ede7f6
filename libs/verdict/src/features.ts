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

const APP_ROOTS = [
  '#root',
  '#app',
  '#__next',
  '#__nuxt',
  '#___gatsby',
  '#svelte',
  'app-root',
  '[data-reactroot]',
  '[ng-app]',
];
const INVISIBLE = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'HEAD']);

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Visible text in one walk, without the costs of innerText (no layout here anyway). */
const visibleText = (root: Node): string => {
  const parts: string[] = [];
  const walk = (node: Node) => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) parts.push(child.nodeValue ?? '');
      else if (child.nodeType === 1 && !INVISIBLE.has((child as Element).tagName)) {
        walk(child);
        if (/^(P|DIV|LI|H[1-6]|TR|BR|SECTION|ARTICLE)$/.test((child as Element).tagName)) parts.push(' ');
      }
    }
  };
  walk(root);
  return collapse(parts.join(''));
};

export const countWords = (text: string): number => (text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []).length;

export const pageFeatures = (doc: Document, html: string): PageFeatures => {
  const body = doc.body ?? doc.documentElement;
  const text = body ? visibleText(body) : '';
  const lowerHtml = html.length > 400_000 ? html.slice(0, 400_000).toLowerCase() : html.toLowerCase();
  const count = (selector: string) => doc.querySelectorAll(selector).length;
  const appRoot = APP_ROOTS.some((sel) => {
    const el = doc.querySelector(sel);
    return el !== null && collapse(el.textContent ?? '').length < 40;
  });
  const features: PageFeatures = {
    title: collapse(doc.querySelector('title')?.textContent ?? ''),
    h1: collapse(doc.querySelector('h1')?.textContent ?? ''),
    text,
    words: countWords(text),
    links: count('a[href]'),
    nav: count('nav, [role=navigation]') > 0,
    main: count('main, article, [role=main]') > 0,
    jsonLd: count('script[type="application/ld+json"]') > 0,
    openGraph: count('meta[property^="og:"]') > 0,
    scripts: count('script'),
    noscriptText: collapse(
      Array.from(doc.querySelectorAll('noscript'))
        .map((n) => n.textContent ?? '')
        .join(' '),
    ),
    appRoot,
    listItems: count('li'),
    tableRows: count('tr'),
    forms: count('form'),
    inputs: count('input:not([type=hidden]), select, textarea'),
    passwordInputs: count('input[type=password]'),
  };
  const challenge = includesAny(lowerHtml, CHALLENGE_MARKUP);
  if (challenge) features.challengeMarkup = challenge;
  const captcha = includesAny(lowerHtml, CAPTCHA_MARKUP);
  if (captcha) features.captchaMarkup = captcha;
  return features;
};
