import { describe, expect, it } from '@jest/globals';
import { parse } from 'parse5';
import { extractContent, parseDocument } from '../src/index.js';
import { MAX_TREE_DEPTH, surveyDocument } from '../src/parse-document.js';
import { Parser } from 'htmlparser2';
import { parseHTML } from 'linkedom';
import { FIXTURE_URL } from './support/fixtures.js';

// Pages that leave out or misplace <html>, <head> and <body>, as found on the web. The HTML
// standard's tree builder (parse5, a test-time oracle) says what a browser's body holds.

const HEAD = `<meta charset="utf-8"><title>Vibe coding, a week in</title>
<meta name="viewport" content="width=device-width, initial-scale=0.5">
<link rel="stylesheet" href="/styles-site.css" type="text/css">
<script>window.dataLayer = window.dataLayer || [];</script>`;

const ARTICLE = `<div id="container"><div id="banner"><h1><a href="/">davidbau.com</a></h1>
<span class="description">A dabbler's weblog</span></div>
<div id="center"><div class="content"><h2>Vibe Coding</h2>
<p>For a week I wrote no code by hand. I described what I wanted, read what came back, and asked
again when it was wrong; the program grew faster than I could have typed it.</p>
<p>The surprise was not the speed. It was how quickly I stopped reading the code closely, and how
long it took to notice the bugs that habit let through.</p>
<ul><li>Small, testable requests worked best.</li><li>Large refactors needed a plan written first.</li></ul>
</div></div>
<div id="right"><div class="sidetitle">Archives</div><ul><li><a href="/archives/2025_03.html">March 2025</a></li></ul></div>
</div>`;

const CASES: Record<string, string> = {
  'no <html>, <head> or <body> tags': `<!DOCTYPE html>\n${HEAD}\n${ARTICLE}`,
  '<head> but no <html> or <body>': `<!DOCTYPE html>\n<head>${HEAD}</head>\n${ARTICLE}`,
  'a <style> before <html>': `<!DOCTYPE html><style data-emotion="css r6sydd">.css-r6sydd{height:100vh}</style><html lang="en"><head>${HEAD}</head><body>${ARTICLE}</body></html>`,
  'a script and a style block before the doctype': `<script type="text/javascript">document.addEventListener('DOMContentLoaded', function () {});</script>
<style>#scroll_limit { display: none !important; }</style>
<!DOCTYPE html><html lang="en"><head>${HEAD}</head><body class="home">${ARTICLE}</body></html>`,
  'a second <html> inside the first': `<!DOCTYPE html>\n<html class="fonts-loaded" lang="en">\n<html lang="en" prefix="og: http://ogp.me/ns#">\n<head>${HEAD}</head><body>${ARTICLE}</body></html></html>`,
  'content inside <head>': `<!DOCTYPE html><html><head>${HEAD}<div class="notice"><p>Site maintenance on Sunday from 02:00 to 04:00 UTC.</p></div></head><body>${ARTICLE}</body></html>`,
  'content after </body> and </html>': `<!DOCTYPE html><html><head>${HEAD}</head><body>${ARTICLE}</body><p>Comments are closed for this entry, but the discussion continues by email.</p></html><footer><p>Copyright 2025 David Bau</p></footer>`,
  'a second <body>': `<!DOCTYPE html><html><head>${HEAD}</head><body class="a"><body class="b" id="page">${ARTICLE}</body></body></html>`,
};

/** The text of the body as the HTML standard builds it (parse5, scripting off: <noscript> is markup). */
function standardBodyText(html: string): string {
  type P5 = { nodeName: string; tagName?: string; value?: string; childNodes?: P5[] };
  const doc = parse(html, { scriptingEnabled: false }) as unknown as P5;
  const body = doc.childNodes?.find((n) => n.tagName === 'html')?.childNodes?.find((n) => n.tagName === 'body');
  const out: string[] = [];
  const walk = (n: P5): void => {
    if (n.nodeName === '#text') out.push(n.value ?? '');
    if (n.tagName === 'script' || n.tagName === 'style') return;
    for (const c of n.childNodes ?? []) walk(c);
  };
  if (body) walk(body);
  return words(out.join(' '));
}

function bodyText(doc: Document): string {
  const out: string[] = [];
  const walk = (n: Node): void => {
    if (n.nodeType === 3) out.push((n as Text).data);
    if (n.nodeType === 1 && ['script', 'style'].includes((n as Element).localName)) return;
    for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
  };
  walk(doc.body);
  return words(out.join(' '));
}

const words = (s: string): string => s.replace(/\s+/g, ' ').trim();

