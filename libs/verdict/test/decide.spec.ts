import { describe, expect, it } from '@jest/globals';
import { parseHTML } from 'linkedom';
import { decideVerdict, pageFeatures, type FetchFacts } from '../src/index.js';

const page = (body: string, head = '<title>A page</title>') =>
  `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
const judge = (
  html: string,
  fetch: Partial<FetchFacts> = {},
  opts = { minWords: 0, languages: [] as string[] },
  mainWords?: number,
) => {
  const { document } = parseHTML(html);
  const f = pageFeatures(document as unknown as Document, html);
  return decideVerdict(
    { tier: 'http', status: 200, headers: {}, ...fetch },
    f,
    { words: mainWords ?? f.words, language: 'en' },
    opts,
  );
};

describe('decideVerdict', () => {
  it('reads an article as ok and says what it is made of', () => {
    const v = judge(
      page(
        `<nav><a href="/">Home</a></nav><main><article><p>${words(300)}</p></article></main>`,
        '<title>Tides</title><meta property="og:title" content="x"><script type="application/ld+json">{}</script>',
      ),
    );
    expect(v).toMatchObject({ verdict: 'ok', errorCode: 'OK', climb: false });
    expect(v.signals).toEqual(expect.arrayContaining(['nav', '1 links', 'json-ld', 'open graph', 'main']));
  });

  it('calls an empty mount point with scripts an app shell and climbs', () => {
    const v = judge(
      page(
        '<div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript><script src="/a.js"></script>',
      ),
    );
    expect(v).toMatchObject({ verdict: 'blocked', errorCode: 'SHELL', climb: true });
    expect(v.signals).toEqual(expect.arrayContaining(['app shell', 'no script']));
  });

  it('calls a shell a shell however long the content it declares of itself (its JSON-LD, its description)', () => {
    const html = page(
      '<div id="root"></div><script src="/a.js"></script><script src="/b.js"></script><script src="/c.js"></script>',
    );
    const { document } = parseHTML(html);
    const f = pageFeatures(document as unknown as Document, html);
    const fetch: FetchFacts = { tier: 'http', status: 200, headers: {} };
    const opts = { minWords: 0, languages: [] };
    const declared = decideVerdict(fetch, f, { words: 120, language: 'en', declared: true }, opts);
    expect(declared).toMatchObject({ verdict: 'blocked', errorCode: 'SHELL', climb: true });
    expect(declared.signals).toEqual(expect.arrayContaining(['app shell', 'declared content']));
    // The same words read from the body would make it a page.
    expect(decideVerdict(fetch, f, { words: 120, language: 'en' }, opts).errorCode).toBe('OK');
  });

  it('does not call a rendered page a shell', () => {
    const v = judge(page(`<div id="root"><p>${words(120)}</p></div>`), { tier: 'browser' });
    expect(v.verdict).toBe('ok');
  });

  it('keeps a short real page as thin with its shape', () => {
    const form = judge(page('<h1>Contact</h1><form><input name="a"><input name="b"><textarea></textarea></form>'));
    expect(form).toMatchObject({ verdict: 'thin', errorCode: 'OK', shape: 'form', warnings: ['short'] });
    const table = judge(page('<table><tr><td>1</td></tr><tr><td>2</td></tr><tr><td>3</td></tr></table>'));
    expect(table.shape).toBe('table');
    const listing = judge(page('<ul>' + '<li><a href="/x">x</a></li>'.repeat(6) + '</ul>'));
    expect(listing.shape).toBe('listing');
    expect(judge(page('<p>Hello.</p>')).shape).toBe('empty');
  });

  it('tells 404, soft 404 and a doubtful 404 apart', () => {
    expect(judge(page('<h1>Gone</h1>'), { status: 404 })).toMatchObject({ verdict: 'blocked', errorCode: 'NOT_FOUND' });
    const soft = judge(page('<h1>Page not found</h1><p>Sorry.</p>', '<title>Page not found</title>'));
    expect(soft).toMatchObject({ verdict: 'blocked', errorCode: 'NOT_FOUND' });
    expect(soft.signals).toContain('soft 404');
    const doubt = judge(page(`<h1>Error 404 explained</h1><p>${words(400)}</p>`));
    expect(doubt.verdict).toBe('ok');
    expect(doubt.signals).toContain('soft404?');
    // A bare 404 says "not found" alone or beside an error word, not as a number in a title.
    for (const title of ['404', '404 | Example', 'Example – 404', 'Oops, 404!']) {
      expect(judge(page(`<p>${words(40)}</p>`, `<title>${title}</title>`))).toMatchObject({ errorCode: 'NOT_FOUND' });
    }
    for (const title of ['Page 404', 'Peugeot 404 review', 'Invoice 14045', 'Route 404 closures']) {
      const read = judge(page(`<h1>${title}</h1><p>${words(120)}</p>`, `<title>${title}</title>`));
      expect(read).toMatchObject({ verdict: 'ok', errorCode: 'OK' });
    }
  });

  it('recognises challenges, captchas, logins and geo blocks', () => {
    expect(
      judge(page('<h1>Just a moment...</h1><script src="/cdn-cgi/challenge-platform/x.js"></script>'), { status: 403 }),
    ).toMatchObject({ errorCode: 'BLOCKED', climb: true });
    expect(judge(page('<p>Access denied</p>'), { status: 403 })).toMatchObject({ errorCode: 'BLOCKED', climb: true });
    expect(judge(page('<div class="g-recaptcha" data-sitekey="x"></div>'))).toMatchObject({
      errorCode: 'CAPTCHA',
      climb: true,
    });
    expect(judge(page(`<p>${words(300)}</p>`), { tier: 'browser', widget: 'turnstile' })).toMatchObject({
      errorCode: 'CAPTCHA',
    });
    expect(judge(page('<h1>Sign in</h1><form><input name="u"><input type="password" name="p"></form>'))).toMatchObject({
      errorCode: 'LOGIN_REQUIRED',
      climb: false,
    });
    expect(judge(page('<h1>Sorry</h1><p>This video is not available in your country.</p>'))).toMatchObject({
      errorCode: 'GEO_RESTRICTED',
      climb: true,
    });
    expect(judge(page('<p>x</p>'), { status: 451 })).toMatchObject({ errorCode: 'GEO_RESTRICTED' });
  });

  it('honours Retry-After on a 429, in seconds or as a date', () => {
    expect(judge(page('<p>slow down</p>'), { status: 429, headers: { 'retry-after': '30' } })).toMatchObject({
      errorCode: 'RATE_LIMITED',
      retryAfter: 30,
      climb: false,
    });
    const at = new Date(Date.now() + 90_000).toUTCString();
    const v = judge(page(''), { status: 429, headers: { 'retry-after': at } });
    expect(v.retryAfter).toBeGreaterThanOrEqual(88);
    expect(v.retryAfter).toBeLessThanOrEqual(91);
  });

  it('skips pages under the word floor or outside the language list', () => {
    expect(judge(page(`<p>${words(100)}</p>`), {}, { minWords: 200, languages: [] }).verdict).toBe('skipped');
    expect(judge(page(`<p>${words(100)}</p>`), {}, { minWords: 0, languages: ['de'] }).verdict).toBe('skipped');
    expect(judge(page(`<p>${words(100)}</p>`), {}, { minWords: 0, languages: ['en'] }).verdict).toBe('ok');
  });
});
