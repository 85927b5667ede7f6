import type { Page, Site } from './test-web.js';

/**
 * hostile.test: pages that carry what a database cannot hold, as real sites sometimes do — NUL
 * bytes from a broken CMS export, JSON-LD written with `\u0000` and lone-surrogate escapes,
 * character references to NUL and to surrogates, bytes that are not UTF-8, a page declared
 * UTF-16 with a stray surrogate, a robots.txt and a sitemap with NULs, and a link far longer than
 * any URL should be, and a guestbook whose entries each open a <font> they never close (markup
 * nested 40,000 deep, past any recursive walk's stack), and an archive index whose links alone
 * are more bytes than a message may carry (`/link-farm`, not linked from the other pages). Two
 * more, not linked either, cost a reader the square of their size unless it is written for them:
 * tag soup whose elements are never closed (`/tag-soup`, 2.8 MB) and a tag cloud of 40,000 links
 * in one paragraph (`/tag-cloud`). Each page is the size of a real one (nav, article, scripts,
 * footer) or more.
 */
export const GUESTBOOK_ENTRIES = 40_000;
/** Links on `/link-farm`: ~1.3 MB of absolute URLs, past NATS's 1 MB max_payload on their own. */
export const LINK_FARM_LINKS = 12_000;
/** Repeats on `/tag-soup` of a paragraph, span and link never closed: 300,000 elements open at once. */
export const TAG_SOUP_REPEATS = 100_000;
/** Links in the one paragraph of `/tag-cloud`. */
export const TAG_CLOUD_LINKS = 40_000;

