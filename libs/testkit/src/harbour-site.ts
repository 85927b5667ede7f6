import type { Page, Site } from './test-web.js';

/**
 * harbour.test: a marina's site that publishes a new edition between runs, for change records
 * seen end to end (the web application's journeys, and a person trying `pnpm start`).
 *
 * The edition is `state.edition`. With `state.auto` (the default) it advances each time
 * robots.txt is read: a run reads it once, before any page, so two runs in a row always see two
 * editions (a discovery snapshot reads it too, which only skips a number). Odd editions show
 * version A of the site, even ones version B, so any two runs in a row differ in every way below
 * (from B back to A the other way round):
 *
 * | page | A | B |
 * |---|---|---|
 * | `/prices` | a day mooring costs $19 | $24, and a new paragraph on showers |
 * | `/moorings` | the berth count in `.berth-count` | in a new block: the field's selector breaks |
 * | `/news/winter-regatta` | the regatta article | gone: it moved to `/events/winter-regatta` |
 * | `/news/new-pontoon` | absent | a new article (added) |
 * | `/` | a timestamp that changes every edition (noise the change record sets aside) | |
 * | `/tides`, `/contact` | the same in both | |
 *
 * robots.txt declares /sitemap.xml, which lists the site but not `/news/new-pontoon` (unlisted)
 * and lists `/timetable-2025`, a printable page nothing links to and that links nowhere (an
 * orphan and a dead end).
 *
 * Pages are the size of real ones (15-40 KB): a mega menu, a cookie banner, inline scripts and
 * JSON-LD, a long footer and some old markup (upper-case tags, unclosed items, comments).
 */
export interface HarbourState {
  edition: number;
  auto: boolean;
}

export const harbourState = (): HarbourState => ({ edition: 0, auto: true });

const SENTENCES = [
  'Visitors arriving by sea should call the harbour office on channel twelve before entering the outer basin.',
  'The visitor pontoon sits on the east side of the inner harbour, sheltered from the prevailing south-westerlies.',
  'Fresh water and shore power are available on every finger berth, and the fuel berth opens at eight each morning.',
  'At low water springs the approach channel carries a little under two metres, so deeper keels should time their arrival.',
  'The harbour master keeps a list of local engineers, riggers and sailmakers who can help with repairs at short notice.',
  'Our slipway can take boats up to twelve tonnes, and the yard crane lifts out most cruising yachts in under an hour.',
  'The town is a short walk along the quay, with a bakery, two chandleries and a fishmonger selling the morning catch.',
  'Dogs are welcome on the pontoons on a short lead; please keep them off the fuel berth and the lifeboat slip.',
  'Rubbish and recycling bins stand at the head of each pontoon, and waste oil goes in the tank beside the fuel berth.',
  'During regatta week the inner harbour fills quickly, so we recommend booking a berth at least a fortnight ahead.',
  'The tidal range here reaches five metres at springs, which is why the inner basin is held in by a sill and a flap gate.',
  'Crews leaving early can pay at the machine by the office, which takes cards and prints a receipt for the berth fee.',
];

const prose = (seed: number, sentences: number): string => {
  const out: string[] = [];
  for (let i = 0; i < sentences; i++) out.push(SENTENCES[(seed * 7 + i * 5) % SENTENCES.length]!);
  const paras: string[] = [];
  for (let i = 0; i < out.length; i += 3) paras.push(`<p>${out.slice(i, i + 3).join(' ')}</p>`);
  return paras.join('\n');
};

const MENU = [
  ['Berths', ['/moorings', '/prices', '/moorings#winter', '/moorings#long-stay', '/moorings#multihulls']],
  ['Harbour', ['/tides', '/tides#approach', '/tides#sill', '/contact', '/contact#office-hours']],
  ['News', ['/news/', '/news/new-pontoon', '/events/winter-regatta', '/news/#archive', '/news/#press']],
  ['Visit', ['/contact#getting-here', '/contact#parking', '/tides#weather', '/prices#fuel', '/moorings#facilities']],
] as const;

const megaMenu = () =>
  `<NAV class="mega-menu" aria-label="Main">
<ul class="menu">${MENU.map(
    ([title, links]) =>
      `<LI class="menu__group"><span class="menu__title">${title}</span><ul class="menu__list">${links
        .map((l) => `<li class="menu__item"><a class="menu__link" href="${l}">${l.replace(/[/#-]+/g, ' ').trim()}</a>`)
        .join('')}</ul>`,
  ).join('\n')}</ul></NAV>`;

