import { prose, seededRandom } from './seeded-prose.js';
import type { Page, Site } from './test-web.js';

const WORDS = (
  'tide harbour mooring berth pontoon quay keel hull rudder mast sail rope cleat anchor chain buoy ' +
  'channel current ebb flood neap spring chart depth sounding pilot lock gate basin marina slipway ' +
  'fuel water shore power shower laundry office fee night week season visitor member skipper crew ' +
  'booking arrival departure weather forecast wind gust swell wave fog visibility signal radio ' +
  'harbourmaster warden rule speed limit wake fender line bow stern beam draught length tonnage ' +
  'the a of to and in on for with at by from before after during while when where which that ' +
  'every each most some many few all no more less always usually often rarely never only also ' +
  'boats yachts dinghies ferries trawlers visitors owners guests keepers pilots divers surveyors ' +
  'arrive leave moor tie check book pay call report wait follow keep pass cross enter clear ' +
  'safe busy quiet narrow wide shallow deep calm rough early late open closed free paid'
).split(' ');

const { words, sentence } = prose(WORDS, 8, 14);
const paragraph = (rnd: () => number, sentences: number) =>
  `<p>${Array.from({ length: sentences }, () => sentence(rnd)).join(' ')}</p>`;

interface Entry {
  path: string;
  title: string;
  description: string;
  /** Sections of prose; each is about 120 words. */
  sections: number;
  table?: boolean;
}

const GUIDES = [
  'arriving',
  'moorings',
  'tides',
  'fuel',
  'weather',
  'locks',
  'pilotage',
  'winter-storage',
  'dinghies',
  'safety',
  'radio',
  'leaving',
].map<Entry>((slug, i) => ({
  path: `/guides/${slug}`,
  title: `${slug.replace('-', ' ').replace(/^./, (c) => c.toUpperCase())} — Harbour Handbook`,
  description: `How ${slug.replace('-', ' ')} works at the harbour, step by step.`,
  sections: 9 + (i % 4) * 3,
}));
const REFERENCE = ['fees', 'limits', 'signals', 'berths', 'contacts', 'bylaws', 'depths', 'glossary'].map<Entry>(
  (slug, i) => ({
    path: `/reference/${slug}`,
    title: `${slug.replace(/^./, (c) => c.toUpperCase())} reference — Harbour Handbook`,
    description: `The ${slug} of the harbour in one table.`,
    // /reference/bylaws is long: its markdown passes 12,000 characters.
    sections: slug === 'bylaws' ? 30 : 8 + i,
    table: true,
  }),
);
const LEGAL: Entry[] = [
  { path: '/privacy', title: 'Privacy — Harbour Handbook', description: 'What we keep about visitors.', sections: 7 },
  { path: '/terms', title: 'Terms — Harbour Handbook', description: 'The terms of a berth.', sections: 8 },
];
const SECTION_PAGES: Entry[] = [
  { path: '/guides/', title: 'Guides — Harbour Handbook', description: 'Every guide for visiting boats.', sections: 7 },
  { path: '/reference/', title: 'Reference — Harbour Handbook', description: 'Tables and rules.', sections: 7 },
  {
    path: '/changelog',
    title: 'Changelog — Harbour Handbook',
    description: 'What changed in the handbook.',
    sections: 10,
  },
];
const ALL = [...SECTION_PAGES, ...GUIDES, ...REFERENCE, ...LEGAL];
/**
 * handbook.test's paths: `pages`, every page a crawl reads (the home page first); `disallowed`,
 * what its pages link to and robots.txt forbids (a crawl lists it with verdict robots).
 */
export const HANDBOOK = {
  pages: ['/', ...ALL.map((e) => e.path)] as readonly string[],
  disallowed: ['/account'] as readonly string[],
};

const STYLE = `<style>:root{--ink:#17212b;--sea:#0b6e99;--sand:#f4efe6}body{margin:0;font:16px/1.6 system-ui,sans-serif;color:var(--ink);background:#fff}
.top{display:flex;gap:1rem;align-items:center;padding:.5rem 1rem;background:var(--sea);color:#fff}.top a{color:#fff;text-decoration:none}
.menu{display:grid;grid-template-columns:repeat(4,1fr);gap:.25rem 1rem;padding:1rem;background:var(--sand)}.menu a{color:var(--ink)}
.layout{display:grid;grid-template-columns:16rem 1fr;gap:2rem;max-width:72rem;margin:0 auto;padding:1rem}
aside nav a{display:block;padding:.2rem 0;color:var(--sea)}article h2{margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccd;padding:.3rem .5rem;text-align:left}
pre{background:#0f1720;color:#e6edf3;padding:1rem;overflow:auto;border-radius:4px}.cookie{position:fixed;bottom:0;left:0;right:0;background:#222;color:#eee;padding:1rem}
footer{background:var(--ink);color:#c9d3dd;padding:2rem 1rem;margin-top:3rem}footer a{color:#c9d3dd}.cols{display:grid;grid-template-columns:repeat(4,1fr);gap:1rem}
@media (max-width:48rem){.layout{grid-template-columns:1fr}.menu{grid-template-columns:1fr 1fr}.cols{grid-template-columns:1fr 1fr}}</style>`;

