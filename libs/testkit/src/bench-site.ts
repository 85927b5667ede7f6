import type { IncomingMessage } from 'node:http';
import { prose, seededRandom } from './seeded-prose.js';
import type { Page, Site } from './test-web.js';

const WORDS = (
  'harbour council tide berth ferry quay storm warning season visitors fishing fleet lifeboat crew ' +
  'regatta dredging channel lock bridge closure timetable fare pier lighthouse keeper festival ' +
  'market weather forecast gale swell flood defence wall repair contract budget vote meeting ' +
  'residents business owners marina pontoon moorings waiting list permit fee rise drop record ' +
  'the a of to and in on for with at by from before after during while when where which that ' +
  'said says will would could should may must has have had was were is are been being new old ' +
  'first last next week month year morning evening night summer winter spring autumn today'
).split(' ');

const SECTIONS = ['news', 'harbour', 'ferries', 'weather', 'events', 'business', 'sport', 'opinion'];

const { words, sentence } = prose(WORDS, 9, 16);
const title = (rnd: () => number) =>
  words(rnd, 4 + Math.floor(rnd() * 5))
    .join(' ')
    .replace(/^./, (c) => c.toUpperCase());

const STYLE = `<style>:root{--ink:#1b1f24;--accent:#b3261e;--paper:#fbfaf7}body{margin:0;font:17px/1.55 Georgia,serif;color:var(--ink);background:var(--paper)}
.masthead{display:flex;justify-content:space-between;align-items:center;padding:.75rem 1.5rem;border-bottom:3px double var(--ink)}
.sections{display:flex;gap:1.25rem;padding:.5rem 1.5rem;font:600 14px/1 system-ui,sans-serif;text-transform:uppercase;overflow-x:auto}
.sections a{color:var(--ink);text-decoration:none}.sections a:hover{color:var(--accent)}.wrap{display:grid;grid-template-columns:1fr 20rem;gap:2.5rem;max-width:74rem;margin:0 auto;padding:1.5rem}
article h1{font-size:2.4rem;line-height:1.15;margin:.25rem 0 1rem}.byline{font:14px system-ui,sans-serif;color:#5b636d}figure{margin:1.5rem 0}figure img{width:100%;height:auto}
figcaption{font:13px system-ui,sans-serif;color:#5b636d}.related h3{font:700 13px system-ui,sans-serif;text-transform:uppercase;border-top:2px solid var(--ink);padding-top:.5rem}
.related li{margin:.4rem 0}.ad{min-height:250px;background:#eee;display:grid;place-items:center;color:#999;font:12px system-ui}.newsletter{background:#fff;border:1px solid #ddd;padding:1rem}
footer{background:var(--ink);color:#d7dbe0;padding:2.5rem 1.5rem;margin-top:3rem}footer a{color:#d7dbe0}.cols{display:grid;grid-template-columns:repeat(4,1fr);gap:1.5rem}
@media (max-width:56rem){.wrap{grid-template-columns:1fr}.cols{grid-template-columns:1fr 1fr}}</style>`;

const TAG_MANAGER = `<script>(function(w,d,s,l,i){w[l]=w[l]||[];w[l].push({'gtm.start':new Date().getTime(),event:'gtm.js'});var f=d.getElementsByTagName(s)[0],
j=d.createElement(s),dl=l!='dataLayer'?'&l='+l:'';j.async=true;j.src='/static/tm.js?id='+i+dl;f.parentNode.insertBefore(j,f);})(window,document,'script','dataLayer','TM-B3NCH');
window.addEventListener('scroll',function(){var h=document.documentElement;var p=Math.round(100*h.scrollTop/(h.scrollHeight-h.clientHeight));if(p%25===0){(window.dataLayer||[]).push({event:'scroll',depth:p})}},{passive:true});</script>`;

interface BenchPage {
  title: string;
  section: string;
  links: number[];
}

/**
 * The crawl bench's site, shaped like a local newspaper's: `n` articles at /news/<i> plus a home
 * page, each 15–40 KB of HTML (mean ~28 KB) with a masthead, a section menu, a byline, a figure
 * (one image), 6–20 paragraphs, a related-articles list, an ad slot, a newsletter form, a footer,
 * inline styles and scripts, JSON-LD and one stylesheet. Each page links 10–30 pages of the site
 * (menu, related, next, two children of a binary tree so every page is reachable from the home
 * page) and a few other hosts. /sitemap.xml lists every page; robots.txt allows all. Seeded: the
 * same bytes on every run, so both sides of a bench crawl the same site. Pages are built on first
 * request and kept, up to 5,000 (the server's cost stays outside both sides' figures).
 */
export const BUILT_PAGES_KEPT = 5_000;

