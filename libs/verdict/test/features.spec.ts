import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { parseHTML } from 'linkedom';
import { CAPTCHA_MARKUP, CHALLENGE_MARKUP } from '../src/markers.js';
import {
  countWords,
  decideVerdict,
  LITTLE_WORDS,
  pageFeatures,
  TEXT_KEPT,
  WORDS_COUNTED,
  type PageFeatures,
} from '../src/index.js';

/**
 * The features as they were first written, one querySelectorAll per feature: the oracle the
 * one-walk version must agree with, field for field.
 */
const bySelectors = (doc: Document, html: string): Omit<PageFeatures, 'challengeMarkup' | 'captchaMarkup'> => {
  const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();
  const INVISIBLE = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'HEAD']);
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
  void html;
  const body = doc.body ?? doc.documentElement;
  const text = body ? visibleText(body) : '';
  const count = (selector: string) => doc.querySelectorAll(selector).length;
  const roots = [
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
  return {
    title: collapse(doc.querySelector('title')?.textContent ?? ''),
    h1: collapse(doc.querySelector('h1')?.textContent ?? ''),
    text: text.slice(0, TEXT_KEPT),
    words: Math.min((text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []).length, WORDS_COUNTED),
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
    appRoot: roots.some((sel) => {
      const el = doc.querySelector(sel);
      return el !== null && collapse(el.textContent ?? '').length < 40;
    }),
    listItems: count('li'),
    tableRows: count('tr'),
    forms: count('form'),
    inputs: count('input:not([type=hidden]), select, textarea'),
    passwordInputs: count('input[type=password]'),
  };
};

const agree = (html: string) => {
  const { document } = parseHTML(html);
  const doc = document as unknown as Document;
  const { challengeMarkup: _c, captchaMarkup: _k, ...walked } = pageFeatures(doc, html);
  // The walk through the DOM's getters, kept for a document without linkedom's links, agrees too.
  expect(pageFeatures(doc, html, { links: null })).toEqual(pageFeatures(doc, html));
  expect(walked).toEqual(bySelectors(doc, html));
};

describe('pageFeatures (one walk)', () => {
  it('agrees with a selector per feature on pages written to be awkward', () => {
    agree(
      '<!doctype html><html><head><title> A  page </title><meta property="og:title" content="x">' +
        '<script type="application/ld+json">{}</script><script>var a = "<p>no</p>";</script></head><body>' +
        '<nav><a href="/">Home</a><a>no href</a></nav><div role="navigation"></div><h1>First <b>one</b></h1><h1>Second</h1>' +
        '<article><p>Words here</p><ul><li>a</li><li>b</li></ul><table><tr><td>1</td></tr><tr><td>2</td></tr></table></article>' +
        '<form><input type="hidden" name="t"><input name="q"><input type="password"><select></select><textarea></textarea></form>' +
        '<template><a href="/in-template">x</a><li>t</li><div id="root"></div></template>' +
        '<svg><title>Icon</title><a href="/svg-link"><text>svg text</text></a></svg>' +
        '<noscript>Enable JavaScript</noscript><noscript><p>second</p></noscript>' +
        '<div id="app">this mount point holds more than forty characters of text already</div><div id="__next"></div>' +
        '<div role="main"><br>after break</div><section>s</section></body></html>',
    );
    agree('<html><head><title>No body</title></head><p>text without a body element</p></html>');
    agree('<p>a fragment, no html, head or body</p><app-root></app-root><div data-reactroot>x</div>');
    agree('<!doctype html><html><body><div ng-app="x">' + 'long text '.repeat(10) + '</div></body></html>');
  });

  it('keeps the opening of a long text and counts its words up to the bound, as the whole text would give', () => {
    const long = (lead: string) =>
      `<html><body>${lead}<p>${Array.from({ length: 1500 }, (_, i) => `tide${i}`).join(' \n  ')}</p></body></html>`;
    // Long: only an opening is collapsed. Led by more whitespace than that opening: the whole is.
    for (const html of [long(''), long(`<div>${' \n\t'.repeat(2000)}</div>`), long('<p>  a  </p>'.repeat(700))]) {
      agree(html);
      const f = pageFeatures(parseHTML(html).document as unknown as Document, html);
      expect([f.text.length, f.words]).toEqual([TEXT_KEPT, WORDS_COUNTED]);
    }
  });

  // The WCXB development pages (WCXB_ROOT, /work/shared/extraction/wcxb as the extraction tools
  // read it), a sample of every thirtieth: real pages' odd markup. Skipped where they are not.
  const dir = pathToFileURL(`${process.env.WCXB_ROOT ?? '/work/shared/extraction/wcxb'}/dev/html/`);
  const files = existsSync(dir)
    ? readdirSync(dir)
        .sort()
        .filter((_, i) => i % 30 === 0)
    : [];
  (files.length ? it : it.skip)(`agrees with a selector per feature on ${files.length} real pages`, () => {
    for (const f of files) agree(gunzipSync(readFileSync(new URL(f, dir))).toString('utf8'));
  });
});

