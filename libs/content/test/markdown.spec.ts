import { describe, expect, it } from '@jest/globals';
import { compactHtml, compactHtmlBlocks } from '../src/compact-html.js';
import { extractContent, parseDocument } from '../src/index.js';
import { blocksToMarkdown, toMarkdown } from '../src/markdown.js';
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

describe('block-by-block conversion', () => {
  it('opens containers and converts each block, or run of inline content, on its own', () => {
    const doc = parseDocument(
      '<html><body><div id="r"><section><h2>T</h2>lead <b>bold</b> text<ul><li>x</li></ul></section><p>end</p></div></body></html>',
    );
    expect(compactHtmlBlocks([doc.getElementById('r')!])).toEqual([
      '<h2>T</h2>',
      '<p>lead <b>bold</b> text</p>',
      '<ul><li>x</li></ul>',
      '<p>end</p>',
    ]);
  });

  it('renders a long page as one piece would', () => {
    const para = (i: number) => `<p>Paragraph ${i} with <a href="https://x.example/${i}">a link</a> and words.</p>`;
    const doc = parseDocument(
      `<html><body><main>${Array.from({ length: 3000 }, (_, i) => para(i)).join('')}</main></body></html>`,
    );
    const main = doc.querySelector('main')!;
    expect(blocksToMarkdown(compactHtmlBlocks([main]), false)).toBe(toMarkdown(compactHtml([main]), false));
  });
});