export const benchSite = (n = 2000, seed = 20261122): Site => {
  const pages: BenchPage[] = [];
  const rnd = seededRandom(seed);
  for (let i = 0; i < n; i++) {
    const links = new Set<number>();
    for (const k of [2 * i + 1, 2 * i + 2, i + 1]) if (k < n) links.add(k);
    const related = 4 + Math.floor(rnd() * 14);
    while (links.size < Math.min(n - 1, 3 + related)) {
      const k = Math.floor(rnd() * n);
      if (k !== i) links.add(k);
    }
    pages.push({ title: title(rnd), section: SECTIONS[Math.floor(rnd() * SECTIONS.length)]!, links: [...links] });
  }
  const built = new Map<number, Page>();

  const shell = (t: string, section: string, main: string, aside: string): Page => ({
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en-GB"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${t} | The Harbour Gazette</title><meta name="description" content="${t}: the latest from the ${section} desk.">
<meta property="og:title" content="${t}"><meta property="og:type" content="article"><meta name="twitter:card" content="summary_large_image">
<link rel="stylesheet" href="/static/site.css?v=41"><link rel="icon" href="/favicon.ico">${STYLE}
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"${t}","publisher":{"@type":"Organization","name":"The Harbour Gazette"}}</script>
${TAG_MANAGER}</head><body>
<header class="masthead"><a href="/" class="logo">The Harbour Gazette</a><form action="/search" role="search"><input name="q" aria-label="Search"></form><a href="https://accounts.example/login">Sign in</a></header>
<nav class="sections">${SECTIONS.map((s, k) => `<a href="/news/${k}">${s}</a>`).join('')}</nav>
<div class="wrap"><main>${main}</main><aside>${aside}<div class="ad" data-slot="mpu-1">Advertisement</div>
<div class="newsletter"><h3>The morning tide</h3><p>Our newsletter, every weekday at six.</p><form action="/newsletter" method="post"><input type="email" name="email"><button>Sign up</button></form></div></aside></div>
<footer><div class="cols"><div><h4>Sections</h4>${SECTIONS.slice(0, 4)
      .map((s) => `<span>${s}</span>`)
      .join(' ')}</div><div><h4>About</h4><span>Contact the newsroom</span> <span>Corrections</span></div>
<div><h4>Follow</h4><a href="https://social.example/harbourgazette">Social</a> <a href="https://video.example/hg">Video</a></div><div><h4>Legal</h4><span>Privacy</span> <span>Cookies</span></div></div>
<p>© The Harbour Gazette. Tide times are predictions.</p></footer>
<script>window.__GAZETTE__={section:${JSON.stringify(section)},edition:"uk",features:{comments:true,paywall:false}};</script></body></html>`,
  });

  const build = (i: number): Page => {
    const page = pages[i]!;
    const r = seededRandom(seed ^ (i * 2654435761));
    const target = 15_000 + Math.floor(r() * 23_500);
    const related = page.links.map((k) => `<li><a href="/news/${k}">${pages[k]!.title}</a></li>`).join('');
    const aside = `<section class="related"><h3>Related</h3><ul>${related}</ul></section>`;
    const parts = [
      `<article><p class="kicker">${page.section}</p><h1>${page.title}</h1>`,
      `<p class="byline">By ${words(r, 2).join(' ')} · ${1 + (i % 28)} March 2026</p>`,
      `<figure><img src="/img/${i}.jpg" width="1200" height="675" alt="${words(r, 5).join(' ')}"><figcaption>${sentence(r)}</figcaption></figure>`,
    ];
    let size = shell(page.title, page.section, parts.join('\n'), aside).body.length + 80;
    while (size < target) {
      const p = `<p>${Array.from({ length: 3 + Math.floor(r() * 5) }, () => sentence(r)).join(' ')}</p>`;
      parts.push(p);
      size += p.length;
      if (r() < 0.12) parts.push(`<h2>${title(r)}</h2>`);
      if (r() < 0.05) parts.push(`<blockquote>${sentence(r)}</blockquote>`);
    }
    parts.push(`<p>Read on: <a href="https://wire.example/story/${i}">the wire's account</a>.</p></article>`);
    return shell(page.title, page.section, parts.join('\n'), aside);
  };

  const home = (): Page => {
    const lead = Array.from(
      { length: Math.min(n, 24) },
      (_, k) => `<li><a href="/news/${k}">${pages[k]!.title}</a></li>`,
    );
    return shell('Front page', 'news', `<h1>Today</h1><ul class="front">${lead.join('')}</ul>`, '');
  };

  return {
    '/': home(),
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
    '/static/site.css': { type: 'text/css', body: STYLE.replace(/<\/?style>/g, '') },
    '*': (req: IncomingMessage) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/sitemap.xml') {
        const host = req.headers.host ?? 'localhost';
        return {
          type: 'application/xml',
          body:
            '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
            ['/', ...pages.map((_, k) => `/news/${k}`)]
              .map((p) => `<url><loc>http://${host}${p}</loc></url>`)
              .join('') +
            '</urlset>',
        };
      }
      if (path.startsWith('/img/')) return { type: 'image/jpeg', body: '\xff\xd8\xff\xe0 bench image' };
      const m = /^\/news\/(\d+)$/.exec(path);
      const i = m ? Number(m[1]) : -1;
      if (i < 0 || i >= n) return { status: 404, type: 'text/html', body: '<h1>Not found</h1>' };
      let page = built.get(i);
      if (!page) {
        // Built pages are kept for the rounds of a bench, up to a bound: a 100,000-page site
        // would otherwise hold ~2.8 GB of html in the test web.
        if (built.size >= BUILT_PAGES_KEPT) built.delete(built.keys().next().value!);
        built.set(i, (page = build(i)));
      }
      return page;
    },
  };
};