describe('countWords', () => {
  const byExpression = (text: string, bound = Infinity) =>
    Math.min((text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []).length, bound);
  it('counts as the expression does, character by character', () => {
    const samples = [
      '',
      "tide's high-water mark -- at 06:12, isn't it? 'quoted' ’tis ’n’ -x- a--b ’’",
      'Ünïcode naïve café 東京の潮 Привет мир ١٢٣ ४५६',
      'astral 𝐀𝐁𝐂 letters, an emoji 🌊 between, 𝟏𝟐 digits',
      'lone \ud800 high and \udc00 low surrogates, \ud83c at the end \ud800',
      '_under_score_ and tabs\tand\nlines\u00a0nbsp\u2028sep',
    ];
    // Random strings over the characters that decide a word's edges.
    const pieces = ['a', 'Z', '7', "'", '’', '-', ' ', '_', 'é', '東', '🌊', '𝐀', '\ud800', '\udc00', '.', '\n'];
    let seed = 7;
    for (let i = 0; i < 500; i++) {
      let s = '';
      for (let k = 0; k < 30; k++) s += pieces[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % pieces.length];
      samples.push(s);
    }
    for (const s of samples) {
      expect([s, countWords(s)]).toEqual([s, byExpression(s)]);
      expect([s, countWords(s, 3)]).toEqual([s, byExpression(s, 3)]);
    }
  });
});

describe('challenge and captcha markup', () => {
  const doc = (html: string) => parseHTML(html).document as unknown as Document;
  it('finds every marker, in any letter case, and names it as listed', () => {
    for (const [list, field] of [
      [CHALLENGE_MARKUP, 'challengeMarkup'],
      [CAPTCHA_MARKUP, 'captchaMarkup'],
    ] as const) {
      for (const marker of list) {
        for (const spelt of [marker, marker.toUpperCase()]) {
          const html = `<html><head><script src="https://edge.example/${spelt}?v=2"></script></head><body><p>Hi</p></body></html>`;
          expect([marker, pageFeatures(doc(html), html)[field]]).toEqual([marker, marker]);
        }
      }
    }
  });

  it('lists markers in ASCII, which the one pass that looks for any of them folds for letter case', () => {
    for (const marker of [...CHALLENGE_MARKUP, ...CAPTCHA_MARKUP]) expect(marker).toMatch(/^[\x20-\x7e]+$/);
  });

  it('looks for them, when the status is known, only where they can decide the verdict', () => {
    const page = (words: number) =>
      `<html><head><script src="https://www.google.com/recaptcha/api.js"></script></head><body><form>
      <div class="g-recaptcha" data-sitekey="k"></div></form><p>${'tide '.repeat(words)}</p></body></html>`;
    const long = page(LITTLE_WORDS + 50);
    const short = page(20);
    // A long page that answered 200: not looked for, and the verdict is what it was with them.
    const f = pageFeatures(doc(long), long, { status: 200 });
    expect(f.captchaMarkup).toBeUndefined();
    const facts = { tier: 'http' as const, status: 200, headers: {} };
    const content = { words: LITTLE_WORDS + 50, language: null };
    const opts = { minWords: 0, languages: [] };
    expect(decideVerdict(facts, f, content, opts)).toEqual(
      decideVerdict(facts, pageFeatures(doc(long), long), content, opts),
    );
    // A page that says little, or answered an error: looked for.
    expect(pageFeatures(doc(short), short, { status: 200 }).captchaMarkup).toBe('g-recaptcha');
    expect(pageFeatures(doc(long), long, { status: 403 }).captchaMarkup).toBe('g-recaptcha');
    expect(
      decideVerdict(facts, pageFeatures(doc(short), short, { status: 200 }), { words: 20, language: null }, opts),
    ).toMatchObject({ verdict: 'blocked', errorCode: 'CAPTCHA' });
  });

  it('finds none on a page without them', () => {
    const html = '<html><head><title>Tide tables</title></head><body><p>High water at 06:12.</p></body></html>';
    const features = pageFeatures(doc(html), html);
    expect([features.challengeMarkup, features.captchaMarkup]).toEqual([undefined, undefined]);
  });
});
