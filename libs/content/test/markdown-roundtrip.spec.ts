import { describe, expect, it } from '@jest/globals';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { extractContent, parseDocument } from '../src/index.js';
import { unescapeLiteralBrackets } from '../src/literal-brackets.js';
import { unescapeLiteralStars, unescapeLiteralUnderscores } from '../src/literal-emphasis.js';
import { unescapeInlineLineMarkers } from '../src/literal-line-markers.js';
import { toText } from '../src/text.js';
import { FIXTURES, FIXTURE_URL, fixtureHtml } from './support/fixtures.js';

// The markdown is for models, search and diff: rendered by a CommonMark/GFM renderer (micromark)
// it must give back the text that was extracted, word for word, with no markup read into it and
// no escape left in it.

/** The text of markdown as a GFM renderer shows it. */
function renderedText(md: string): string {
  const html = micromark(md, { extensions: [gfm()], htmlExtensions: [gfmHtml()], allowDangerousHtml: false });
  return toText([parseDocument(`<html><body>${html}</body></html>`).body]);
}

const words = (s: string): string => s.replace(/\s+/g, ' ').trim();

function extract(html: string, onlyMainContent = true) {
  return extractContent(parseDocument(html), { url: FIXTURE_URL, formats: ['markdown', 'text'], onlyMainContent });
}

const TECHNICAL_POST = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Tuning autovacuum</title>
<link rel="stylesheet" href="/static/blog.css"></head>
<body><header class="site-header"><a href="/">pgnotes</a><nav><a href="/archive">Archive</a> <a href="/about">About</a></nav></header>
<main><article class="post">
<h1>Tuning autovacuum on a busy table<br><small>part 2</small></h1>
<p>Lower <code>autovacuum_vacuum_scale_factor</code> to 0.01 on the orders table, and raise
autovacuum_vacuum_cost_limit to 2000; the defaults suit small tables only. The __init__ hook of the
worker (see worker_pool.py) reads them at start.</p>
<h4><span>balance<!-- -->_<wbr>transaction</span> <span>nullable string</span></h4>
<p>1. This paragraph starts with a number and a dot, but it is not a list.</p>
<p>- Nor is this one, which starts with a dash; # nor is a hash * star _ underscore a heading or emphasis.</p>
<p>Costs went from ~120 ms to ~15 ms. Use *args and **kwargs, a [bracketed] note, a literal &lt;div&gt; tag,
the entity text &amp;amp; and a path like C:\\Users\\pg\\data or a\\*b.</p>
<p>Read the <a href="/docs/runtime config (autovacuum).html" title="Runtime &quot;config&quot;">autovacuum settings</a>
and <a href="https://www.postgresql.org/docs/current/routine-vacuuming.html">https://www.postgresql.org/docs/current/routine-vacuuming.html</a>.</p>
<figure><img src="/img/bloat chart.png 1x, /img/bloat chart@2x.png 2x" alt="Table bloat [before] and after"><figcaption>Bloat per day.</figcaption></figure>
<table><thead><tr><th>Setting</th><th>Default</th><th>Ours</th></tr></thead>
<tbody><tr><td>autovacuum_vacuum_scale_factor</td><td>0.2</td><td>0.01</td></tr>
<tr><td>log format</td><td>a | b</td><td><p>two</p><p>paragraphs</p></td></tr>
<tr><td>naptime<br>(seconds)</td><td>60</td><td>15</td></tr></tbody></table>
<pre class="highlight"><code class="language-sql">ALTER TABLE orders SET (autovacuum_vacuum_scale_factor = 0.01);
-- \`\`\`triple backticks\`\`\` in a comment
SELECT relname, n_dead_tup FROM pg_stat_user_tables;</code></pre>
<pre>plain pre
   keeps   its spacing</pre>
<ul><li>First item with <em>emphasis</em> and <strong>strength</strong></li><li>2. looks numbered</li>
<li>Nested:<ul><li>inner item one</li><li>inner item two</li></ul></li></ul>
<ol start="3"><li>Third step</li><li>Fourth step</li></ol>
<blockquote><p>Vacuum early, vacuum often.</p></blockquote>
<p>Share this post <a href="https://social.example/share?u=1" aria-label="Share"><span class="icon"><svg viewBox="0 0 24 24"><path d="M1 1h22"></path></svg></span></a><a href="https://social.example/follow"><span> </span></a>with your team.</p>
<p>A line<br>broken in two, and text ending with a backslash \\</p>
</article></main>
<footer><p>© 2025 pgnotes</p></footer></body></html>`;