const analyticsScript = (page: string) =>
  `<script>
/* harbour analytics v3.2.1 — queued until consent */
(function (w, d) {
  var q = (w.__hq = w.__hq || []);
  function push() { q.push([Date.now()].concat([].slice.call(arguments))); }
  push('page', ${JSON.stringify(page)});
  var consent = d.cookie.indexOf('consent=yes') >= 0;
  if (!consent) { d.addEventListener('consent', function () { push('consent'); }); return; }
${Array.from({ length: 40 }, (_, i) => `  push('metric', 'm${i}', ${(i * 37) % 101});`).join('\n')}
})(window, document);
</script>`;

const footer = () =>
  `<footer class="site-footer">
<div class="footer__cols">${['Harbour office', 'Berths', 'Town', 'Legal']
    .map(
      (col, c) =>
        `<div class="footer__col"><h4>${col}</h4><ul>${Array.from(
          { length: 6 },
          (_, i) => `<li><a href="/contact#f${c}-${i}">${col} link ${i + 1}</a></li>`,
        ).join('')}</ul></div>`,
    )
    .join('')}</div>
<p class="footer__small">© Harbour Trust. Registered charity 1099. <FONT size="1">Site by the harbour volunteers.</FONT></p>
<!-- build 2026.11 / cache node 3 -->
</footer>`;

const layout = (path: string, title: string, main: string, extraHead = ''): Page => ({
  type: 'text/html; charset=utf-8',
  body: `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${title} | Harbour Trust</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="${title}: berths, tides and news from the Harbour Trust marina.">
<link rel="canonical" href="${path}">
<script type="application/ld+json">${JSON.stringify({
    '@context': 'https://schema.org',
    '@type': 'Marina',
    name: 'Harbour Trust marina',
    telephone: '+44 1234 567890',
    openingHours: 'Mo-Su 08:00-18:00',
  })}</script>${extraHead}
<style>.cookie{position:fixed;bottom:0}.menu{display:flex}</style>
</head>
<body class="page">
<div class="cookie" id="cookie-banner" role="dialog">We use cookies to count visits. <button>Accept</button> <button>Refuse</button></div>
<header class="site-header"><a class="logo" href="/"><svg width="40" height="40" viewBox="0 0 40 40"><circle cx="20" cy="20" r="18"/></svg> Harbour Trust</a>
${megaMenu()}</header>
<main id="content">
${main}
</main>
<aside class="sidebar"><h3>Opening hours</h3><p>Office open 08:00–18:00 every day; the fuel berth closes an hour earlier in winter.</p></aside>
${footer()}
${analyticsScript(path)}
</body></html>`,
});

/** Text that stays the same wherever it is published (a page that moves keeps it). */
const regattaArticle = `<article class="news-item"><h1>Winter regatta returns</h1>
<p class="byline">Posted by the harbour office</p>
${prose(3, 18)}
<p>Entries close on the first Friday of December; the briefing is at the clubhouse at nine.</p></article>`;