const SCRIPT = `<script>(function(w,d){w.dataLayer=w.dataLayer||[];function g(){w.dataLayer.push(arguments)}g('js',new Date());g('config','HB-0001',{anonymize_ip:true});
var s=d.createElement('script');s.async=1;s.src='/static/metrics.js?v=3';d.head.appendChild(s);
d.addEventListener('click',function(e){var a=e.target.closest&&e.target.closest('a');if(a&&a.host!==location.host){g('event','outbound',{href:a.href})}});
var c=d.querySelector('.cookie');if(c&&localStorage.getItem('cookies-ok')){c.remove()}})(window,document);</script>`;

const shell = (entry: Entry, all: Entry[], main: string): Page => {
  const menu = all.map((e) => `<a href="${e.path}">${e.title.replace(/ — Harbour Handbook$/, '')}</a>`).join('');
  const side = all
    .filter((e) => e.path.split('/')[1] === entry.path.split('/')[1])
    .map((e) => `<a href="${e.path}">${e.title.replace(/ — Harbour Handbook$/, '')}</a>`)
    .join('');
  return {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${entry.title}</title><meta name="description" content="${entry.description}">
<meta property="og:title" content="${entry.title}"><meta property="og:site_name" content="Harbour Handbook"><meta property="og:type" content="article">
<link rel="canonical" href="${entry.path}"><link rel="icon" href="/favicon.ico">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"TechArticle","headline":"${entry.title}","dateModified":"2026-03-0${(entry.sections % 9) + 1}T08:00:00Z"}</script>
${STYLE}</head><body>
<div class="cookie" role="dialog">We use cookies to count visits. <button>OK</button></div>
<header class="top"><a href="/" class="logo">⚓ Harbour Handbook</a><form action="/search"><input name="q" placeholder="Search the handbook"></form><a href="/account">Sign in</a></header>
<nav class="menu" aria-label="All pages">${menu}</nav>
<div class="layout"><aside><nav aria-label="This section">${side}</nav></aside>
<main><article>${main}</article></main></div>
<footer><div class="cols"><div><h4>Harbour</h4><a href="/guides/arriving">Arriving</a> <a href="/reference/fees">Fees</a> <a href="/reference/contacts">Contacts</a></div>
<div><h4>Handbook</h4><a href="/changelog">Changelog</a> <a href="/guides/">Guides</a> <a href="/reference/">Reference</a></div>
<div><h4>Elsewhere</h4><a href="https://weather.example/">Forecast</a> <a href="https://charts.example/">Charts</a></div>
<div><h4>Legal</h4><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></div></div><p>© Harbour Trust. Tide times are predictions; check the notice board.</p></footer>
<script>window.__HANDBOOK__=${JSON.stringify({ page: entry.path, nav: all.map((e) => ({ href: e.path, title: e.title, description: e.description })) })};</script>
${SCRIPT}</body></html>`,
  };
};

const article = (entry: Entry, seed: number): string => {
  const rnd = seededRandom(seed);
  const parts = [`<h1>${entry.title.replace(/ — Harbour Handbook$/, '')}</h1>`, paragraph(rnd, 3)];
  for (let s = 0; s < entry.sections; s++) {
    parts.push(
      `<h2>${words(rnd, 3)
        .join(' ')
        .replace(/^./, (c) => c.toUpperCase())}</h2>`,
      paragraph(rnd, 5),
      paragraph(rnd, 4),
    );
    if (s === 1)
      parts.push(`<pre><code>berth --arrive ${entry.path.split('/').pop()} --length 11.5 --draught 1.8</code></pre>`);
    if (entry.table && s === 0)
      parts.push(
        `<table><tr><th>Item</th><th>Value</th><th>Note</th></tr>${Array.from(
          { length: 12 },
          () =>
            `<tr><td>${words(rnd, 2).join(' ')}</td><td>${Math.floor(rnd() * 90) + 10}</td><td>${words(rnd, 5).join(' ')}</td></tr>`,
        ).join('')}</table>`,
      );
    if (s % 3 === 2) parts.push(`<ul>${Array.from({ length: 5 }, () => `<li>${sentence(rnd)}</li>`).join('')}</ul>`);
  }
  return parts.join('\n');
};

/**
 * handbook.test: a documentation site the size of a real one. 26 pages of 15–40 KB (a menu of
 * every page, a section sidebar, a cookie banner, inline styles and scripts, JSON-LD, a footer)
 * around 600–2,500 words of prose with headings, lists, code and tables; /reference/bylaws
 * passes 12,000 characters of markdown. Sitemap and robots.txt included. For the agent tool
 * server's result shaping and the client libraries' tests.
 */
export const handbookSite = (origin: string): Site => {
  const home: Entry = {
    path: '/',
    title: 'Harbour Handbook',
    description: 'Everything a visiting boat needs to know about the harbour.',
    sections: 8,
  };
  const all = ALL;
  const site: Site = {
    '/': shell(home, all, article(home, 1)),
    '/robots.txt': { type: 'text/plain', body: `User-agent: *\nDisallow: /account\nSitemap: ${origin}/sitemap.xml\n` },
    '/sitemap.xml': {
      type: 'application/xml',
      body:
        '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
        ['/', ...all.map((e) => e.path)]
          .map((p) => `<url><loc>${origin}${p}</loc><lastmod>2026-03-01</lastmod></url>`)
          .join('') +
        '</urlset>',
    },
  };
  all.forEach((entry, i) => {
    site[entry.path] = shell(entry, all, article(entry, 100 + i));
  });
  return site;
};