describe('parseDocument: the HTML standard’s document shape', () => {
  for (const [name, html] of Object.entries(CASES)) {
    it(`gives the body a browser gives it: ${name}`, () => {
      const doc = parseDocument(html);
      expect(doc.documentElement.localName).toBe('html');
      expect(doc.head.parentElement).toBe(doc.documentElement);
      expect(bodyText(doc)).toBe(standardBodyText(html));
      expect(bodyText(doc)).toContain('how quickly I stopped reading the code closely');
      expect(doc.title).toBe('Vibe coding, a week in');
      // Every consumer reads the content: the markdown of the main content holds the article.
      const md = extractContent(doc, { url: FIXTURE_URL, formats: ['markdown'], onlyMainContent: true }).markdown;
      expect(md).toContain('how quickly I stopped reading the code closely');
      expect(md).toContain('- Small, testable requests worked best.');
    });
  }

  it('keeps the attributes of a second <html> or <body> that the first lacks', () => {
    const doc = parseDocument(CASES['a second <html> inside the first']!);
    expect(doc.documentElement.getAttribute('class')).toBe('fonts-loaded');
    expect(doc.documentElement.getAttribute('prefix')).toBe('og: http://ogp.me/ns#');
    const twice = parseDocument(CASES['a second <body>']!);
    expect(twice.body.getAttribute('class')).toBe('a');
    expect(twice.body.id).toBe('page');
  });

  it('keeps head elements in the head and the first content where the body starts', () => {
    const doc = parseDocument(CASES['content inside <head>']!);
    expect(Array.from(doc.head.children).map((el) => el.localName)).toEqual([
      'meta',
      'title',
      'meta',
      'link',
      'script',
    ]);
    expect(doc.body.firstElementChild?.className).toBe('notice');
  });

  it('reads a fragment without any structure as a body', () => {
    const doc = parseDocument('<p>hello</p><p>world</p>');
    expect(doc.body.innerHTML).toBe('<p>hello</p><p>world</p>');
    expect(doc.head.childNodes.length).toBe(0);
  });

  it('leaves a document already in shape as it was', () => {
    const html = `<!DOCTYPE html><html lang="en"><head>${HEAD}</head><body>${ARTICLE}</body></html>`;
    const doc = parseDocument(html);
    expect(doc.toString()).toBe(`<!DOCTYPE html>${html.slice('<!DOCTYPE html>'.length)}`);
  });
});

/** The tree's greatest depth (<html> is 1), read without recursion. */
function treeDepth(doc: Document): number {
  let most = 0;
  const stack: [Element, number][] = [[doc.documentElement, 1]];
  while (stack.length) {
    const [el, depth] = stack.pop()!;
    most = Math.max(most, depth);
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) stack.push([c, depth + 1]);
  }
  return most;
}

describe('parseDocument: markup nested deeper than a browser builds it', () => {
  // Unclosed inline tags (a guestbook whose entries each open a <font>) nest one level per entry.
  const entries = 20_000;
  const html =
    '<!DOCTYPE html><html><head><title>Guestbook</title></head><body><nav><a href="/">Home</a></nav>' +
    '<article><h1>Guestbook</h1><p>Signed by every visitor since 1999, in the order they came.</p>' +
    Array.from({ length: entries }, (_, i) => `<font color="#336">entry ${i} <b>signed</b> `).join('') +
    '<p>Last entry.</p></article><footer>© 1999</footer></body></html>';

  it('holds the tree to the depth Chromium’s parser allows, keeping every text in document order', () => {
    const doc = parseDocument(html);
    expect(treeDepth(doc)).toBe(MAX_TREE_DEPTH + 1);
    const text = doc.body.textContent!;
    let at = 0;
    for (let i = 0; i < entries; i += 997) {
      const next = text.indexOf(`entry ${i} signed`, at);
      expect([i, next >= at]).toEqual([i, true]);
      at = next;
    }
    expect(text.endsWith('Last entry.© 1999')).toBe(true);
  });

  it('extracts the content of such a page', () => {
    const out = extractContent(parseDocument(html), {
      url: FIXTURE_URL,
      formats: ['markdown', 'text', 'links'],
      onlyMainContent: true,
    });
    expect(out.markdown).toContain('# Guestbook');
    expect(out.text).toContain(`entry ${entries - 1} signed`);
    expect(out.markdown).toContain('Last entry.');
  });

  it('leaves a tree at the limit as it is', () => {
    const shallow = `<!DOCTYPE html><html><head></head><body>${'<div>'.repeat(MAX_TREE_DEPTH - 2)}deep${'</div>'.repeat(MAX_TREE_DEPTH - 2)}</body></html>`;
    const doc = parseDocument(shallow);
    expect(treeDepth(doc)).toBe(MAX_TREE_DEPTH);
    expect(doc.toString()).toBe(shallow);
  });
});

