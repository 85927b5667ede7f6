import { describe, expect, it } from '@jest/globals';
import { cleanDocument } from '../src/clean.js';
import { compactHtml } from '../src/compact-html.js';
import { extractContent, parseDocument } from '../src/index.js';
import { findMainContent } from '../src/main-content.js';
import { converterFor, tidyMarkdown, toMarkdown } from '../src/markdown.js';
import { FIXTURES, FIXTURE_URL, expectedMarkdown, fixtureHtml } from './support/fixtures.js';

const mainMarkdown = (html: string): string =>
  extractContent(parseDocument(html), { url: FIXTURE_URL, formats: ['markdown'], onlyMainContent: true }).markdown ??
  '';

describe('main-content markdown of the fixture pages', () => {
  for (const name of FIXTURES) {
    it(`matches the hand-checked markdown of ${name}`, () => {
      expect(mainMarkdown(fixtureHtml(name))).toBe(expectedMarkdown(name));
    });
  }
});

describe('markdown rendering', () => {
  const render = (body: string) => mainMarkdown(`<html><body><main>${body}</main></body></html>`);

  it('keeps the language of a code block given on its <code>', () => {
    expect(
      render(
        '<p>Run this first and then read on for the details below.</p><pre><code class="language-python">print(1)</code></pre>',
      ),
    ).toContain('```python\nprint(1)\n```');
  });

  it('drops links without text and collapses runs of blank lines', () => {
    const md = render(
      '<p>A paragraph long enough to be the main content of this tiny page.</p><a href="/x"></a><br><br><br><br><p>Another paragraph that follows after many breaks in the source.</p>',
    );
    expect(md).not.toMatch(/\[\s*\]\(/);
    expect(md).not.toMatch(/\n{3,}/);
  });

  it('makes links and images absolute', () => {
    const md = render(
      '<p>See <a href="../docs/a?b=1">the docs</a> for the whole story of this page. <img src="/i.png" alt="pic"></p>',
    );
    expect(md).toContain('[the docs](https://site.example/docs/a?b=1)');
    expect(md).toContain('![pic](https://site.example/i.png)');
  });

  it('keeps every page element when onlyMainContent is off', () => {
    const doc = parseDocument(fixtureHtml('news-article'));
    const md = extractContent(doc, { url: FIXTURE_URL, formats: ['markdown'], onlyMainContent: false }).markdown ?? '';
    expect(md).toContain('Most read');
    expect(md).toContain('All rights reserved');
    expect(md).not.toContain('We use cookies');
  });

  it('keeps includeTags outside the main content and drops excludeTags inside it', () => {
    const doc = parseDocument(fixtureHtml('news-article'));
    const md =
      extractContent(doc, {
        url: FIXTURE_URL,
        formats: ['markdown'],
        onlyMainContent: true,
        includeTags: ['.sidebar h3'],
        excludeTags: ['figure', 'blockquote'],
      }).markdown ?? '';
    expect(md).toContain('Most read');
    expect(md).not.toContain('Cars entering');
    expect(md).not.toContain('biggest change');
    expect(md).toContain('What changes for commuters');
  });

  it('keeps base64 images as data when removeBase64Images is off', () => {
    const doc = parseDocument(fixtureHtml('base64-images'));
    const md =
      extractContent(doc, { url: FIXTURE_URL, formats: ['markdown'], onlyMainContent: true, removeBase64Images: false })
        .markdown ?? '';
    expect(md).toContain('](data:image/png;base64,');
  });

  it('falls back to the plain text for markup nested too deep to convert', () => {
    expect(render(`${'<div><b>'.repeat(3000)}Deep text that still reaches the user.`)).toBe(
      'Deep text that still reaches the user.',
    );
  });
});

describe('markdown from the linkedom tree (no second parse)', () => {
  // src/markdown.ts builds node-html-markdown's tree from the cleaned elements and walks it
  // itself (linearly); NHM's own translate() on the compact HTML must give the same markdown.
  const viaNhm = (roots: Element[], keepDataImages = false): string =>
    tidyMarkdown(converterFor(keepDataImages).translate(compactHtml(roots)));
  const cleaned = (html: string): Document => {
    const doc = parseDocument(html);
    cleanDocument(doc, {
      url: FIXTURE_URL,
      removeBanners: true,
      removeBase64Images: false,
      excludeTags: [],
      stripAttributes: false,
    });
    return doc;
  };

  for (const name of FIXTURES) {
    it(`renders ${name} as NHM's translate() does, main content and whole body`, () => {
      const doc = cleaned(fixtureHtml(name));
      const body = doc.body;
      expect(toMarkdown([body], true)).toBe(viaNhm([body], true));
      const { root, pruned } = findMainContent(body);
      for (const el of pruned) el.remove();
      expect(toMarkdown([root], false)).toBe(viaNhm([root], false));
    });
  }

  // Markup node-html-parser builds differently from a browser, and NHM's trickier rules.
  const SNIPPETS = [
    '<p>Text <a href="/a">outer <a href="/b">inner</a> tail</a> after</p>',
    '<p><img src="/i.png" alt="x"><div></div>Text after a div inside a paragraph</p>',
    '<ul><li><li><strong>Nested</strong> item</li></li><li><ul></ul></li><li>  </li></ul>',
    '<b>bold <div>block in bold</div> rest</b><i>it<div>x</div></i>',
    '<a href="/x"><div><p>card title</p><div>card text</div></div></a>',
    '<table><caption>Cap</caption><tr><th>A</th><th>B|C</th></tr><tr><td>1<br>2</td><td></td></tr></table>',
    '<table><tr><td>cell<table><tr><td>inner</td></tr></table></td></tr></table>',
    '<pre class="language-js"><code>let a = 1;\n\n  b &lt; c</code></pre><pre><span>x</span><code>y</code></pre>',
    '<ol><li>one</li><li><p>two</p><ol><li>2.1</li></ol></li><li></li><li>four</li></ol>',
    '<blockquote><p>quoted</p><blockquote>deeper</blockquote></blockquote>',
    '<p>Specials * _ ` ~ [ ] \\ # + - 1. and 2022. Leading</p><p>- dash start</p><p>1. number start</p>',
    '<p>a&nbsp;b &amp; c &lt;tag&gt; <span> </span><span>d</span>e<em> </em><strong>  </strong>f</p>',
    '<p><strong>**</strong><em>a</em><em>b</em><code>x`y</code><del>gone</del><s> </s></p>',
    '<h1>One</h1><h3>Three <small>small</small></h3><h6>Six</h6><hr><h2></h2>',
    '<a href="https://site.example/x">https://site.example/x</a> <a href="/t" title="T">titled</a> <a>no href</a>',
    '<a href="/br">line<br>break</a><a href="/p(1)_*">odd href</a><img src="data:image/png;base64,AAAA" alt="d">',
    '<dl><dt>term</dt><dd>def</dd></dl><details><summary>sum</summary>body</details><address>addr</address>',
    '<div>unclosed <p>para <b>bold <i>italic</div> after <h2>head <h2>again</h2>',
    '<p>x</p>\n\n\n   \n<p>y</p><br><br><br><p>z</p><figure><img src="/f.png"><figcaption>cap</figcaption></figure>',
    '<td>stray cell</td><th>stray head</th><tr><td>stray row</td></tr><li>stray item</li>',
    '<p><a href="/a">a</a><a href="/b">b</a><a href="/c"></a><a href="/d"> </a></p><a href="/e"><img src="/e.png"></a>',
  ];
  for (const [i, snippet] of SNIPPETS.entries()) {
    it(`renders snippet ${i} as NHM's translate() does`, () => {
      const doc = cleaned(`<html><body><main>${snippet}</main></body></html>`);
      const main = doc.querySelector('main')!;
      expect(toMarkdown([main], false)).toBe(viaNhm([main], false));
      expect(toMarkdown([main], true)).toBe(viaNhm([main], true));
      const parts = Array.from(main.children);
      expect(toMarkdown(parts, false)).toBe(viaNhm(parts, false));
    });
  }

  it('renders trees no parser would build (after cleaning moved things) as NHM does', () => {
    // A <div> inside a <p>, an <li> inside an <li>, a <div> inside a <b>, a <td> inside an <li>.
    const doc = cleaned('<html><body><main></main></body></html>');
    const main = doc.querySelector('main')!;
    const make = (tag: string, text?: string, parent: Element = main): Element => {
      const el = doc.createElement(tag);
      if (text) el.appendChild(doc.createTextNode(text));
      parent.appendChild(el);
      return el;
    };
    const p = make('p', 'para ');
    make('div', 'div in p', p);
    p.appendChild(doc.createTextNode(' tail of p'));
    const li = make('li', 'outer item');
    make('li', 'inner item', li);
    make('li', 'second inner', li);
    const b = make('b', 'bold ');
    make('div', 'div in bold', b);
    make('p', 'p in p', make('p', 'first p'));
    make('td', 'cell in item', make('li', 'item'));
    make('h2', 'h2 in h2', make('h2', 'heading'));
    const a = make('a', 'link ');
    a.setAttribute('href', '/x');
    make('div', 'div in link', make('p', 'p in link', a));
    expect(toMarkdown([main], false)).toBe(viaNhm([main], false));
  });
});