// Structures whose markdown a renderer read as other text (seventeenth round): a layout list whose
// items hold headings and lists, a list inside a list with no item between, markup inside inline
// code, a table with a column empty in every row, and a rating drawn in empty cells.
const STRUCTURES_PAGE = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>The best VPNs of 2026</title></head>
<body><nav><a href="/">Home</a> <a href="/vpn">VPNs</a></nav><main><article>
<h1>The best VPNs of 2026</h1>
<p>We tested twenty services for speed, privacy and price over three months; these two came out on top, and the
table below sums up what each costs and where it is based.</p>
<ul class="fieldset-list"><li class="section"><h4>Why we picked NordVPN</h4>
<p>NordVPN offers fast, reliable and secure connections without sacrificing your privacy, and its apps are easy.</p>
<div class="pros"><h5>What we like</h5><ul><li>Based in Panama, a privacy-friendly country</li><li>Offers multihop</li></ul></div></li>
<li class="section"><h4>Why we picked Surfshark</h4><p>Surfshark allows unlimited devices on one plan, which suits a family.</p>
<div class="pros"><h5>What we like</h5><ul><li>Unlimited devices</li><li>Low price</li></ul></div></li></ul>
<h2>System requirements</h2>
<ul><strong>Minimum:</strong><br><ul class="bb_ul"><li><strong>OS *:</strong> Windows 7</li><li><strong>Processor:</strong> 1.7 GHz</li></ul></ul>
<p>Connect with <code>ssh -H <em>user</em>@<em>host</em></code>, or sample rows with
<code>TABLESAMPLE <code>sampling_method</code> ( <code>argument</code> )</code> and read <code><a href="/man/ip">ip route</a></code>.</p>
<table><tr><th></th><th>Service</th><th>Price</th></tr>
<tr><td><img src="/icons/nord.png" alt=""></td><td>NordVPN</td><td>$3.39</td></tr>
<tr><td><img src="/icons/surf.png" alt=""></td><td>Surfshark</td><td>$2.19</td></tr></table>
<ul class="ratings"><li>Bain &amp; Company 99.5%<table><tr><td></td><td></td><td></td></tr><tr><td></td><td></td><td></td></tr></table></li>
<li>McKinsey and Co 98.4%<table><tr><td></td><td></td><td></td></tr></table></li></ul>
</article></main><footer><p>© 2026 vpn.example</p></footer></body></html>`;

describe('markdown round trip through a GFM renderer', () => {
  it('gives back the extracted text of a page full of markdown-like characters', () => {
    const r = extract(TECHNICAL_POST);
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('gives back the extracted text of lists in layout lists, lists in lists, markup in code and sparse tables', () => {
    const r = extract(STRUCTURES_PAGE, false);
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
    const md = r.markdown!;
    // What an item holds is indented to its content column, its nested list too.
    expect(md).toContain('- #### Why we picked NordVPN\n  NordVPN offers');
    expect(md).toContain(
      '  ##### What we like\n\n  - Based in Panama, a privacy-friendly country\n  - Offers multihop',
    );
    expect(md).toContain('**Minimum**:\n- OS *: Windows 7\n- **Processor**: 1.7 GHz');
    expect(md).toContain('`ssh -H user@host`');
    expect(md).toContain('`TABLESAMPLE sampling_method ( argument )`');
    expect(md).toContain('`ip route`');
    expect(md).toContain(
      '| | Service | Price |\n| --- | --- | --- |\n| ![](https://site.example/icons/nord.png) | NordVPN | $3.39 |',
    );
    expect(md).toContain('- Bain & Company 99.5%\n- McKinsey and Co 98.4%');
  });

  it('gives back a code block whose lines a CMS broke with <br>, in the text as in the markdown', () => {
    const code =
      '#!/usr/bin/env python3<br><br>import subprocess<br>import time<br>CONFIG = {<br> "profile": "Profile 1",<br>}';
    const r = extract(
      `<!DOCTYPE html><html><body><main><article><h1>Automate the morning</h1>
      <p>Run the script below from cron at seven, and it opens the day's documents in the right order for you.</p>
      <div class="custom_block-content"><p><pre>${code}</pre></p></div></article></main></body></html>`,
    );
    expect(r.text).toContain('#!/usr/bin/env python3\n\nimport subprocess\nimport time\nCONFIG = {');
    expect(r.markdown).toContain('```\n#!/usr/bin/env python3\n\nimport subprocess\nimport time\n');
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  for (const name of FIXTURES) {
    for (const onlyMainContent of [true, false]) {
      it(`gives back the extracted text of ${name} (onlyMainContent ${onlyMainContent})`, () => {
        const r = extract(fixtureHtml(name), onlyMainContent);
        expect(r.text!.length).toBeGreaterThan(0);
        expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
      });
    }
  }
});