describe('parseDocument: CDATA markers in HTML', () => {
  it('reads "<![CDATA[" after a tag as a browser does, not as a section that swallows the body', () => {
    // As on XenForo forums: a marker after a tag with no "]]>" before the page's end.
    const html =
      '<!DOCTYPE html><html><head><title>Thread</title></head><body><div class="js-data"><![CDATA[ window.xf = 1; </div>' +
      '<article><h1>Tide tables in the Solent</h1><p>The spring tides were higher than the almanac said.</p></article>' +
      '<footer>Forum software</footer></body></html>';
    const doc = parseDocument(html);
    expect(bodyText(doc)).toBe(standardBodyText(html));
    expect(bodyText(doc)).toContain('The spring tides were higher than the almanac said.');
  });

  it('leaves a marker in text-only elements as their text, as a browser does', () => {
    const html =
      '<!DOCTYPE html><html><head><title><![CDATA[Harbour news]]></title></head><body><p>Text.</p></body></html>';
    expect(parseDocument(html).title).toBe('<![CDATA[Harbour news]]>');
  });
});

describe('surveyDocument: the tree’s depth and CDATA in one pass', () => {
  const docs: Record<string, string> = {
    'a page in shape':
      '<!DOCTYPE html><html><head><title>t</title></head><body><div><p>a <b>b</b></p></div><p>c</p></body></html>',
    'markup before <html>':
      '<style>p{}</style><!DOCTYPE html><html><body><ul><li><a href="/">x</a></li></ul></body></html>',
    'a CDATA section': '<html><body><div><![CDATA[ x ]]></div><p>y</p></body></html>',
    'a fragment': 'text <i>only</i>',
    'deep markup': `<html><body>${'<div>x'.repeat(700)}</body></html>`,
  };
  for (const [name, html] of Object.entries(docs)) {
    it(`reads linkedom's links as the DOM walk does: ${name}`, () => {
      const doc = parseHTML(html).document as unknown as Document;
      const fast = surveyDocument(doc);
      expect(fast).toEqual(surveyDocument(doc, null));
      expect(fast.depth).toBeGreaterThan(0);
    });
  }
  it('finds what the fixes need: depth past the limit, and CDATA', () => {
    expect(surveyDocument(parseHTML(docs['deep markup']!).document as unknown as Document).depth).toBe(702);
    expect(surveyDocument(parseHTML(docs['a CDATA section']!).document as unknown as Document).cdata).toBe(true);
    expect(surveyDocument(parseHTML(docs['a page in shape']!).document as unknown as Document)).toEqual({
      depth: 5,
      cdata: false,
    });
  });
});

// linkedom is installed with a patch (ADR 12, patches/linkedom@0.18.14.patch): what it changes
// must still behave as the DOM does.
describe('parseDocument: linkedom as patched', () => {
  it('keeps a class attribute as written, answering it as a browser does, its tokens made when asked for', () => {
    const doc = parseDocument(
      '<body><div class="  card\n  card--wide card "><p class="lead">x</p><p>y</p></div></body>',
    );
    const card = doc.querySelector('.card--wide')!;
    expect(card).not.toBeNull();
    expect(card.getAttribute('class')).toBe('  card\n  card--wide card ');
    expect(card.outerHTML).toContain('class="  card\n  card--wide card "');
    expect([...card.classList]).toEqual(['card', 'card--wide']);
    expect(card.classList.contains('card--wide')).toBe(true);
    expect(doc.querySelectorAll('p.lead')).toHaveLength(1);
    expect(doc.querySelector('p:not(.lead)')!.getAttribute('class')).toBeNull();
    // Changed through its tokens, the attribute follows them.
    card.classList.add('open');
    expect(card.getAttribute('class')).toBe('card card--wide open');
    card.setAttribute('class', 'closed');
    expect([...card.classList]).toEqual(['closed']);
  });

  it('still delivers events to listeners added after the parse', () => {
    const doc = parseDocument('<body><button>go</button></body>');
    const button = doc.querySelector('button')!;
    const Event = doc.defaultView!.Event;
    const seen: string[] = [];
    const listener = (e: { type: string }) => void seen.push(e.type);
    button.addEventListener('click', listener);
    button.dispatchEvent(new Event('click'));
    button.removeEventListener('click', listener);
    button.dispatchEvent(new Event('click'));
    expect(seen).toEqual(['click']);
  });
});