export const harbourSite = (origin: string, state: HarbourState = harbourState()): Site => {
  /** 0 for version A (odd editions), 1 for version B (even ones). */
  const version = () => (state.edition % 2 === 1 ? 0 : 1);
  const newsLinks = () =>
    version() === 0
      ? [['/news/winter-regatta', 'Winter regatta returns']]
      : [
          ['/events/winter-regatta', 'Winter regatta returns'],
          ['/news/new-pontoon', 'A new visitor pontoon'],
        ];
  const notFound = (): Page => ({ status: 404, ...layout('/404', 'Not found', '<h1>Page not found</h1>') });

  return {
    '/robots.txt': () => {
      if (state.auto) state.edition += 1;
      return { type: 'text/plain', body: `User-agent: *\nDisallow: /admin/\nSitemap: ${origin}/sitemap.xml\n` };
    },
    '/sitemap.xml': () => ({
      type: 'application/xml',
      body:
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
        ['/', '/moorings', '/prices', '/tides', '/contact', '/news/', newsLinks()[0]![0], '/timetable-2025']
          .map((p) => `<url><loc>${origin}${p}</loc><lastmod>2026-11-${20 + version()}</lastmod></url>`)
          .join('\n') +
        '\n</urlset>',
    }),
    '/timetable-2025': () => ({
      type: 'text/html; charset=utf-8',
      body: `<html><head><title>Tide timetable 2025 (print)</title></head><body><h1>Tide timetable 2025</h1>
<p>Printable timetable for the harbour approach. Heights in metres above chart datum.</p>
<table border="1">${Array.from(
        { length: 120 },
        (_, i) =>
          `<tr><td>Day ${i + 1}</td><td>${String((5 + i) % 24).padStart(2, '0')}:${String((i * 13) % 60).padStart(2, '0')}</td><td>${(3.8 + (i % 7) * 0.2).toFixed(1)}</td><td>${String((11 + i) % 24).padStart(2, '0')}:${String((i * 29) % 60).padStart(2, '0')}</td><td>${(0.6 + (i % 5) * 0.1).toFixed(1)}</td></tr>`,
      ).join('\n')}</table></body></html>`,
    }),
    '/': () =>
      layout(
        '/',
        'Welcome to the harbour',
        `<h1>Welcome to the harbour</h1>
<p class="updated">Updated 2026-11-${String(1 + (state.edition % 28)).padStart(2, '0')} 0${state.edition % 10}:14:55</p>
${prose(1, 15)}
<h2>Latest news</h2><ul class="news">${newsLinks()
          .map(([href, text]) => `<li><a href="${href}">${text}</a>`)
          .join('')}</ul>
<h2>Plan your visit</h2><ul><li><a href="/moorings">Moorings</a></li><li><a href="/prices">Prices</a></li>
<li><a href="/tides">Tides and approach</a></li><li><a href="/contact">Contact the office</a></li></ul>`,
      ),
    '/prices': () =>
      layout(
        '/prices',
        'Prices',
        `<h1>Berth prices</h1>
<h2>Visitors</h2>
<p>A day mooring costs <span class="mooring-price">$${[19, 24][version()]}</span> at the visitor pontoon.</p>
${version() >= 1 ? '<p>Showers are now free for every boat staying two nights or more.</p>' : ''}
${prose(2, 15)}
<h2 id="fuel">Fuel</h2><table class="fuel"><tr><th>Fuel</th><th>Per litre</th></tr><tr><td>Diesel</td><td>$1.62</td></tr><tr><td>Petrol</td><td>$1.75</td></tr></table>`,
      ),
    '/moorings': () =>
      layout(
        '/moorings',
        'Moorings',
        `<h1>Moorings</h1>
${
  version() === 0
    ? '<p>Berths free tonight: <b class="berth-count">14</b></p>'
    : '<div class="availability"><h2>Tonight</h2><p>Berths free: <strong data-live="berths">14</strong></p></div>'
}
<h2 id="winter">Winter berths</h2>${prose(4, 9)}
<h2 id="long-stay">Long stays</h2>${prose(5, 9)}
<h2 id="facilities">Facilities</h2><UL><LI>Showers<LI>Laundry<LI>Wi-Fi<LI>Pump-out</UL>`,
      ),
    '/tides': () =>
      layout(
        '/tides',
        'Tides and approach',
        `<h1>Tides and approach</h1><h2 id="approach">Approach</h2>${prose(6, 12)}
<h2 id="sill">The sill</h2>${prose(7, 9)}
<table class="tides"><tr><th>Day</th><th>High water</th><th>Height</th></tr>${Array.from(
          { length: 14 },
          (_, i) =>
            `<tr><td>Day ${i + 1}</td><td>${String((6 + i) % 24).padStart(2, '0')}:${String((i * 17) % 60).padStart(2, '0')}</td><td>${(4 + (i % 5) * 0.3).toFixed(1)} m</td></tr>`,
        ).join('')}</table>`,
      ),
    '/contact': () =>
      layout(
        '/contact',
        'Contact',
        `<h1>Contact the harbour office</h1>${prose(8, 9)}
<form class="contact" action="/contact" method="post"><label>Name <input name="name"></label><label>Message <textarea name="msg"></textarea></label><button>Send</button></form>`,
      ),
    '/news/': () =>
      layout(
        '/news/',
        'News',
        `<h1>News</h1><ul class="news-list">${newsLinks()
          .map(([href, text]) => `<li><a href="${href}">${text}</a></li>`)
          .join('')}</ul>${prose(9, 6)}`,
      ),
    '/news/winter-regatta': () =>
      version() === 0 ? layout('/news/winter-regatta', 'Winter regatta returns', regattaArticle) : notFound(),
    '/events/winter-regatta': () =>
      version() >= 1 ? layout('/events/winter-regatta', 'Winter regatta returns', regattaArticle) : notFound(),
    '/news/new-pontoon': () =>
      version() >= 1
        ? layout(
            '/news/new-pontoon',
            'A new visitor pontoon',
            `<article class="news-item"><h1>A new visitor pontoon</h1>${prose(10, 15)}</article>`,
          )
        : notFound(),
    '*': notFound,
  };
};