describe('markdown ready for models and search', () => {
  const md = extract(TECHNICAL_POST).markdown!;

  it('writes identifiers as they are, escaping only what markdown would read', () => {
    expect(md).toContain('autovacuum_vacuum_cost_limit to 2000');
    expect(md).toContain('`autovacuum_vacuum_scale_factor`');
    expect(md).toContain('| autovacuum_vacuum_scale_factor | 0.2 | 0.01 |');
    expect(md).toContain('The \\_\\_init\\_\\_ hook');
    expect(md).toContain('(see worker_pool.py)');
    expect(md).toContain('Costs went from ~120 ms to ~15 ms.');
    expect(md).toContain('1\\. This paragraph starts with a number');
    expect(md).toContain('\\- Nor is this one');
    expect(md).toContain('# nor is a hash * star _ underscore');
    // Its stars can only open emphasis (no closer follows any): written as they are.
    expect(md).toContain(
      'a literal \\<div> tag, the entity text \\&amp; and a path like C:\\Users\\pg\\data or a\\\\*b.',
    );
  });

  it('writes an identifier that markup splits into pieces as it is', () => {
    // API references break long names with <wbr> and comments: each piece was escaped alone.
    expect(md).toContain('#### balance_transaction nullable string');
  });

  it('keeps one table row per line', () => {
    const table = md.split('\n').filter((line) => line.startsWith('|'));
    expect(table).toEqual([
      '| Setting | Default | Ours |',
      '| --- | --- | --- |',
      '| autovacuum_vacuum_scale_factor | 0.2 | 0.01 |',
      '| log format | a \\| b | two paragraphs |',
      '| naptime (seconds) | 60 | 15 |',
    ]);
  });

  it('fences code blocks with their language and a fence longer than the backticks inside', () => {
    expect(md).toContain(
      '````sql\nALTER TABLE orders SET (autovacuum_vacuum_scale_factor = 0.01);\n-- ```triple backticks``` in a comment\nSELECT',
    );
    expect(md).toContain('```\nplain pre\n   keeps   its spacing\n```');
  });

  it('writes links and images absolute, as valid destinations, images with their alt text', () => {
    expect(md).toContain(
      '[autovacuum settings](https://site.example/docs/runtime%20config%20%28autovacuum%29.html \'Runtime "config"\')',
    );
    expect(md).toContain('<https://www.postgresql.org/docs/current/routine-vacuuming.html>');
    // The src held a srcset list: its first candidate is the image.
    expect(md).toContain('![Table bloat [before] and after](https://site.example/img/bloat%20chart.png)');
    expect(md).not.toMatch(/\[\s*\]\(/);
  });

  it('writes alt text that a renderer gives back as the alt, markup-like characters and all', () => {
    const alts = [
      '30 Years of <br> Tags',
      'Serena &amp; Lily, as the page escaped it twice',
      '*Sale* of the week',
      '_Nicolas_ at work',
      'C:\\temp\\new and a [note]',
    ];
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Pictures</h1>
      <p>Five pictures from the archive, each with a caption that uses characters markdown reads
      as markup; the alt text of each is what a reader hears for it, so it must survive.</p>
      ${alts.map((alt, i) => `<p><img src="/p/${i}.jpg" alt="${alt.replace(/&/g, '&amp;').replace(/</g, '&lt;')}"> Picture ${i}.</p>`).join('\n')}
      </main></body></html>`);
    const html = micromark(r.markdown!, { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
    const rendered = [...parseDocument(`<html><body>${html}</body></html>`).querySelectorAll('img')].map((img) =>
      img.getAttribute('alt'),
    );
    expect(rendered).toEqual(alts);
  });

  it('writes a heading on one line', () => {
    expect(md).toMatch(/^# Tuning autovacuum on a busy table part 2$/m);
  });

  it('writes an address in the text as it is (GFM shows a backslash inside one), and escapes in link text', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Backups</h1><p>Use deja-dup for backups of the home
      folder: it runs on a schedule and keeps old copies around for weeks, so a bad day costs an hour at most.</p>
      <p>source [https://launchpad.net/deja-dup] and https://shop.example/en/?gad=1&gclid=Cj0_LWHB_cx_*x</p>
      <p>See <a href="https://x.example/?f[c]=r">https://x.example/a_b]c</a> for the filters.</p></main></body></html>`);
    expect(r.markdown).toContain(
      'source \\[https://launchpad.net/deja-dup] and https://shop.example/en/?gad=1&gclid=Cj0_LWHB_cx_*x',
    );
    expect(r.markdown).toContain('[https://x.example/a_b\\]c](https://x.example/?f[c]=r)');
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('opens emphasis right after an escaped star, without a space between them', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Model revenue</h1><p>Revenue from foundation models grew
      fastest of all the lines we track, and the rest of the market followed a quarter later in every region.</p>
      <p>*<em>Note: The revenue for foundation models and the apps built on them is estimated.</em></p></main></body></html>`);
    expect(r.markdown).toContain('\\**Note: The revenue for foundation models');
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('escapes a "!" right before a link, which would make the link an image', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Build your own workout</h1><p>Pick five compound lifts and
      do them three times a week, adding a little weight each session while your form stays clean.</p>
      <p>Then, focus on getting stronger!<a href="#footnote-8">[8]</a> (You are writing down your workouts, right?)</p></main></body></html>`);
    expect(r.markdown).toContain('getting stronger\\![[8]](');
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('keeps two code spans side by side apart in the text, as the markdown must write them', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Confusable characters</h1><p>Case folding maps several
      characters onto the same letters, which is how a login form can be fooled by a name that only looks the same.</p>
      <p>German Eszett variants 'ß'<code>U+00DF</code><code>0x C3 9F</code> and 'ẞ'<code>U+1E9E</code><code>0x E1 BA 9E</code>
      both fold into "ss".</p></main></body></html>`);
    expect(r.text).toContain("'ß'U+00DF 0x C3 9F and 'ẞ'U+1E9E 0x E1 BA 9E");
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('puts no space before emphasis written as plain text, and keeps one between code spans', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Scope</h1><p>This covers the limits of the project and what
      it will not do (i.e., the <a href="https://m.example/objectives">project objectives</a><em>)</em>. Establishing
      these boundaries prevents scope creep.</p><ol><li>/etc/resolv.conf points at a 192.168.<em>.</em> address, the
      internal DNS server</li><li>Two containers read <code>dump::Dump;</code><code>tokio_unstable</code> alike</li></ol>
      </main></body></html>`);
    expect(r.markdown).toContain('[project objectives](https://m.example/objectives)). Establishing');
    expect(r.markdown).toContain('a 192.168.. address');
    expect(r.markdown).toContain('`dump::Dump;` `tokio_unstable`');
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('writes the content of an element broken markup named, not its tags as text', () => {
    // <ulclass="pros-cons-list pros"> (a space lost) is an element named `ulclass="pros-cons-list`.
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Logitech MX Master 4</h1><p>Easily one of the best mice
      on the market, this one adds a haptic motor and a gesture ring to a shape that was already right.</p>
      <h3>Pros &amp; Cons</h3><ul class="proscons"><li class="proselm"><ulclass="pros-cons-list pros"><li>New gesture
      button</li><li>Haptic feedback</li></ulclass="pros-cons-list></li></ul><div class="row"><p>It <span>rolls</span>
      on <café>glass</café> too.</p></div></main></body></html>`);
    expect(r.markdown).toContain('- New gesture button\n');
    expect(r.markdown).toContain('It rolls on glass too.');
    expect(r.markdown).not.toMatch(/ulclass|café/);
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('keeps a block inside a table cell apart from the text before it', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Connection settings</h1><p>Each connection block takes the
      arguments below; most of them apply to one connection type only, as the type column says.</p>
      <table><tr><th>Argument</th><th>Type</th><th>Default</th></tr><tr><td>user</td><td><code>ssh</code><p><code>winrm</code></p></td>
      <td><p><code>root</code> when <code>type</code> is ssh</p><p>Administrator when type is winrm</p></td></tr>
      <tr><td><p><strong>Best Price Guarantee </strong></p><br /><p>Find a lower price? We match it.</p></td><td>-</td><td>-</td></tr></table>
      </main></body></html>`);
    expect(r.markdown).toContain(
      '| user | `ssh` `winrm` | `root` when `type` is ssh Administrator when type is winrm |',
    );
    expect(r.markdown).toContain('| **Best Price Guarantee** Find a lower price? We match it. |');
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('keeps code as code in a table cell (a pipe in it escaped) and in the text of a link', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Pool settings</h1><p>The pool reads the settings below
      when it starts; see <a href="/api/Pool.html#connect"><code>Pool.connect()</code></a> for the call that uses them.</p>
      <table><tr><th>Name</th><th>Values</th></tr><tr><td><code>max_conn</code></td><td><code>a|b</code> or
      <code>\`raw\`</code></td></tr></table></main></body></html>`);
    expect(r.markdown).toContain('[`Pool.connect()`](https://site.example/api/Pool.html#connect)');
    expect(r.markdown).toContain('| `max_conn` | `a\\|b` or `` `raw` `` |');
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it("writes the spaces at a link's ends outside its brackets, one space between words", () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Catering as a business</h1><p>Start small, with
      events you can staff yourself, and grow once repeat clients carry the calendar through a whole season.</p>
      <p>It will help you run a successful<a href="/guide"> catering business</a> for years, as the
      <a href="/eeg">equivalent of an EKG </a>— we measured — shows; an <a href="/vac"><b>upholstery vacuum</b> </a> with a
      brush is a sanity saver.</p><div class="cards"><a href="/c1"><h3>Online Business Guide</h3><p>Accredited schools.</p></a><a
      href="/c2"><h3>Online IT Guide</h3><p>Key details.</p></a></div></main></body></html>`);
    const md = r.markdown!;
    expect(md).toContain('a successful [catering business](https://site.example/guide) for years');
    expect(md).toContain('[equivalent of an EKG](https://site.example/eeg) — we measured');
    expect(md).toContain('an [**upholstery vacuum**](https://site.example/vac) with a');
    expect(md).not.toMatch(/\[ |[^\s\]] \]\(/);
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it('keeps two code spans apart in the text when only a <span> or a <wbr> stands between them', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Module runtime</h1><p>The runtime module holds the
      scheduler, the I/O driver and the timer, and re-exports the task dump type behind a feature flag.</p>
      <dl><dt><code>pub use dump::Dump;</code><wbr><span class="stab portability"><code>tokio_unstable</code> and
      Linux</span></dt></dl></main></body></html>`);
    expect(r.text).toContain('pub use dump::Dump; tokio_unstable and Linux');
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('keeps a heading that ends in "#", which ATX would read as a closing sequence', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Scotch tape, 40 pack</h1><p>Clear tape for wrapping and
      mending, in a dispenser that cuts it cleanly, sold in packs of forty rolls for offices and schools.</p>
      <h3>Part #</h3><p>17026CLR-40ES.T1</p><h3>#</h3><p>Hash marks in a heading of their own.</p></main></body></html>`);
    expect(r.markdown).toContain('### Part \\#\n');
    expect(r.markdown).toContain('### \\#\n');
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('escapes a line of tildes, which would open a fenced code block', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>The clay</h1><p>~~~~~~~~~~~~~</p><p>I am making myself the
      clay of this year, soft enough to take a new shape and firm enough to hold it when the weather turns.</p>
      <p>~~~~~~~~~~~~~</p><p>Then the kiln.</p></main></body></html>`);
    expect(r.markdown).toContain('\\~~~~~~~~~~~~~\n');
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('keeps apart the cells of a table inside a table cell', () => {
    const r = extract(
      `<!DOCTYPE html><html><body><main><table><tr><td><table><tr><td><a href="/news">Hacker News</a>
      <a href="/submit">submit</a></td><td><a href="/login">login</a></td></tr></table></td></tr>
      <tr><td>These are jobs at startups that are hiring now, listed by the day they were posted, newest first.</td></tr>
      </table></main></body></html>`,
      false,
    );
    expect(r.markdown).toMatch(/\[submit\]\([^)]*\)\s+\[login\]/);
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('writes nothing for an empty code element', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Delimiters</h1><p>A delimiter ends each field of the
      record, and the last delimiter, prior to the newline, may be left out by most of the writers we tested.</p>
      <p>Split it with <code>split(<code></code>)</code>; but, the last delimiter <code></code>stays.</p></main></body></html>`);
    expect(r.markdown).not.toContain('``');
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('writes a heading served inside another as part of its line, with one marker', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Tax 101: Understanding the basics<h4>A guide to the
      types of taxes Americans pay</h4></h1><p>Taxes fund the roads, schools and courts, and there are more kinds of them
      than most people count.</p><h3><h2>Free delivery and assembly</h2></h3><p>On select chairs, this month.</p></main></body></html>`);
    expect(r.markdown).toMatch(/^# Tax 101: Understanding the basics A guide to the types of taxes Americans pay$/m);
    expect(r.markdown).toMatch(/^### Free delivery and assembly$/m);
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });
});

describe('brackets in the text, written as they are where no reader takes them for syntax', () => {
  it('writes citations, notes and placeholders as they are; a bracket before "(" stays escaped', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Sleep and memory [Updated]</h1><p>Sleep consolidates what
      was learned during the day [1], and deprivation impairs recall [2-4]. Researchers [at the institute] call
      it “replay” [citation needed].</p><p>See [the appendix](page 4) and the figure [a] (left), the footnote
      [^5] and the box [x] for details; an image marker ![alt] stays as written.</p>
      <p>Write to <a href="https://site.example/contact">[email protected]</a> or read <code>arr[i]</code>.</p>
      <ul><li>[ ] an unticked box, written as text</li><li>[x] a ticked one</li></ul>
      <p>[Term]: a definition line. Another term [defined]: mid-line.</p>
      <pre><code>if [ "$1" = "" ]; then echo none; fi</code></pre></main></body></html>`);
    const md = r.markdown!;
    expect(md).toContain('# Sleep and memory [Updated]');
    expect(md).toContain('during the day [1], and deprivation impairs recall [2-4]. Researchers [at the institute]');
    expect(md).toContain('“replay” [citation needed].');
    // Before "(", the bracket would open a link: escaped. "(left)" after a space is no link.
    expect(md).toContain('See \\[the appendix\\](page 4) and the figure [a] (left)');
    // A footnote, an image marker, task boxes and a reference definition keep their escapes.
    expect(md).toContain('\\[^5\\]');
    expect(md).toContain('!\\[alt\\]');
    expect(md).toContain('\\[ \\] an unticked box');
    expect(md).toContain('\\[x\\] a ticked one');
    expect(md).toContain('\\[Term\\]: a definition line. Another term [defined]: mid-line.');
    expect(md).toContain('[[email protected]](https://site.example/contact)');
    expect(md).toContain('`arr[i]`');
    expect(md).toContain('if [ "$1" = "" ]; then');
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it('leaves code alone: fences (in quotes and items too) and code spans, also ones running over lines', () => {
    // Each line as written, and what it becomes where it changes.
    const lines: [string, string?][] = [
      ['Text \\[1\\] here.', 'Text [1] here.'],
      [''],
      ['> ```sh'],
      ['> grep "\\[x\\]" notes'],
      ['> ```'],
      [''],
      ['- ~~~'],
      ['  echo \\[2\\]'],
      ['  ~~~'],
      [''],
      ['A span `a \\[3\\] b` and \\[4\\] after it.', 'A span `a \\[3\\] b` and [4] after it.'],
      [''],
      ['A span that opens ``here \\[5\\]'],
      ['and closes`` on the next line, \\[6\\].'],
      [''],
      ['Then \\[7\\] again.', 'Then [7] again.'],
    ];
    const md = lines.map(([written]) => written).join('\n');
    const out = unescapeLiteralBrackets(md);
    expect(out.split('\n')).toEqual(lines.map(([written, mended]) => mended ?? written));
    expect(words(renderedText(out))).toBe(words(renderedText(md)));
  });

  it('writes a pair around a whole link as it is; keeps one a link crosses, and one after an escaped backslash', () => {
    const md = [
      '\\[Read more: [the guide](https://site.example/g)\\] and \\\\[8\\] and [a](u)\\[9\\] then \\[10\\]\\[11\\]',
      // The link's text is "b] c": unescaped, the pair would take the link's "]" for its own.
      '\\[a [b\\] c](https://site.example/b) and \\[x [y](u)\\](https://site.example/z)',
    ].join('\n');
    const out = unescapeLiteralBrackets(md);
    expect(out.split('\n')).toEqual([
      '[Read more: [the guide](https://site.example/g)] and \\\\[8\\] and [a](u)[9] then [10][11]',
      '\\[a [b\\] c](https://site.example/b) and \\[x [y](u)\\](https://site.example/z)',
    ]);
    expect(words(renderedText(out))).toBe(words(renderedText(md)));
  });
});

describe('stars in the text, written as they are where no emphasis can form', () => {
  it('writes footnote marks, a disclosure and arithmetic as they are, and renders them as the text', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Plans and prices</h1>
      <p>Up to $2M Identity Theft Insurance* ($1M per adult), and customers see up to 24x ROI* on the
      Standard plan. The average rate is $80 per hour.* Commercial work costs more.</p>
      <p>(* Disclosure: the author is a paid partner of the vendor named here.)</p>
      <table><tr><th>Plan</th><th>Score*</th></tr><tr><td>Basic</td><td>4.5</td></tr></table>
      <p>The margin was (31% + ((29%-31%)*75%)) * 0.7 in the second quarter of the year.</p>
      <h5>*Based on data from a sample of 5,000 customers.</h5></main></body></html>`);
    const md = r.markdown!;
    expect(md).toContain('Insurance* ($1M per adult), and customers see up to 24x ROI* on the Standard plan.');
    expect(md).toContain('$80 per hour.* Commercial');
    expect(md).toContain('(* Disclosure: the author');
    expect(md).toContain('| Score* |');
    expect(md).toContain('(31% + ((29%-31%)*75%)) * 0.7');
    expect(md).toContain('##### *Based on data');
    expect(md).not.toContain('\\*');
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it('keeps the escapes where stars could pair, open a line or join emphasis, and in code', () => {
    // Each line as written, and what it becomes where it changes.
    const lines: [string, string?][] = [
      // A pair of literal stars around a word would be emphasis: both stay escaped.
      ['Breathe, and \\*then\\* decide.'],
      [''],
      // A closer after the markdown's own emphasis could pair with it.
      ['**Note:** the rate\\* applies.'],
      [''],
      // At a line's start a star is a list item's marker or a thematic break.
      ['\\* not a list item'],
      ['- \\*\\*\\*'],
      [''],
      // Footnote marks that open lines are neither: two stars, or one before a word.
      ['\\*\\* Color may vary by region.', '** Color may vary by region.'],
      ['\\*\\*\\* Sold separately.', '*** Sold separately.'],
      ['\\*Conditions apply.', '*Conditions apply.'],
      [''],
      // A closing star alone in its paragraph, and one beside an escaped backslash.
      ['Price\\* and a path C:\\\\dir\\* here.', 'Price* and a path C:\\\\dir* here.'],
      [''],
      ['```'],
      ['a \\* b'],
      ['```'],
      ['A span `x \\* y` and a mark\\*.', 'A span `x \\* y` and a mark*.'],
      [''],
      // An emoji (a symbol, punctuation to CommonMark 0.31) before a star: the run can open.
      ['🙂\\*a and b\\* c'],
      [''],
      // A star after a tilde closes in GFM as micromark reads it (`x<em>y~~</em>a`), though
      // CommonMark finds no closer there.
      ['x\\*y~~\\*a'],
    ];
    const md = lines.map(([written]) => written).join('\n');
    const out = unescapeLiteralStars(md);
    expect(out.split('\n')).toEqual(lines.map(([written, mended]) => mended ?? written));
    expect(words(renderedText(out))).toBe(words(renderedText(md)));
  });
});

describe('underscores in the text, written as they are where no emphasis can form', () => {
  it('writes identifiers that open with an underscore and handles in addresses as they are', () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Release notes</h1>
      <p>The compiler adds _Float16, _Float32 and _Float64 to its list of types, and the loader reads
      each module from the path once, in the order that the list gives.</p>
      <p>Then __init__ runs once for each module that the loader reads from the path.</p>
      <p>Announced by <a href="https://x.com/TomAllnutt_/status/1">x.com/TomAllnutt_/status/1</a>
      on the day of the release, with the notes that follow it.</p>
      <p>A word <em>stressed</em> here, beside a_name and _private_ names.</p></main></body></html>`);
    const md = r.markdown!;
    expect(md).toContain('The compiler adds _Float16, _Float32 and _Float64 to its list of types, and the loader');
    expect(md).toContain('[x.com/TomAllnutt_/status/1](https://x.com/TomAllnutt_/status/1)');
    // Where underscores would pair they stay escaped: `__init__` would be strong, `_private_`
    // emphasis (beside the paragraph's own).
    expect(md).toContain('Then \\_\\_init\\_\\_ runs');
    expect(md).toContain('\\_private\\_');
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it('keeps the escapes where underscores could pair or open a line, and in code', () => {
    // Each line as written, and what it becomes where it changes.
    const lines: [string, string?][] = [
      // Around a word: emphasis if unescaped.
      ['Use \\_this\\_ word.'],
      [''],
      // An underscore that can only close, with no opener before it.
      ['handle\\_ and then more', 'handle_ and then more'],
      [''],
      // An opener and a closer across lines of one paragraph.
      ['one \\_two'],
      ['three\\_ four'],
      [''],
      // Between punctuation and a letter an underscore can open; one after it can close.
      ['(\\_a) and b\\_.'],
      [''],
      // At a line's start three underscores are a thematic break.
      ['\\_\\_\\_'],
      [''],
      ['```'],
      ['a \\_b c\\_'],
      ['```'],
      ['A span `x \\_ y` and \\_lead only.', 'A span `x \\_ y` and _lead only.'],
    ];
    const md = lines.map(([written]) => written).join('\n');
    const out = unescapeLiteralUnderscores(md);
    expect(out.split('\n')).toEqual(lines.map(([written, mended]) => mended ?? written));
    expect(words(renderedText(out))).toBe(words(renderedText(md)));
  });
});