describe('parseDocument: htmlparser2 as patched', () => {
  /**
   * Runs `run` with the methods `names` of `proto` wrapped, and sums what each call costs by
   * `cost`: the length of the array or string before the call, the call's arguments and its
   * answer.
   */
  const counting = <T>(
    proto: object,
    names: readonly string[],
    cost: (length: number, args: unknown[], answer: unknown) => number,
    run: () => T,
  ): { result: T; count: number } => {
    type Method = (...args: unknown[]) => unknown;
    const methods = proto as Record<string, Method>;
    const originals = Object.fromEntries(names.map((name) => [name, methods[name]!]));
    let count = 0;
    for (const name of names) {
      methods[name] = function (this: { length: number }, ...args: unknown[]) {
        const length = this.length;
        const answer = originals[name]!.apply(this, args);
        count += cost(length, args, answer);
        return answer;
      };
    }
    try {
      return { result: run(), count };
    } finally {
      Object.assign(methods, originals);
    }
  };

  /**
   * The elements of arrays that unshift and shift move and indexOf and lastIndexOf may read (what
   * each costs grows with the array), while `run` runs.
   */
  const arrayWork = <T>(run: () => T): { result: T; elements: number } => {
    const { result, count } = counting(
      Array.prototype,
      ['unshift', 'shift', 'indexOf', 'lastIndexOf'],
      (length) => length,
      run,
    );
    return { result, elements: count };
  };

  it('keeps its open elements as a stack whose top is its end: markup nested 100,000 deep parses in linear work', () => {
    // Unclosed paragraphs of spans and links nest one level per repeat (a <p> closes only a <p>
    // on top). The parser shifted its whole stack of open elements at every tag: 69 s of parse
    // for 100,000 repeats (1.2 MB). Stray end tags under them were looked for through the whole
    // stack (100,000 "<div></x>": 15 s).
    const nested = (n: number) =>
      arrayWork(() =>
        parseDocument(
          `<html><body>${'<p><span><a href="/x">x</a></q>'.repeat(n)}<svg><g>${'<svg><g>'.repeat(n)}</body></html>`,
        ),
      );
    const [half, full] = [nested(50_000), nested(100_000)];
    expect(full.elements).toBeLessThanOrEqual(2.5 * half.elements + 1_000);
    expect(full.result.body.textContent).toBe('x'.repeat(100_000));
  });

  /** The parser's events for html, written at once or `chunk` characters at a time. */
  const eventsOf = (html: string, chunk = 0): string[] => {
    const seen: string[] = [];
    const parser = new Parser(
      {
        onopentag: (name, attribs) => seen.push(`<${name} ${JSON.stringify(attribs)}>`),
        ontext: (text) => seen.push(`text ${JSON.stringify(text)}`),
        onclosetag: (name, implied) => seen.push(`</${name}${implied ? ' implied' : ''}>`),
        oncomment: (text) => seen.push(`comment ${JSON.stringify(text)}`),
      },
      { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
    );
    if (chunk) {
      for (let i = 0; i < html.length; i += chunk) parser.write(html.slice(i, i + chunk));
      parser.end();
    } else parser.end(html);
    // Adjacent texts joined: a chunked write may cut a text in two where a whole one is one.
    return seen.reduce<string[]>((out, e) => {
      const last = out[out.length - 1];
      if (e.startsWith('text ') && last?.startsWith('text '))
        out[out.length - 1] = `text ${JSON.stringify(JSON.parse(last.slice(5)) + JSON.parse(e.slice(5)))}`;
      else out.push(e);
      return out;
    }, []);
  };

  it('skips ahead through text and quoted values to the next "<", quote or "&", and reads what it read a character at a time', () => {
    const html =
      '&amp;start <p title="a &quot;b&quot; & c\'d">x &lt; y &amp z&#x41;</p>' +
      "<a href='/q?a=1&amp;b=2' data-x='say \"hi\"'>link</a><!-- a & b < c -->" +
      '<script>if (a<b && c) x("&amp;")</script>tail &notanentity; end&';
    const expected = [
      'text "&start "',
      '<p {"title":"a \\"b\\" & c\'d"}>',
      'text "x < y & zA"',
      '</p>',
      '<a {"href":"/q?a=1&b=2","data-x":"say \\"hi\\""}>',
      'text "link"',
      '</a>',
      'comment " a & b < c "',
      '<script {}>',
      'text "if (a<b && c) x(\\"&amp;\\")"',
      '</script>',
      // A legacy entity ends without its semicolon in text, as in a browser: "&not" is "¬".
      'text "tail ¬anentity; end&"',
    ];
    expect(eventsOf(html)).toEqual(expected);
    // Written a character, or a few, at a time, the parser reads the same page.
    for (const chunk of [1, 3, 7]) expect(eventsOf(html, chunk)).toEqual(expected);
  });

  it('reads a long text or attribute value without taking each character through its loop', () => {
    // Counted as the characters the parser reads one by one: the patched parser finds the next
    // "<", quote or "&" with indexOf; as published, it read all 130,000 of them.
    const html = `<p>${'tide '.repeat(20_000)}&amp;</p><a title="${'v'.repeat(30_000)}">x</a>`;
    const { result: events, count: read } = counting(
      String.prototype,
      ['charCodeAt'],
      () => 1,
      () => eventsOf(html),
    );
    expect(events[1]).toBe(`text ${JSON.stringify('tide '.repeat(20_000) + '&')}`);
    expect(events[3]).toBe(`<a ${JSON.stringify({ title: 'v'.repeat(30_000) })}>`);
    expect(read).toBeLessThan(1_000);
  });

  it('searches each stretch of a run of entities once, however far the next "<" or quote', () => {
    // After each entity the parser skips ahead again; were the next "<" searched for again each
    // time, a run of 20,000 entities before it would read ~1.2 billion characters (it took 0.4 s
    // for 100,000 before the positions were remembered).
    const run = 'x&amp;'.repeat(20_000);
    const { result: events, count: scanned } = counting(
      String.prototype,
      ['indexOf'],
      // The characters an indexOf reads: from where it starts to what it finds, or to the end.
      (length, [, from = 0], at) => ((at as number) === -1 ? length : (at as number)) - (from as number),
      () => [eventsOf(`<p>${run}</p>`), eventsOf(`<a title="${run}" data-x='${run}'>x</a>`)],
    );
    const decoded = 'x&'.repeat(20_000);
    expect(events[0]).toEqual(['<p {}>', `text ${JSON.stringify(decoded)}`, '</p>']);
    expect(events[1]![0]).toBe(`<a ${JSON.stringify({ title: decoded, 'data-x': decoded })}>`);
    expect(scanned).toBeLessThan(4 * (3 * run.length));
  });

  it('opens the row a cell implies where the markup leaves out its <tr>, so that each </tr> ends one', () => {
    // A ranking table whose template writes each row's </tr> and never its <tr>: the published
    // parser put every cell in one row (parse5, as a browser, makes one row per </tr>).
    const html = `<table><thead><tr><th>Rank</th><th>Hammock</th><th>Weight</th></tr></thead><tbody>
      <td>1</td><td>Blackbird</td><td>15.7 oz</td></tr>
      <td>2</td><td>Tempest</td><td>22 oz</td></tr></tbody></table><table><td>a</td><td>b</td></table>`;
    const doc = parseDocument(`<html><body>${html}</body></html>`);
    const rows = [...doc.querySelectorAll('tr')].map((tr) => [...tr.children].map((cell) => cell.textContent!.trim()));
    expect(rows).toEqual([
      ['Rank', 'Hammock', 'Weight'],
      ['1', 'Blackbird', '15.7 oz'],
      ['2', 'Tempest', '22 oz'],
      ['a', 'b'],
    ]);
    // As the HTML standard's tree has them.
    type Node5 = { nodeName: string; childNodes?: Node5[] };
    const trs5: Node5[] = [];
    const walk = (n: Node5): void => {
      if (n.nodeName === 'tr') trs5.push(n);
      n.childNodes?.forEach(walk);
    };
    walk(parse(`<html><body>${html}</body></html>`) as unknown as Node5);
    expect(trs5.map((tr) => tr.childNodes!.filter((c) => c.nodeName === 'td' || c.nodeName === 'th').length)).toEqual(
      rows.map((cells) => cells.length),
    );
    const md = extractContent(doc, { url: FIXTURE_URL, formats: ['markdown'], onlyMainContent: false }).markdown!;
    expect(md).toContain('| 1 | Blackbird | 15.7 oz |\n| 2 | Tempest | 22 oz |');
  });

  it('closes what it closed before: implied ends, stray end tags, the end of the input, foreign content', () => {
    const html =
      '<body><p>one<p>two<div><span>three</div>four</p><ul><li>a<li>b</ul><svg><circle/><text>t</text></svg><p>five<br/></span>six</body>';
    const doc = parseDocument(html);
    expect(doc.body.innerHTML).toBe(
      '<p>one</p><p>two</p><div><span>three</span></div>four<p></p><ul><li>a</li><li>b</li></ul><svg><circle /><text>t</text></svg><p>five<br>six</p>',
    );
  });
});