export const hostileSite = (origin: string, articles = 20): Site => {
  const nav = [
    '<a href="/">Home</a>',
    ...Array.from({ length: articles }, (_, i) => `<a href="/p/${i}">Story ${i}</a>`),
    '<a href="/nul-article">Archive</a>',
    '<a href="/utf16">International</a>',
    '<a href="/long-link">Campaign</a>',
    '<a href="/poison">Press</a>',
    '<a href="/guestbook">Guestbook</a>',
  ].join(' | ');
  const words = (seed: number, n: number) =>
    Array.from({ length: n }, (_, i) => `tide${(i * 13 + seed) % 89} harbour${(i + seed) % 17}`).join(' ');
  const paragraphs = (seed: number, n = 24) =>
    Array.from({ length: n }, (_, i) => `<p>${words(seed + i, 60)}.</p>`).join('\n');
  const scripts =
    '<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag("js",new Date());</script>' +
    '<script src="/static/vendor.3f9a.js" async></script>';
  const page = (title: string, body: string, head = ''): string =>
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
    `<meta name="viewport" content="width=device-width">${head}${scripts}</head><body>` +
    `<header class="site-header"><nav class="menu">${nav}</nav></header>` +
    `<main id="content">${body}</main>` +
    `<footer><p>© Hostile Test Web</p><nav><a href="/about">About</a> <a href="/contact">Contact</a></nav></footer>` +
    '</body></html>';
  const htmlPage = (body: string | Buffer, type = 'text/html; charset=utf-8'): Page => ({ type, body });

  // NUL bytes straight in the markup, in text, attributes and an href; JSON-LD with escapes that
  // decode to NUL and to a lone surrogate; references to NUL and to surrogates.
  const nulArticle = Buffer.concat([
    Buffer.from(
      page(
        'Annual report\u0000 2024 &#xD800;',
        `<article><h1>Annual\u0000 report &#0; 2024</h1>
<p class="lede">Exported from the old CMS\u0000\u0000 with its stray bytes: ` +
          `&#xD83C; (half an emoji) and &#xDC00; (the other half, alone).</p>
${paragraphs(7)}
<p>Related: <a href="/p/1\u0000">Story one\u0000</a>, <a href="/p/2?ref=&#xD800;">Story two</a>,
<a href="/p/3">Story three &#0;</a>.</p></article>`,
        '<meta name="description" content="Figures\u0000 for the year &#xDBFF;">' +
          '<meta property="og:title" content="Report\u0000">' +
          '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article",' +
          '"headline":"Annual\\u0000report","author":{"@type":"Person","name":"A\\ud800B"},"keywords":["x\\udfff","\\u0000"]}</script>',
      ),
    ),
    // Bytes that are not UTF-8 at all (an overlong form, a CESU-8 surrogate, a lone continuation).
    Buffer.from([0x3c, 0x21, 0x2d, 0x2d, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0xff, 0x80, 0x2d, 0x2d, 0x3e]),
  ]);

  // Declared UTF-16 (little endian); one code unit is a high surrogate with no low one after it.
  const utf16Text = page(
    'Internationale Ausgabe',
    `<article><h1>Gezeiten\uFFFF</h1>${paragraphs(31, 18)}<p>Ende.</p></article>`,
  ).replace('\uFFFF', 'X');
  const utf16 = Buffer.from(utf16Text, 'utf16le');
  const at = utf16.indexOf(Buffer.from('X', 'utf16le'));
  utf16.writeUInt16LE(0xd800, at); // the X becomes a lone high surrogate

  const longPath = `/campaign/${Array.from({ length: 800 }, (_, i) => ((i * 7919) % 100_003).toString(36)).join('-')}`;

  // A guestbook from an old CMS: each entry opens a <font> it never closes, so the tree nests one
  // level deeper per entry.
  const guestbook = page(
    'Guestbook',
    `<article><h1>Guestbook</h1><p class="lede">Signed by every visitor since 1999.</p>` +
      Array.from({ length: GUESTBOOK_ENTRIES }, (_, i) => `<font>entry ${i} tide${i % 89} `).join('') +
      '<p>Last entry of the guestbook.</p></article>',
  );

  // An archive index from an old CMS: every entry ever published, each a distinct URL (the
  // stories again, under tracking parameters), one list.
  const linkFarm = page(
    'Archive index',
    `<article><h1>Archive index</h1>${paragraphs(11, 6)}<ul class="archive">` +
      Array.from(
        { length: LINK_FARM_LINKS },
        (_, i) =>
          `<li><a href="/p/${i % articles}?from=archive-index&entry=${i}&utm_source=hostile-archive">Entry ${i}</a></li>`,
      ).join('') +
      '</ul></article>',
  );

  // Tag soup: every entry opens a paragraph, a span and a link and closes only the link (a <p>
  // closes only a <p> on top), so the parse holds 300,000 elements open at once.
  const tagSoup = page(
    'Tag soup',
    '<article><h1>Tag soup</h1><p class="lede">Every entry of the old board, as its software wrote them.</p>' +
      Array.from({ length: TAG_SOUP_REPEATS }, (_, i) => `<p><span><a href="/p/${i % articles}">e${i}</a>`).join('') +
      '</article>',
  );
  // A tag cloud: every tag the blog ever used, linked, in one paragraph.
  const tagCloud = page(
    'All tags',
    `<article><h1>All tags</h1>${paragraphs(13, 4)}<p class="cloud">` +
      Array.from({ length: TAG_CLOUD_LINKS }, (_, i) => `<a href="/tag/${i}">tag${i}</a> `).join('') +
      '</p></article>',
  );

  const site: Site = {
    '/': htmlPage(page('Hostile Test Web', `<h1>Front page</h1>${paragraphs(1, 20)}`)),
    '/nul-article': htmlPage(nulArticle),
    '/utf16': htmlPage(utf16, 'text/html; charset=utf-16le'),
    '/long-link': htmlPage(
      page(
        'Campaign',
        `<article><h1>Campaign</h1>${paragraphs(3, 20)}<p><a href="${longPath}">Track this</a> and <a href="/p/4">Story four</a>.</p></article>`,
      ),
    ),
    '/guestbook': htmlPage(guestbook),
    '/link-farm': htmlPage(linkFarm),
    '/tag-soup': htmlPage(tagSoup),
    '/tag-cloud': htmlPage(tagCloud),
    '/poison': htmlPage(page('Press', `<article><h1>Press room</h1>${paragraphs(5, 20)}</article>`)),
    '/robots.txt': {
      type: 'text/plain',
      body: `User-agent: *\nAllow: /\n# generated\u0000 by the CMS \u0000\nSitemap: ${origin}/sitemap.txt\n`,
    },
    '/sitemap.txt': {
      type: 'text/plain',
      body: [`${origin}/`, `${origin}/nul-article`, `${origin}/p/5\u0000`, `${origin}/p/6`].join('\n') + '\n',
    },
  };
  for (let i = 0; i < articles; i++)
    site[`/p/${i}`] = htmlPage(page(`Story ${i}`, `<article><h1>Story ${i}</h1>${paragraphs(100 + i)}</article>`));
  return site;
};
