import type { IncomingMessage } from 'node:http';
import type { Page, Site } from './test-web.js';

/**
 * chandlery.test: a chandlery's shop, for what capture must get right beyond plain pages.
 *
 * - `/catalogue/<ms>` (0, 150, 800, 2500): the catalogue, a single-page app whose bundle
 *   (`/static/app.js`) renders eight products (about 200 words) that long after the load event.
 *   The server sends a shell: nav, footer and an empty `#root`, as real app shells are. How the
 *   wait comes about differs, as it does on the web: at 0 the bundle renders on `load`; at 150
 *   a timer; at 800 it fetches `/api/products` (answered after 800 ms) and draws the list in an
 *   animation frame; at 2500 a 1,000 ms splash timer, then the same fetch answered after 1,500
 *   ms. `/catalogue/clock` renders at once and then ticks a clock every 200 ms forever.
 *
 * Pages are the size of real ones (15-40 KB): inline styles and config, a vendor bundle, a
 * mega menu and a long footer.
 *
 * - `/guide/anchoring`: a long article laid out exactly `GUIDE_HEIGHT` (12,500) px high, for
 *   full-page screenshots.
 */

const PRODUCTS = [
  [
    'Galvanised anchor chain',
    'Eight millimetre short link chain, hot dip galvanised, sold by the metre and cut to length at the counter while you wait.',
  ],
  [
    'Bruce pattern anchor',
    'A ten kilo claw anchor that sets quickly in sand and mud and holds well when the wind veers through the night.',
  ],
  [
    'Three strand mooring line',
    'Polyester line in sixteen millimetres, soft on the hands, with a spliced eye and whipped end ready for the cleat.',
  ],
  [
    'Inflatable fender',
    'A large ball fender for rafting up in busy harbours, pumped hard with the foot pump that comes in the bag.',
  ],
  [
    'Handheld VHF radio',
    'Waterproof to one metre, floats if dropped, with digital selective calling and a battery that lasts a long weekend.',
  ],
  [
    'Offshore lifejacket',
    'One hundred and fifty newtons of buoyancy, a crotch strap, a spray hood and a light that fires on contact with water.',
  ],
  [
    'Stainless deck cleat',
    'Polished marine grade steel, two hundred millimetres long, supplied with a backing plate and four countersunk bolts.',
  ],
  [
    'Tide tables for the coast',
    'The yearly booklet of high and low water times for twelve ports, with the tidal stream atlas printed inside.',
  ],
] as const;

const INTRO =
  'Everything on this page is in stock at the quay shop and can be sent to your berth the same day. ' +
  'Prices include tax; trade customers should sign in for their own price list and delivery terms.';

const MENU = ['Anchoring', 'Ropes', 'Safety', 'Electronics', 'Deck hardware', 'Books and charts'];