describe('line markers inside a line, written as they are', () => {
  it("writes a numbered heading's, a strong question's and a cell's numbers as they are", () => {
    const r = extract(`<!DOCTYPE html><html><body><main><h1>Moving house</h1>
      <h3>1. Start with the easy stuff</h3><p>Pack what you use least first, a box at a time, and write
      on each box the room it goes to and what it holds.</p>
      <p><strong>2. How often should I replace my toothbrush</strong>? Every three months, or after
      an illness, whichever comes first.</p>
      <table><tr><th>Step</th><th>What</th></tr><tr><td>3. Label</td><td>- a list of rooms</td></tr></table>
      <p>1. A paragraph that opens with a number keeps its escape.</p></main></body></html>`);
    const md = r.markdown!;
    expect(md).toContain('### 1. Start with the easy stuff');
    expect(md).toContain('**2. How often should I replace my toothbrush**?');
    expect(md).toContain('| 3. Label | - a list of rooms |');
    expect(md).toContain('1\\. A paragraph that opens');
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it('keeps the escapes that open a line, an item or a quote, and in code', () => {
    const lines: [string, string?][] = [
      ['1\\. opens the line'],
      ['- 2\\. opens an item'],
      ['> \\> opens a quote in a quote'],
      [''],
      ['a line with 3\\. and \\- and \\+ and \\> inside', 'a line with 3. and - and + and > inside'],
      [''],
      ['a backslash and a dash: \\\\- stays, as does 2024\\\\.'],
      [''],
      ['A span `x 4\\. y` and 5\\) after it.', 'A span `x 4\\. y` and 5) after it.'],
      [''],
      ['```'],
      ['text 6\\. in a fence'],
      ['```'],
    ];
    const md = lines.map(([written]) => written).join('\n');
    const out = unescapeInlineLineMarkers(md);
    expect(out.split('\n')).toEqual(lines.map(([written, mended]) => mended ?? written));
    expect(words(renderedText(out))).toBe(words(renderedText(md)));
  });
});

// Shapes a generated fuzz of markup found (forty-fourth round of performance.md, thirty-ninth of
// EXTRACTION.md): each rendered back to another text than the one extracted.
describe('markup a renderer read as other text, found by fuzzing', () => {
  const page = (body: string) =>
    `<!DOCTYPE html><html><head><title>Shop</title></head><body><main><h1>Compare the plans</h1>${body}</main></body></html>`;

  it("keeps an image whose alt text ends with a bracket: its '](src)' is not an empty link", () => {
    const r = extract(
      page(`<p><img src="/img/chart.png" alt="Sales by region [">
      <a href="/report">the full report</a> and <img src="/img/x.png" alt="x ["> more text after it.</p>`),
    );
    expect(r.markdown).toContain('![Sales by region \\[](https://site.example/img/chart.png) [the full report]');
    expect(r.markdown).toContain('![x \\[](https://site.example/img/x.png) more text');
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('escapes the pipes of an alt text and of a link title inside a table cell', () => {
    const r = extract(
      page(`<table><tr><th>Brand</th><th>Price</th></tr>
      <tr><td><img src="/l.png" alt="Acme | Official logo"> Acme</td><td>$5</td></tr>
      <tr><td><a href="/b" title="Bolt | Home">Bolt</a></td><td>$7</td></tr></table>
      <p><img src="/m.png" alt="Outside | a table"></p>`),
      false,
    );
    const md = r.markdown!;
    expect(md).toContain('| ![Acme \\| Official logo](https://site.example/l.png) Acme | $5 |');
    expect(md).toContain('| [Bolt](https://site.example/b "Bolt \\| Home") | $7 |');
    // Outside a table a pipe is text, and stays as written.
    expect(md).toContain('![Outside | a table]');
    expect(
      md
        .split('\n')
        .filter((l) => l.startsWith('|'))
        .every((l) => l.split(/(?<!\\)\|/).length === 4),
    ).toBe(true);
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it("writes inline code broken by <br> on one line: a blank line or a '#' line ended the span", () => {
    const r = extract(
      page(`<p>Run this:<br><code>apt update<br># then install<br><br>apt install tidemark</code>
      and check its version.</p><p>An icon in code: <code>npm <img src="/i/npm.svg" alt="npm"> install</code>.</p>`),
    );
    const md = r.markdown!;
    expect(md).toContain('`apt update # then install  apt install tidemark`');
    expect(md).toContain('`npm  install`');
    expect(md).not.toContain('![npm]');
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it("writes an FAQ's question apart from its answer (<summary> is a block)", () => {
    const r = extract(
      page(`<h2>Questions</h2><details><summary>How do I cancel my plan?</summary>Go to Settings, then Billing, and
      press Cancel.</details><details><summary>Can I get a refund?</summary><p>Yes, within 30 days of a payment.</p></details>`),
      false,
    );
    expect(r.markdown).toContain('How do I cancel my plan?\n\nGo to Settings, then Billing, and press Cancel.');
    expect(r.markdown).toContain('Can I get a refund?\n\nYes, within 30 days of a payment.');
    expect(words(renderedText(r.markdown!))).toBe(words(r.text!));
  });

  it('keeps the text after a table in a list item out of the table', () => {
    const r = extract(
      page(`<ul><li>Plans<table><tr><th>Plan</th></tr><tr><td>Pro</td></tr></table>
      Billed yearly | cancel any time</li><li>Next item</li></ul>`),
    );
    const md = r.markdown!;
    expect(md).toMatch(/\| Pro \|\n\n {2}Billed yearly \| cancel any time\n- Next item/);
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it("keeps a quoted code block's lines as written: its indentation and a line opening with '>'", () => {
    const r = extract(
      page(`<p>The reply quoted the snippet:</p><blockquote><p>Try this:</p><pre><code class="language-python">def total(xs):
    return sum(xs)
&gt;&gt;&gt;total([1, 2])
</code></pre><blockquote><p>Nested reply</p></blockquote></blockquote><p>It worked.</p>`),
    );
    const md = r.markdown!;
    expect(md).toContain('> ```python\n> def total(xs):\n>     return sum(xs)\n> >>>total([1, 2])\n> ```');
    expect(md).toContain('> > Nested reply');
    // The code block a renderer reads back holds the lines exactly: four spaces, no space added.
    const html = micromark(md, { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
    expect(html).toContain('def total(xs):\n    return sum(xs)\n&gt;&gt;&gt;total([1, 2])\n</code>');
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it('writes a row of icon links as one space at most: four opened a line as an indented code block', () => {
    const icons = ['x', 'facebook', 'youtube', 'instagram']
      .map((name) => `<a href="https://social.example/${name}" aria-label="${name}">\n\t\t\t</a>`)
      .join('');
    const r = extract(
      page(`<sidebar-drawer>Account <div class="site-social">${icons}</div>
      © 2026 <a href="/">Beardbrand</a></sidebar-drawer><p>Share: <a href="/s/1"> </a><a href="/s/2"> </a> or copy the link.</p>`),
      false,
    );
    const md = r.markdown!;
    expect(md).not.toMatch(/^ {4}/m);
    expect(md).toMatch(/^ ?© 2026 \[Beardbrand\]\(https:\/\/site\.example\/\)$/m);
    expect(md).toContain('Share: or copy the link.');
    const html = micromark(md, { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
    expect(html).not.toContain('<pre>');
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it("writes a <code> around a <pre> (a code editor's markup) as a code block, not a span of fences", () => {
    const r = extract(
      page(`<p>Create a payment:</p><code class="CodeEditor__scroll"><pre class="CodeSyntax"><span class="ln">1</span>const intent = await stripe.paymentIntents.create({
  amount: 2000,
});</pre></code><h2>Comprehensive libraries</h2><p>Use <code>npm i stripe</code> first.</p>`),
    );
    const md = r.markdown!;
    expect(md).toContain(
      'Create a payment:\n\n```\n1const intent = await stripe.paymentIntents.create({\n  amount: 2000,\n});\n```',
    );
    expect(md).toContain('Use `npm i stripe` first.');
    expect(md).not.toMatch(/`{4}/);
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it('writes a list inside a heading after its line, as a list: on the line its markers were text', () => {
    const r = extract(
      page(`<h2>Chicago <ul class="city-menu"><li><a href="/chicago">Chicago</a></li><li><a href="/flagstaff">Flagstaff</a></li></ul></h2>
      <p>Pickup is on Tuesdays.</p><h3><ul><li><a href="#a">Bins</a></li><li><a href="#b">Bags</a></li></ul></h3>
      <h3>1. Sorting your waste</h3><p>Rinse the cans first.</p>`),
      false,
    );
    const md = r.markdown!;
    expect(md).toContain(
      '## Chicago\n\n- [Chicago](https://site.example/chicago)\n- [Flagstaff](https://site.example/flagstaff)\n\nPickup is on Tuesdays.',
    );
    // A heading that holds nothing but the list is the list.
    expect(md).toContain(
      'Tuesdays.\n\n- [Bins](https://site.example/section/page#a)\n- [Bags](https://site.example/section/page#b)\n\n### 1. Sorting',
    );
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it('writes an address in the text as an autolink when an escape or a reference follows it', () => {
    const r = extract(
      page(`<p>Embed it with &amp;lt;script src=&amp;quot;https://gist.github.com/acme/5e2c.js&amp;quot;&amp;gt;&amp;lt;/script&amp;gt; in a page.</p>
      <p>Plans *marked at https://acme.example/rates_2026* apply; see https://acme.example/terms. or https://acme.example/q?a=1&amp;b=2 for more.</p>`),
    );
    const md = r.markdown!;
    expect(md).toContain('\\&quot;<https://gist.github.com/acme/5e2c.js&quot;&gt;&lt;/script>\\&gt; in a page.');
    // A star that could pair stays escaped, and its backslash is not read as part of the address.
    expect(md).toContain('\\*marked at <https://acme.example/rates_2026>\\* apply;');
    // An address followed by a space or by punctuation that ends a sentence stays as written.
    expect(md).toContain('see https://acme.example/terms. or https://acme.example/q?a=1&b=2 for more.');
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it("keeps the words either side of an empty block apart in a heading, an item, a cell and a swatch's label", () => {
    const r = extract(
      page(`<h3><span>Nikon</span><div class="divider"></div><span>Never miss a moment</span></h3>
      <ul><li><span>Deeplinks</span><div class="spacer"><span></span></div><span>Starting an issue is easier now.</span></li></ul>
      <table><tr><th>Camera</th><th>Price</th></tr><tr><td>Z6<div class="badge"></div>Mirrorless</td><td>$1,599</td></tr></table>
      <div><span>Menu</span><div><hr></div><span>Account</span></div>
      <fieldset><legend>Size</legend><label>xs<div class="restock"><i class="icon-bell"></i></div></label><label>s<div class="restock"><i></i></div></label><label>m</label></fieldset>`),
      false,
    );
    const md = r.markdown!;
    expect(md).toContain('### Nikon Never miss a moment');
    // Written as the line break it is where a line can break (an item), as a space where not.
    expect(md).toContain('- Deeplinks\n  Starting an issue is easier now.');
    expect(md).toContain('| Z6 Mirrorless | $1,599 |');
    // A size swatch's icon box ends its label: the next label's size is apart from it. The
    // fieldset's <legend> is a line of its own, as the text has it.
    expect(md).toContain('Size\n\nxs\ns\nm');
    // A rule is not an empty block: it is written as one.
    expect(md).toMatch(/Menu\n+---\n+Account/);
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it('keeps a link whose text opens or ends with a block a word apart from its neighbours', () => {
    const r = extract(
      page(`<p>We build apps.</p><nav><a href="/about">About Us</a><a href="/careers"><div>Careers</div><div>We're hiring</div></a><a href="/jobs">Jobs</a></nav>
      <ul><li><a href="/work/adidas"><img src="/l/adidas.svg" alt="Adidas logo"> <span>Adidas</span><p>A leading digital platform</p></a></li></ul>
      <div><a href="https://social.example/t"><span>Twitter</span><div class="icon"><svg viewBox="0 0 9 9"></svg></div></a><a href="https://social.example/g"><span>GitHub</span><div class="icon"></div></a></div>
      <div><a href="/changelog/deeplinks"><div class="flex"><span>Deeplink to AI coding tools</span><div class="spacer"></div><span>Starting an issue is easier now.</span></div></a></div>`),
      false,
    );
    const md = r.markdown!;
    expect(md).toContain(
      "[About Us](https://site.example/about) [Careers We're hiring](https://site.example/careers) [Jobs]",
    );
    expect(md).toContain('Adidas A leading digital platform](https://site.example/work/adidas)');
    expect(md).toContain('[Twitter](https://social.example/t) [GitHub](https://social.example/g)');
    // A link with no words (a vote arrow) stays out, its empty block with it: no empty column.
    const votes = extract(
      page(`<table><tr><td>1.</td><td><a id="up_1" href="/vote?id=1"><div class="votearrow"></div></a></td>
      <td><a href="https://news.example/story">Humans and Neanderthals</a></td></tr></table>`),
      false,
    );
    expect(votes.markdown).toContain('| 1. | [Humans and Neanderthals](https://news.example/story) |');
    // An empty block inside a link (a spacer) parts the words either side of it.
    expect(md).toContain(
      '[Deeplink to AI coding tools Starting an issue is easier now.](https://site.example/changelog/deeplinks)',
    );
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it("escapes a tilde only where it could pair with another across the paragraph's pieces", () => {
    const r = extract(
      page(`<p>~div took<del>3~x</del> to render, and the next took ~120 ms to ~15 ms.</p>
      <p>Fridays end early (~5-6pm), some nights too (~7pm).</p>
      <ul><li>Junior: (~$20–$35 per hour)</li><li>Senior: (~$40–$70 per hour)</li></ul>
      <p>See <a href="https://docs.example/guide#:~:text=limits">the limits</a> and ~2 others.</p>`),
    );
    const md = r.markdown!;
    // The text's tildes and the strikethrough's inner one could pair, and stay escaped.
    expect(md).toContain('\\~div took~~3\\~x~~ to render');
    // No run in the paragraph can close one before it, or the item is a paragraph of its own.
    expect(md).toContain('Fridays end early (~5-6pm), some nights too (~7pm).');
    expect(md).toContain('- Junior: (~$20–$35 per hour)\n- Senior: (~$40–$70 per hour)');
    // The link's address is no text to pair with.
    expect(md).toContain('](https://docs.example/guide#:~:text=limits) and ~2 others.');
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it('closes a bare address that the next element is written against, which GFM would read on into it', () => {
    const r = extract(
      page(`<p>Source: https://www.example.org/report<sup>[1]</sup> and the notes.</p>
      <p>See http://x.test/a_b<del>a|b x~y~z beta</del> now, or www.example.com<b>today</b>.</p>
      <p>Go to https://x.test/p.<a href="/q">the next</a> page; https://x.test/end and then words.</p>`),
    );
    const md = r.markdown!;
    expect(md).toContain('Source: <https://www.example.org/report>[1] and the notes.');
    expect(md).toContain(
      'See <http://x.test/a_b>~~a|b x\\~y\\~z beta~~ now, or [www.example.com](http://www.example.com)**today**.',
    );
    // Its trailing punctuation stays outside, as GFM leaves it; an address a space follows stays bare.
    expect(md).toContain('Go to <https://x.test/p>.[the next](https://site.example/q) page; https://x.test/end and');
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it("escapes an address's characters where GFM finds no address, and closes a www. one an escape follows", () => {
    const r = extract(
      page(`<p>The path <b>}"q"~1984.a\\b</b>http://x.test/a_bfoo_bar#}__init__#tag is a module; www.example.com&lt;br&gt; is an
      address; www.x.com_ and http://x.test/a_b__ end.</p>`),
    );
    const md = r.markdown!;
    // After a letter (the bold is dropped: it would not read back) GFM reads no address, and its
    // underscores are escaped as any text's; one inside a word needs none.
    expect(md).toContain('a\\bhttp://x.test/a_bfoo_bar#}\\_\\_init\\_\\_#tag is a module');
    // A www. address cannot be an autolink; the link GFM makes of it ends where it says.
    expect(md).toContain('[www.example.com](http://www.example.com)\\<br> is an address');
    expect(md).toContain('[www.x.com](http://www.x.com)\\_ and <http://x.test/a_b>\\_\\_ end.');
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it('closes a bare address the next element is written against in a table, a quote and a definition', () => {
    // Written by NHM's translators, which cut their output back to where an element began: the
    // address is closed as the next element begins, before any such place is taken after it.
    const r = extract(
      page(`<table><tr><th>Source http://x.test/a_b<img src="/i7.png" alt="chart"></th><th>Kind</th></tr>
      <tr><td>http://x.test/c_d<b>new</b></td><td>see http://x.test/e <i>later</i></td></tr></table>
      <blockquote>Quoted from https://x.test/q_r<sup>[2]</sup> in full.</blockquote>
      <dl><dt>Home</dt><dd>www.example.com<s></s>[archived] and more.</dd></dl>`),
    );
    const md = r.markdown!;
    expect(md).toContain('| Source <http://x.test/a_b>![chart](https://site.example/i7.png) | Kind |');
    // An address a space follows stays bare.
    expect(md).toContain('| <http://x.test/c_d>**new** | see http://x.test/e *later* |');
    expect(md).toContain('> Quoted from <https://x.test/q_r>[2] in full.');
    expect(md).toContain('[www.example.com](http://www.example.com)[archived] and more.');
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it("closes an address past the emphasis node-html-markdown's translator wrote around it", () => {
    const r = extract(
      page(`<blockquote>Moved: <s>old http://x.test/old_path</s>now, and <b>at www.example.com</b>&amp; more, and
      <em>see http://x.test/a_b</em>, then.</blockquote>`),
    );
    const md = r.markdown!;
    // As the paragraph writer does: before a letter the emphasis goes, before punctuation it stays.
    expect(md).toContain(
      '> Moved: old <http://x.test/old_path>now, and **at [www.example.com](http://www.example.com)**& more, and *see http://x.test/a_b*, then.',
    );
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it('closes an address before a link or a code span written in a cell, whatever their text opens with', () => {
    const r = extract(
      page(`<table><tr><th>Site</th><th>Note</th></tr>
      <tr><td>www.example.com<a href="#frag">&lt;less</a></td><td>see http://x.test/a_b<code><div>| pipe</div></code></td></tr></table>`),
    );
    const md = r.markdown!;
    // A link writes its bracket first, a code span its backtick (its <div> breaks no line there).
    expect(md).toContain(
      '| [www.example.com](http://www.example.com)[\\<less](https://site.example/section/page#frag) |',
    );
    expect(md).toContain('see <http://x.test/a_b>`');
    // Both read back as written: no backtick or bracket shown (the text and the span part over
    // the <div>'s space, which the span's own padding takes).
    const shown = renderedText(md);
    expect([shown.includes('`'), shown.includes(']('), shown.includes('www.example.com<less')]).toEqual([
      false,
      false,
      true,
    ]);
  });

  it("closes an address a code span is written against, though the span's text opens with a space", () => {
    const r = extract(
      page(`<p>Browse www.example.com<code>  #anchors</code> or http://x.test/a_b<code> --flag</code>.</p>`),
    );
    const md = r.markdown!;
    expect(md).toContain(
      'Browse [www.example.com](http://www.example.com)` #anchors` or <http://x.test/a_b>` --flag`.',
    );
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it('writes bold inside bold as one bold, unless only the inner one can be written', () => {
    // As real pages nest them (dev pages 1405, 4476, 4499): the inner delimiters closed the outer
    // bold, or kept it from being written at all.
    const r = extract(
      page(`<p><strong><strong>QUESTION 2: H</strong>ow much time can you devote to exercise?</strong></p>
      <p>Real: <b>Those cups are <b>5-oz micro cups</b>.</b> And <b>one<b>two</b>three</b> and <em>a <i>b</i> c</em>.</p>
      <p><b>2)**div@user<b>beta"q"</b>a\\b</b> end. In code: <code><b>x ** y<b>z</b></b></code>.</p>
      <p>Struck: <s><b>2)**div@user<b>beta</b>a</b></s> end.</p>
      <p><strong><strong>Base price: $36,600<br></strong>EPA-rated range: 245 miles</strong></p>`),
    );
    const md = r.markdown!;
    expect(md).toContain('**QUESTION 2: How much time can you devote to exercise**?');
    expect(md).toContain('Real: **Those cups are 5-oz micro cups**. And **onetwothree** and *a b c*.');
    expect(md).toContain('**2)\\*\\*div@userbeta"q"a\\b** end. In code: `x ** yz`.');
    // Inside an emphasis of other delimiters too (whose own delimiters cannot be written there).
    expect(md).toContain('Struck: **2)\\*\\*div@userbetaa** end.');
    // The outer bold spans a line break, which emphasis is not written across: the inner one stays.
    expect(md).toContain('**Base price: $36,600**');
    expect(words(renderedText(md))).toBe(words(r.text!));
  });

  it('closes an address an emphasis ends with where the next piece is glued to its delimiter', () => {
    const r = extract(
      page(`<p>Struck: <s>see http://x.test/a_b</s>, then <em>at www.example.com</em>. Then more.</p>
      <p>Glued: <s>old C:\\dir http://x.test/old_path</s><del>new words</del> and <em>at http://x.test/a_b</em>next.</p>
      <p>A path an autolink cannot hold: http://x.test/a_b&gt;<s></s>[1] ends there.</p>`),
    );
    const md = r.markdown!;
    // Before a space or a sentence's punctuation GFM ends the address at the delimiter: as it is.
    expect(md).toContain('Struck: ~~see http://x.test/a_b~~, then *at www.example.com*. Then more.');
    // Before a letter a delimiter after the closed address cannot close: the emphasis goes, its
    // words stay and read as they did.
    expect(md).toContain('Glued: old C:\\dir <http://x.test/old_path>~~new words~~ and at <http://x.test/a_b>next.');
    // A ">" ends an autolink: the address is a link whose text is the address.
    expect(md).toContain('A path an autolink cannot hold: [http://x.test/a_b>](http://x.test/a_b%3E)[1] ends there.');
    expect(words(renderedText(md))).toBe(words(r.text!));
  });
});
