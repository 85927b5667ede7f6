import { describe, expect, it } from '@jest/globals';
import { NodeHtmlMarkdown } from 'node-html-markdown';
import { compactHtml, compactHtmlBlocks, contentBlocks } from '../src/compact-html.js';
import { extractContent, parseDocument } from '../src/index.js';
import { blockTree } from '../src/markdown-tree.js';
import {
  MAX_LIST_DEPTH,
  NHM_OPTIONS,
  NHM_TRANSLATORS,
  blocksToMarkdown,
  htmlBlocksToMarkdown,
  simpleBlockMarkdown,
  tidyMarkdown,
  toMarkdown,
  trimLineEnds,
} from '../src/markdown.js';
import { FIXTURES, FIXTURE_URL, expectedMarkdown, fixtureHtml } from './support/fixtures.js';
import { stringWork } from './support/string-work.js';

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

  it('writes a word an editor cut into two bold runs as one word, and two runs as two', () => {
    const md = render(
      '<p>Three reasons to outsource, and what each is worth to a team of five people this year.</p><ul><li><strong>S</strong><strong>aving time</strong>: more time to ideate.</li>' +
        '<li><b>L</b><b>u</b><b>nch</b>: two sides a person.</li></ul><p>Posted <i>Jul 21, 2017 02:19 pm</i><i>Guest post by Jennifer</i>.</p>',
    );
    expect(md).toContain('- **Saving time**: more time to ideate.\n- **Lunch**: two sides a person.');
    expect(md).toContain('*Jul 21, 2017 02:19 pm* *Guest post by Jennifer*');
  });

  it('keeps the language of a code block given on its <code>', () => {
    expect(
      render(
        '<p>Run this first and then read on for the details below.</p><pre><code class="language-python">print(1)</code></pre>',
      ),
    ).toContain('```python\nprint(1)\n```');
  });

  it("writes no language for a highlighter's directive (lang-auto, language-none, nohighlight)", () => {
    const prose = '<p>Run this first and then read on for the details below.</p>';
    expect(render(`${prose}<pre><code class="lang-auto">ls -la</code></pre>`)).toContain('```\nls -la\n```');
    expect(render(`${prose}<pre class="language-none"><code>ls -la</code></pre>`)).toContain('```\nls -la\n```');
    expect(render(`${prose}<pre><code class="hljs lang-nohighlight">ls -la</code></pre>`)).toContain(
      '```\nls -la\n```',
    );
    expect(render(`${prose}<pre><code class="lang-bash">ls -la</code></pre>`)).toContain('```bash\nls -la\n```');
  });

  /** The opening fence of the code block written after a paragraph. */
  const fenced = (block: string) =>
    render(`<p>Run this first and then read on for the details below.</p>${block}`)
      .split('\n')
      .find((l) => l.startsWith('```'));

  it('keeps the language a highlighter names on an attribute or on the wrapper around the block', () => {
    // Hugo's Chroma, Shiki (Astro), Gatsby's wrapper.
    expect(fenced('<pre class="chroma"><code data-lang="csharp">var a = 1;</code></pre>')).toBe('```csharp');
    expect(fenced('<pre class="astro-code" data-language="js"><code>let a;</code></pre>')).toBe('```js');
    expect(fenced('<div class="gatsby-highlight" data-language="JSX"><pre><code>&lt;A /&gt;</code></pre></div>')).toBe(
      '```jsx',
    );
    // Sphinx and Jekyll, two levels up; MediaWiki one up; a wrapper with a copy button and a header.
    expect(
      fenced('<div class="highlight-python notranslate"><div class="highlight"><pre>print(1)</pre></div></div>'),
    ).toBe('```python');
    expect(
      fenced(
        '<div class="language-ruby highlighter-rouge"><div class="highlight"><pre class="highlight"><code>puts 1</code></pre></div></div>',
      ),
    ).toBe('```ruby');
    expect(fenced('<div class="mw-highlight mw-highlight-lang-ini"><pre>[a]\nb=1</pre></div>')).toBe('```ini');
    expect(
      fenced(
        '<div class="code-block language-hcl"><div class="header">main.tf</div><div class="body"><button>Copy</button><pre><code>a = 1</code></pre></div></div>',
      ),
    ).toBe('```hcl');
    // pandoc, SyntaxHighlighter.
    expect(fenced('<pre class="sourceCode r"><code class="sourceCode r">x &lt;- 1</code></pre>')).toBe('```r');
    expect(fenced('<pre class="sourceCode numberSource python numberLines">x = 1</pre>')).toBe('```python');
    expect(fenced('<pre class="brush: js; gutter: false">let a;</pre>')).toBe('```js');
  });

  it('reads no language from classes that say something else', () => {
    // A site's own class beside the highlighter's; Sphinx's project default.
    expect(fenced('<pre class="highlight-height language-typescript"><code>let a;</code></pre>')).toBe('```typescript');
    expect(fenced('<div class="highlight-default notranslate"><div class="highlight"><pre>x</pre></div></div>')).toBe(
      '```',
    );
    // The language of a section around the block is not the code's.
    expect(
      render(
        `<section class="lang-en"><p>One paragraph of the article, long enough to be its main content here.</p>` +
          `<p>Another paragraph.</p><p>A third.</p><p>A fourth paragraph.</p><pre>ls -la</pre></section>`,
      ),
    ).toContain('```\nls -la\n```');
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

  it('writes a title that quotes a headline between delimiters it does not hold, without escapes', () => {
    const md = render(
      `<p>The studio has posted an <a href="/a" title='"Not yet," says the studio'>update</a> on the sequel, with a
      <img src="/b.jpg" alt="still" title="It's &quot;done&quot;"> still and an <a href="/c" title="a (b) &quot;c&quot; it's">odd</a> note.</p>`,
    );
    expect(md).toContain(`[update](https://site.example/a '"Not yet," says the studio')`);
    expect(md).toContain(`![still](https://site.example/b.jpg (It's "done"))`);
    expect(md).toContain(`[odd](https://site.example/c "a (b) \\"c\\" it's")`);
  });

  it('resolves links as it renders them, as cleaning resolves them in the clean HTML', () => {
    const page = `<html><body><main><p>${'Words of a paragraph long enough to be content. '.repeat(3)}
      <a href="javascript:void(0)">no link</a> <a href="">empty</a> <a href="/a b?x=1#f">spaced</a>
      <img src="rel/i.png" alt="r"> <img src="data:image/gif;base64,R0lGOD" alt="dot"><img data-src="/lazy.png" src=""></p></main></body></html>`;
    for (const onlyMainContent of [true, false]) {
      const withHtml = extractContent(parseDocument(page), {
        url: FIXTURE_URL,
        formats: ['markdown', 'cleanHtml'],
        onlyMainContent,
      });
      const alone = extractContent(parseDocument(page), { url: FIXTURE_URL, formats: ['markdown'], onlyMainContent });
      expect(alone.markdown).toBe(withHtml.markdown);
      expect(alone.markdown).toContain('no link empty [spaced](https://site.example/a%20b?x=1#f)');
      expect(alone.markdown).toContain(
        '![r](https://site.example/section/rel/i.png) dot![](https://site.example/lazy.png)',
      );
      expect(withHtml.cleanHtml).toContain('href="https://site.example/a%20b?x=1#f"');
    }
    for (const name of FIXTURES) {
      const html = fixtureHtml(name);
      const opts = { url: FIXTURE_URL, onlyMainContent: true } as const;
      expect(extractContent(parseDocument(html), { ...opts, formats: ['markdown'] }).markdown).toBe(
        extractContent(parseDocument(html), { ...opts, formats: ['markdown', 'cleanHtml'] }).markdown,
      );
    }
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

describe('tidying', () => {
  // Both are rewrites of chains of regular expressions for speed: they must answer as those did.
  const reference = (md: string): string =>
    md
      .replace(/^\|.*\|$/gm, (row) => row.replace(/ {2,}\|/g, ' |').replace(/\| {2,}/g, '| '))
      .replace(/^\|(?:\s*:?-+:?\s*\|)+$/gm, (rule) => rule.replace(/-{4,}/g, '---'))
      .replace(/(^|[^!\]])\[\s*\]\([^)]*\)/g, '$1')
      .replace(/[ \t]+$/gm, '')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  // Random texts of the characters the rules turn on, seeded so a failure can be replayed.
  const texts = (seed: number, count: number): string[] => {
    let state = seed;
    const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pieces = [
      ' ',
      '  ',
      '\t',
      '\n',
      '\n\n\n',
      '\r\n',
      '\u2028',
      'a',
      'word',
      '|',
      '---',
      '[',
      ']',
      '(',
      ')',
      '!',
      ':',
      '[ ](x)',
    ];
    return Array.from({ length: count }, () =>
      Array.from({ length: Math.floor(next() * 40) }, () => pieces[Math.floor(next() * pieces.length)]).join(''),
    );
  };

  it('drops the spaces and tabs that end each line as /[ \\t]+$/gm does, whatever ends the lines', () => {
    for (const text of [...texts(7, 3000), '', ' ', 'a \n b\t\n', ' \n \n', 'x  ']) {
      expect(trimLineEnds(text)).toBe(text.replace(/[ \t]+$/gm, ''));
    }
  });

  it('tidies as the chain of expressions it replaced', () => {
    for (const text of texts(11, 3000)) expect(tidyMarkdown(text)).toBe(reference(text));
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
    expect(blocksToMarkdown(contentBlocks([main]), false)).toBe(toMarkdown(compactHtml([main]), false));
  });
});

describe("node-html-markdown on the linkedom tree (its parser's tree, rebuilt)", () => {
  // Each case is rendered twice: NHM's visitor on the tree blockTree builds, and translate() on
  // the block's compact HTML (NHM parses it with node-html-parser). They must agree.
  const both = (body: string) => {
    const doc = parseDocument(`<html><body><div id="r">${body}</div></body></html>`);
    const root = doc.getElementById('r')!;
    return {
      tree: blocksToMarkdown(contentBlocks([root]), false),
      html: htmlBlocksToMarkdown(compactHtmlBlocks([root]), false),
    };
  };
  const cases: Record<string, string> = {
    'plain blocks and inline runs': '<h2>Title</h2>lead <b>bold</b> <i>it</i> text<p>Para &amp; more &lt;x&gt;</p>',
    'entities, quotes and escapes in attributes':
      '<p><a href="https://x.example/?a=1&amp;b=&quot;2&quot;" title="it\'s &quot;q&quot;">l</a> <img src="/i.png" alt="a &amp; b"></p>',
    'a link inside a link (node-html-parser closes the outer one)':
      '<ul><li><a href="/card"><img src="/c.png">Card <div><a href="/c?x=1">One</a><a href="/c?x=2">Two</a></div> $5</a></li></ul>',
    'a div opening inside a paragraph or a bold run': '<p>a<div>b</div>c</p><b>d<div>e</div>f</b><i>g<div>h</div></i>',
    'an item in an item, a heading in a heading, a cell in a cell':
      '<ul><li>a<li>b</li></li></ul><h2>x<h2>y</h2></h2><table><tr><td>1<td>2</td></td></tr></table>',
    'spans unwrapped, text merged across them and across comments':
      '<p>a<span>b</span><!-- c -->d<span></span> <font>e</font></p><span><!-- only a comment --></span> <span></span>x',
    'code blocks, inline code, lists with numbers and breaks':
      '<pre class="language-js"><code>let a = 1;\n  b();</code></pre><p>run <code>x`y</code></p><ol><li>one<br>two  </li><li>2021. three</li></ol>',
    'tables with captions and empty cells':
      '<table><caption>Cap</caption><thead><tr><th>h1</th><th></th></tr></thead><tbody><tr><td>a|b</td><td><a href="/t">t</a></td></tr></tbody></table>',
    'unknown and odd tag names': '<p>a<my-widget>b</my-widget><o:p>c</o:p></p><x-y><p>z</p></x-y>',
    'void elements with content': '<p>a<embed>b</embed><br>c<hr>d</p>',
    'block quotes, definition lists, nested lists':
      '<blockquote><p>q1</p><blockquote>q2</blockquote></blockquote><dl><dt>t</dt><dd>d</dd></dl><ul><li>a<ul><li>b<ol><li>c</li></ol></li></ul></li></ul>',
    'whitespace only, nbsp and newlines': '<p>\n  </p><p>&nbsp;</p><p>a\n b  \n</p>   <em> </em><strong>s </strong>t',
  };
  for (const [name, body] of Object.entries(cases)) {
    it(name, () => {
      const { tree, html } = both(body);
      expect(tree).toBe(html);
    });
  }

  it('leaves to translate() what the tree does not cover', () => {
    const doc = parseDocument('<html><body><div id="r"><p>a</p></div></body></html>');
    const p = doc.querySelector('p')!;
    p.appendChild(doc.createElement('noscript')).textContent = 'raw';
    const [block] = contentBlocks([doc.getElementById('r')!]);
    expect(blockTree(block!)).toBeNull();
    expect(blocksToMarkdown([block!], false)).toBe(
      htmlBlocksToMarkdown(compactHtmlBlocks([doc.getElementById('r')!]), false),
    );
  });
});

describe('the fast path for simple blocks', () => {
  // A paragraph or heading of text and simple inline elements is written without NHM's visitor
  // (simpleBlockMarkdown); translate() on the block's compact HTML is NHM's own rendering of it.
  const render = (body: string, keepDataImages = false) => {
    const doc = parseDocument(`<html><body><div id="r">${body}</div></body></html>`);
    const root = doc.getElementById('r')!;
    const blocks = contentBlocks([root]);
    return {
      covered: blocks.map((b) => simpleBlockMarkdown(blockTree(b)!, keepDataImages) !== null),
      fast: blocksToMarkdown(blocks, keepDataImages),
      nhm: htmlBlocksToMarkdown(compactHtmlBlocks([root]), keepDataImages),
    };
  };
  const cases: Record<string, string> = {
    'markup characters in text':
      '<p>a_b snake_case *c* [d] \\e \\ &lt;f &lt;3 &amp;amp; &amp;copy; ~g~ ~1 to ~2 `t` |p| _x_ __y__ * z *</p>',
    'line-start markers, at the start and after a break':
      '<p>1. one<br>- two<br># three<br>&gt; four<br>+ five<br>---<br>2021) six</p><h2># heading</h2>',
    'leading, trailing and inner whitespace': '<p>  a \n\t b  </p><p>\nlead</p><p>x<b>y</b>\nz <i>w</i> \n</p>',
    'whitespace-only pieces between and inside elements':
      '<p><b>a</b> <i>b</i>\n<em> </em><strong>s </strong>t<b>\n</b>u</p><p>&nbsp;</p><p>\u00a0x\u00a0</p><p> </p>',
    'nested and repeated emphasis':
      '<p><b><i>x</i></b> <strong>trend</strong><em>s</em> <b>**</b> <b>a<br>b</b> <b>(UK)</b>Reviewed <i>caption </i>toggle <del>old</del><s>x</s></p>',
    entities: '<p>&lt;div&gt; &amp;lt; &quot;q&quot; &#x41;&#66; caf&eacute; &nbsp;&ensp;end</p>',
    'links with odd URLs':
      '<p><a href="https://x.example/a (1)/b|c d?q=<x>">one</a> <a href="https://x.example/ü?a=1&amp;b=2#f">two</a> <a href="javascript:void(0)">three</a> <a href="">four</a> <a>five</a> <a href="/rel_path*x">six_7</a></p>',
    'links as autolinks, with titles, empty or around images':
      '<p><a href="https://x.example/">https://x.example/</a> <a href="mailto:a@x.example">mailto:a@x.example</a> <a href="/t" title=\'say "hi" (now)\'>t</a> <a href="/i"><img src="/i.png" alt="icon"></a> <a href="/s"> </a> <a href="/e"></a>x</p>',
    'links holding breaks, code, emphasis and plain elements':
      '<p><a href="/a">one<br>two</a> <a href="/b"><code>c_d</code> and <b>bold</b></a> <a href="/c">x<sup>2</sup><wbr>y</a></p>',
    images:
      '<p><img alt="none"> <img src=" "> <img src="data:image/png;base64,AAAA" alt="d"> <img src="/a b.png" alt="[a] \\ `b`" title="t"> <img src="/x.png 1x, /y.png 2x"></p>',
    'inline code': '<p><code>a`b``c</code> <code><b>bold</b> *x* &lt;y&gt;</code> <code></code> <code>`</code>z</p>',
    headings: '<h1></h1><h2>a<br>b</h2><h3> <a href="/h">link</a> </h3><h6>six</h6><h4><b></b></h4>',
    'empty paragraphs': '<p></p><p><wbr></p><p><b></b></p><p><b> </b></p>',
    'plain elements':
      '<p>H<sub>2</sub>O x<sup>2</sup> <u>u</u> <q>q</q> <kbd>Ctrl</kbd> <cite>c</cite> <ins>i</ins></p>',
    'an inline run outside any paragraph': 'lead <b>bold</b> <a href="/x">x</a><br>tail',
    'lists and their numbering, blank and empty items left out':
      '<ul>\n <li>one  <br>two <a href="https://x.example/a/long/path">l</a>  </li>\n<li> </li><li></li><li>- dash</li></ul><ol><li>a</li><li><b></b></li><li>b\n\n- c</li><li>2021. d</li><li><em>e</em> <code>f</code></li></ol>',
    'empty lists': '<ul></ul><ol> </ol><ul><li> </li></ul>',
  };
  for (const [name, body] of Object.entries(cases)) {
    it(`writes ${name} as NHM does`, () => {
      const { covered, fast, nhm } = render(body);
      expect(covered.every(Boolean)).toBe(true);
      expect(fast).toBe(nhm);
    });
  }

  it('writes a long list item after item as NHM does (each item apart once the output is long)', () => {
    const items = Array.from(
      { length: 800 },
      (_, i) => `<li>Tide ${i} at <b>06:12</b></li>${i % 97 ? '' : '<li> </li>'}`,
    );
    const { covered, fast, nhm } = render(`<ol>${items.join('')}</ol><ul>${items.join('')}</ul>`);
    expect(covered).toEqual([true, true]);
    expect(fast).toBe(nhm);
  });

  it('writes a list of 20,000 items in linear time', () => {
    const write = (n: number) => {
      const items = Array.from({ length: n }, (_, i) => `<li>Tide ${i} at <b>06:12</b></li>`).join('');
      const blocks = contentBlocks([parseDocument(`<html><body><ul>${items}</ul></body></html>`).body]);
      return stringWork(() => blocksToMarkdown(blocks, false));
    };
    const [half, full] = [write(10_000), write(20_000)];
    expect(full.result.split('\n')).toHaveLength(20_000);
    // Twice the items, about twice the work (cutting the whole output per item would be four times).
    expect(full.chars).toBeLessThan(2.5 * half.chars);
  });

  it('keeps data images when asked, as NHM does', () => {
    const { covered, fast, nhm } = render('<p><img src="data:image/png;base64,AAAA" alt="d"> x</p>', true);
    expect(covered).toEqual([true]);
    expect(fast).toBe(nhm);
  });

  it('leaves to NHM a block with anything else in it', () => {
    const body =
      '<p>a<span><my-widget>w</my-widget></span></p><p><a href="/a">x<a href="/b">y</a></a></p><p><code><a href="/c">c</a></code></p><ul><li>a<ul><li>b</li></ul></li></ul><ol><li><p>p</p></li></ol><ul>text<li>i</li></ul><blockquote>q</blockquote>';
    const { covered, fast, nhm } = render(body);
    expect(covered).toEqual([false, true, false, false, false, false, false]);
    expect(fast).toBe(nhm);
  });

  it('writes as plain text only elements NHM has no translator for', () => {
    const nhm = new NodeHtmlMarkdown(NHM_OPTIONS, NHM_TRANSLATORS);
    for (const tag of ['sub', 'sup', 'u', 'cite', 'q', 'kbd', 'var', 'ins', 'dfn', 'samp', 'tt']) {
      expect([tag, nhm.translators.get(tag), nhm.aTagTranslators.get(tag)]).toEqual([tag, undefined, undefined]);
    }
  });
});

describe('list items', () => {
  it("indent what an item holds to the item's content column, its nested lists included", () => {
    const html =
      '<ul><li>one  <br>two <a href="https://x.example/a/very/long/path">l</a>  </li><li> <ul><li>n  </li><li>1. m</li></ul></li><li>   </li></ul><ol><li>a</li><li>b\n\n- c</li></ol>';
    expect(toMarkdown(html, false)).toBe(
      ['- one', '  two [l](https://x.example/a/very/long/path)', '- - n', '  - 1\\. m', '1. a', '2. b - c'].join('\n'),
    );
    // Eleven items: the tenth's later lines go four columns in, past "10. ".
    const ol = `<ol>${'<li>x</li>'.repeat(9)}<li>ten<ul><li>inner</li></ul></li></ol>`;
    expect(toMarkdown(ol, false)).toMatch(/\n10\. ten\n {4}- inner$/);
  });

  it('keep a list inside a list with no item between a list of its own (not four spaces in)', () => {
    expect(
      toMarkdown('<ul><strong>Minimum:</strong><br><ul><li>OS: Windows 7</li><li>1.7 GHz</li></ul></ul>', false),
    ).toBe('**Minimum**:\n- OS: Windows 7\n- 1.7 GHz');
  });

  it('keep a code block in an item inside the item, its lines as written', () => {
    const md = toMarkdown('<ul><li><p>Run it:</p><pre><code>make -j4\nmake install</code></pre></li></ul>', false);
    expect(md).toBe('- Run it:\n\n  ```\n  make -j4\n  make install\n  ```');
  });

  it('take linear time in the length of a word', () => {
    const write = (n: number) => {
      const word = 'x'.repeat(n);
      const written = stringWork(() => toMarkdown(`<ul><li>a ${word}  </li></ul>`, false));
      expect(written.result).toBe(`- a ${word}`);
      return written.chars;
    };
    // Twice the word, about twice the work.
    expect(write(200_000)).toBeLessThan(2.5 * write(100_000));
  });
});

describe('long lists and tables', () => {
  // Past the first kilobytes of output, each item and row is written apart and joined after
  // (TailVisitor, which keeps the cost linear); what they give must be what they gave in place.
  const nested = (i: number) => i % 500 === 1;

  it('writes a list of 3,000 items, its numbering and nested lists, item after item', () => {
    const items = Array.from(
      { length: 3000 },
      // An empty item is cut back out (NHM's RemoveNode), leaving the output as it found it.
      (_, i) =>
        `<li>Tide ${i} at <b>06:12</b>${nested(i) ? '<ul><li>neap</li></ul>' : ''}</li>${i % 700 === 3 ? '<li> </li>' : ''}`,
    );
    const expected = Array.from(
      { length: 3000 },
      (_, i) => `${i + 1}. Tide ${i} at **06:12**${nested(i) ? `\n${' '.repeat(`${i + 1}. `.length)}- neap` : ''}`,
    ).join('\n');
    expect(toMarkdown(`<ol>${items.join('')}</ol>`, false)).toBe(expected);
    expect(toMarkdown(`<p>${'Lead words. '.repeat(500)}</p><ol>${items.join('')}</ol>`, false)).toBe(
      `${'Lead words. '.repeat(500).trim()}\n\n${expected}`,
    );
  });

  it('writes a table of 3,000 rows, row after row', () => {
    const rows = Array.from(
      { length: 3000 },
      (_, i) => `<tr><td>Dover ${i}</td><td><a href="/t/${i}">06:${i}</a></td></tr>`,
    );
    const expected = [
      '| Port | High water |',
      '| --- | --- |',
      ...Array.from({ length: 3000 }, (_, i) => `| Dover ${i} | [06:${i}](/t/${i}) |`),
    ].join('\n');
    expect(toMarkdown(`<table><tr><th>Port</th><th>High water</th></tr>${rows.join('')}</table>`, false)).toBe(
      expected,
    );
  });
});

describe('markdown of hostile sizes', () => {
  // What a page holds many of must cost about as much again for twice as many: work is counted
  // as the characters String methods read (a read of the whole output per element shows as
  // four times the work for twice the elements), not as time. Failures print counts and flags,
  // not the megabytes of markdown.
  const work = (html: (n: number) => string, n: number) => {
    const blocks = contentBlocks([parseDocument(`<html><body>${html(n)}</body></html>`).body]);
    return stringWork(() => blocksToMarkdown(blocks, false));
  };
  const linear = (html: (n: number) => string, n: number) => {
    const [half, full] = [work(html, n / 2), work(html, n)];
    expect(full.chars / half.chars).toBeLessThan(2.5);
    return full.result;
  };
  const link = (i: number) => `<a href="/t/${i}">tide ${i}</a> `;
  const links = (n: number) => Array.from({ length: n }, (_, i) => link(i)).join('');
  const linkCount = (md: string) => md.match(/\[tide \d+\]\(\/t\/\d+\)/g)?.length;

  it('writes a paragraph of 20,000 links in linear time, every link kept', () => {
    expect(linkCount(linear((n) => `<p>${links(n)}</p>`, 20_000))).toBe(20_000);
    // The same inside emphasis, in a heading and beside inline code.
    const em = linear((n) => `<p><em>lead ${links(n)}tail</em></p>`, 20_000);
    expect([em.startsWith('*lead [tide 0](/t/0) '), em.endsWith(' [tide 19999](/t/19999) tail*')]).toEqual([
      true,
      true,
    ]);
    const heading = linear((n) => `<h2>${links(n)}</h2>`, 20_000);
    expect([heading.startsWith('## [tide 0](/t/0) '), linkCount(heading)]).toEqual([true, 20_000]);
    const code = linear((n) => `<p>${links(n).replaceAll('</a> ', '</a> <code>x</code> ')}</p>`, 20_000);
    expect(code.endsWith('[tide 19999](/t/19999) `x`')).toBe(true);
  });

  it('writes 20,000 links in a table cell, a list item and a quote in linear time', () => {
    for (const [open, close] of [
      ['<table><tr><td>', '</td></tr></table>'],
      ['<ul><li><p>first</p><p>', '</p></li></ul>'],
      ['<blockquote><p>', '</p></blockquote>'],
    ]) {
      expect([open, linkCount(linear((n) => `${open}${links(n)}${close}`, 20_000))]).toEqual([open, 20_000]);
    }
  });

  it('writes a table whose one cell is long without padding every row to it, in linear time', () => {
    // NHM pads each cell to its column's widest: n rows beside a cell of n words made n² of spaces.
    const table = (n: number) =>
      `<table><tr><th>Port</th><th>Notes</th></tr><tr><td>Dover</td><td>${'tide '.repeat(n)}</td></tr>${Array.from(
        { length: n },
        (_, i) => `<tr><td>Port ${i}</td><td>${i}</td></tr>`,
      ).join('')}</table>`;
    const md = linear(table, 4000);
    const lines = md.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      '| Port | Notes |',
      '| --- | --- |',
      `| Dover | ${'tide '.repeat(4000).trim()} |`,
    ]);
    expect(lines.slice(3)).toEqual(Array.from({ length: 4000 }, (_, i) => `| Port ${i} | ${i} |`));
  });

  it('writes a table inside a list item as one outside it, unpadded', () => {
    expect(
      toMarkdown(
        '<ul><li><p>Fees</p><table><tr><th>Income</th><th>Fee</th></tr><tr><td>Less than $20,000</td><td>$0</td></tr><tr><td>$200,000 or more</td><td>$600</td></tr></table></li></ul>',
        false,
      ),
    ).toBe(
      [
        '- Fees',
        '',
        '  | Income | Fee |',
        '  | --- | --- |',
        '  | Less than $20,000 | $0 |',
        '  | $200,000 or more | $600 |',
      ].join('\n'),
    );
  });

  it('escapes a "!" before a link however long the output, so no link becomes an image', () => {
    const bangs = (n: number) => Array.from({ length: n }, (_, i) => `!${link(i)}`).join('');
    for (const [open, close] of [
      ['<p>', '</p>'],
      ['<p><b>', '</b></p>'],
      ['<table><tr><td>', '</td></tr></table>'],
      ['<ul><li><p>first</p><p>', '</p></li></ul>'],
    ]) {
      const md = toMarkdown(`${open}${bangs(2000)}${close}`, false);
      expect([open, md.match(/\\!\[tide/g)?.length, /(?<!\\)!\[/.test(md)]).toEqual([open, 2000, false]);
    }
  });

  it('judges a long run of underscores or stars as a whole', () => {
    // (Judged once a character, 80,000 underscores took 38 s; the scan is indexing, which the
    // work count does not see, so only what it gives is checked here.)
    for (const c of ['_', '*']) {
      const md = work((n) => `<p>a ${c.repeat(n)} b x${c.repeat(n)}y</p>`, 40_000).result;
      // Spaces on both sides: not emphasis, as written; between letters an underscore run is
      // part of the word, and a star run, which could pair, has no other run to pair with.
      expect([c, md.startsWith(`a ${c.repeat(40_000)} b x`), md.endsWith(`x${c.repeat(40_000)}y`)]).toEqual([
        c,
        true,
        true,
      ]);
    }
  });

  it('writes 20,000 footnote stars of one paragraph as they are, in linear time', () => {
    const md = linear((n) => `<p>${Array.from({ length: n }, (_, i) => `rate ${i}*`).join(' ')}</p>`, 20_000);
    expect([md.includes('\\*'), md.match(/rate \d+\*/g)?.length]).toEqual([false, 20_000]);
  });

  it('writes 20,000 handles and numbered headings of one page as they are, in linear time', () => {
    // The passes that give escapes back (underscores, line markers) read each line once.
    const handles = linear(
      (n) => `<p>${Array.from({ length: n }, (_, i) => `x.com/tide${i}_/status`).join(' ')}</p>`,
      20_000,
    );
    expect([handles.includes('\\_'), handles.match(/tide\d+_\/status/g)?.length]).toEqual([false, 20_000]);
    const headings = linear((n) => Array.from({ length: n }, (_, i) => `<h3>${i + 1}. Step</h3>`).join(''), 20_000);
    expect([headings.includes('\\.'), headings.match(/^### \d+\. Step$/gm)?.length]).toEqual([false, 20_000]);
  });

  it('writes 20,000 addresses each glued to a bold in one table cell in linear time', () => {
    // An address the next element is written against is rewritten closed; in the output of
    // node-html-markdown's translators (a cell) each rewrite copied the whole output so far.
    const md = linear((n) => `<table><tr><td>${'http://x.test/a_b<b>x</b> '.repeat(n)}end</td></tr></table>`, 20_000);
    expect([md.match(/\*\*x\*\*/g)?.length, md.startsWith('| <http://x.test/a_b>**x** <http://')]).toEqual([
      20_000,
      true,
    ]);
  });

  it('writes bold and italics nested in each other without writing each level again', () => {
    // Each level of nested emphasis reads its content once (emphasis()), so up to the parse's
    // depth limit the work grows faster than the page, about threefold for twice the levels.
    // Bold inside bold is written as one bold by writing its content again without the inner
    // delimiters; every level doing so grew eightfold (93 s for 5,000 levels of <b> and <i>).
    const [half, full] = [
      work((n) => `<p>${'<b>x <i>y '.repeat(n)}end</p>`, 100),
      work((n) => `<p>${'<b>x <i>y '.repeat(n)}end</p>`, 200),
    ];
    expect(full.chars / half.chars).toBeLessThan(4.5);
    expect([full.result.match(/x/g)?.length, full.result.match(/y/g)?.length]).toEqual([200, 200]);
  });

  it('writes lists nested as deep as a page may nest them in linear time, every item kept', () => {
    // Unclosed lists nest down to the parse's depth limit (MAX_TREE_DEPTH), then go on as
    // siblings at the deepest level; each item's later lines were read again at every level.
    const md = linear((n) => '<ul><li>x'.repeat(n), 2000);
    expect(md.match(/x/g)?.length).toBe(2000);
    // Past MAX_LIST_DEPTH the items are the deepest list's: 255 levels of indentation made the
    // markdown 40 times the page.
    const lines = md.split('\n');
    const indents = lines.map((line) => line.length - line.trimStart().length);
    expect([Math.max(...indents), lines.length, lines.every((line) => /^(?:- )?x$/.test(line.trim()))]).toEqual([
      2 * (MAX_LIST_DEPTH - 1),
      2000,
      true,
    ]);
  });
});