const layout = (title: string, main: string, tail = '', css = ''): string => `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${title} | Quayside Chandlery</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="${title}: chandlery, ropes, anchors and safety gear at the quay.">
<link rel="preload" href="/static/vendor.js" as="script">
<style>
${css}
${Array.from({ length: 180 }, (_, i) => `.c-${i}{margin:${i % 7}px ${i % 5}px;padding:${i % 3}px;color:#${(0x224466 + i * 2731).toString(16).slice(-6)}}`).join('\n')}
</style>
</head>
<body>
<header class="site-header"><a class="logo" href="/">Quayside Chandlery</a>
<nav class="menu" aria-label="Shop">${MENU.map(
  (m, i) =>
    `<div class="menu__group"><a href="/catalogue/0#${m.toLowerCase().replace(/\W+/g, '-')}">${m}</a><ul>${Array.from(
      { length: 5 },
      (_, j) => `<li><a href="/catalogue/0?c=${i}&p=${j}">${m} ${j + 1}</a></li>`,
    ).join('')}</ul></div>`,
).join('\n')}</nav></header>
${main}
<footer class="site-footer">${['Shop', 'Help', 'Trade', 'About us']
  .map(
    (col, c) =>
      `<div class="footer__col"><h4>${col}</h4><ul>${Array.from(
        { length: 8 },
        (_, i) => `<li><a href="/help#f${c}-${i}">${col} ${i + 1}</a></li>`,
      ).join('')}</ul></div>`,
  )
  .join('')}
<p class="small">Quayside Chandlery Ltd, The Quay. Registered in England 0123456.</p></footer>
${tail}
</body></html>`;

/** The catalogue's shell: the bundle fills `#root` after `load`, as `mode` says. */
const catalogueShell = (mode: string): Page => ({
  type: 'text/html; charset=utf-8',
  body: layout(
    'Catalogue',
    '<main><div id="root" data-mode="' +
      mode +
      '"><p class="spinner">Loading…</p></div><noscript>You need to enable JavaScript to run this app.</noscript></main>',
    `<script>window.__CONFIG__ = ${JSON.stringify({
      api: '/api/products',
      currency: 'GBP',
      flags: Object.fromEntries(Array.from({ length: 160 }, (_, i) => [`feature_${i}`, i % 3 === 0])),
    })};</script>
<script src="/static/vendor.js"></script>
<script src="/static/app.js" defer></script>`,
  ),
});

/** An inert vendor bundle of a realistic size. */
const VENDOR_JS = `/*! vendor bundle (c) the authors, MIT */
(function(){var r={};${Array.from(
  { length: 150 },
  (_, i) =>
    `r["m${i}"]=function(e,t){var n=${i};return function(o){return o==null?n:(o*${(i % 9) + 1})+n+(t?t.length:0)}};`,
).join('\n')}window.__vendor=r;})();`;

/**
 * The app bundle. It renders the products into `#root`; when depends on the root's data-mode.
 * Only the standard DOM: what a bundler would leave of a small framework's output.
 */
const APP_JS = `(function () {
  var root = document.getElementById('root');
  var mode = root.getAttribute('data-mode');
  function esc(s) { return String(s).replace(/[&<>]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;' }[c]; }); }
  function render(data) {
    var html = '<article class="catalogue"><h1>' + esc(data.title) + '</h1><p class="intro">' + esc(data.intro) + '</p><ul class="products">';
    data.products.forEach(function (p) { html += '<li class="product"><h2>' + esc(p[0]) + '</h2><p>' + esc(p[1]) + '</p></li>'; });
    root.innerHTML = html + '</ul></article>';
  }
  function load(delay, then) {
    fetch(window.__CONFIG__.api + '?delay=' + delay).then(function (r) { return r.json(); }).then(then);
  }
  function start() {
    if (mode === '0') render(${JSON.stringify({ title: 'The catalogue', intro: INTRO, products: PRODUCTS })});
    else if (mode === '150') setTimeout(function () { render(${JSON.stringify({ title: 'The catalogue', intro: INTRO, products: PRODUCTS })}); }, 150);
    else if (mode === '800') load(800, function (data) { requestAnimationFrame(function () { render(data); }); });
    else if (mode === '2500') setTimeout(function () { root.querySelector('.spinner').textContent = 'Still loading…'; load(1500, render); }, 1000);
    else if (mode === 'clock') {
      render(${JSON.stringify({ title: 'The catalogue', intro: INTRO, products: PRODUCTS })});
      var clock = document.createElement('p'); clock.className = 'clock'; root.appendChild(clock);
      (function tick() { clock.textContent = 'Shop time ' + new Date().toISOString(); setTimeout(tick, 200); })();
    }
  }
  if (document.readyState === 'complete') start(); else window.addEventListener('load', start);
})();`;

const CHAPTERS = [
  ['Choosing an anchor', 'claw, plough, spade and fisherman patterns, and the bottoms each likes best'],
  [
    'Chain or rope',
    'how much chain to carry, when a rope rode with a chain leader will do, and why weight on the seabed matters',
  ],
  [
    'Scope',
    'three times the depth in settled weather, five or more when the wind is up, and more again on a rope rode',
  ],
  [
    'Setting the anchor',
    'lowering rather than dropping, paying out while the boat drifts back, and backing down gently',
  ],
  ['Anchor watch', 'transits, an anchor alarm on the plotter, and checking again at the turn of the tide'],
  [
    'Weighing anchor',
    'motoring up to the chain, breaking it out, and washing the mud off before it goes in the locker',
  ],
  ['When it drags', 'what the first signs look like, how to reset in the dark, and when to give up and find a berth'],
  ['Kit list', 'a spare anchor, a trip line and buoy, a snubber, gloves and a deck brush for the chain'],
] as const;

/**
 * A long page for full-page screenshots: a buyer's guide whose layout is exactly
 * `GUIDE_HEIGHT` CSS pixels high at any width of 320 px or more (a 200 px header, eight
 * 1,500 px chapters, a 300 px footer, no margins).
 */
export const GUIDE_HEIGHT = 200 + CHAPTERS.length * 1500 + 300;

const guidePage = (): Page => ({
  type: 'text/html; charset=utf-8',
  body: layout(
    "A buyer's guide to anchoring",
    `<main>${CHAPTERS.map(
      ([title, gist], i) =>
        `<section class="chapter" id="ch${i + 1}"><h2>${i + 1}. ${title}</h2>${Array.from(
          { length: 6 },
          (_, j) =>
            `<p>${title} is about ${gist}. ${PRODUCTS[(i + j) % PRODUCTS.length]![1]} Ask at the counter if you are unsure; we have anchored in most of the bays on this coast ourselves.</p>`,
        ).join('\n')}</section>`,
    ).join('\n')}</main>`,
    '',
    `html,body{margin:0;padding:0}
.site-header{height:200px;overflow:hidden;background:#0b3954;color:#fff}
.chapter{height:1500px;overflow:hidden;box-sizing:border-box;padding:24px;border-bottom:4px solid #bfd7ea}
.chapter:nth-child(odd){background:#f4f9fc}
.site-footer{height:300px;overflow:hidden;background:#08415c;color:#fff}`,
  ),
});

const delayOf = (req: IncomingMessage): number => {
  const raw = new URL(req.url ?? '/', 'http://x').searchParams.get('delay');
  return Math.min(5_000, Math.max(0, Number(raw) || 0));
};

export const chandlerySite = (): Site => ({
  '/': {
    type: 'text/html; charset=utf-8',
    body: layout(
      'Welcome aboard',
      `<main><h1>Quayside Chandlery</h1><p>${INTRO}</p><p><a href="/catalogue/0">Browse the catalogue</a> or read
<a href="/guide/anchoring">our guide to anchoring</a>.</p></main>`,
    ),
  },
  '/guide/anchoring': guidePage(),
  '/catalogue/0': catalogueShell('0'),
  '/catalogue/150': catalogueShell('150'),
  '/catalogue/800': catalogueShell('800'),
  '/catalogue/2500': catalogueShell('2500'),
  '/catalogue/clock': catalogueShell('clock'),
  '/static/vendor.js': { type: 'application/javascript', body: VENDOR_JS },
  '/static/app.js': { type: 'application/javascript', body: APP_JS },
  '/api/products': (req) => ({
    type: 'application/json',
    delayMs: delayOf(req),
    body: JSON.stringify({ title: 'The catalogue', intro: INTRO, products: PRODUCTS }),
  }),
  '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
});
