import {
  NodeHtmlMarkdown,
  PostProcessResult,
  type NodeHtmlMarkdownOptions,
  type TranslatorConfig,
  type TranslatorConfigFactory,
  type TranslatorConfigObject,
} from 'node-html-markdown';
import { defaultTranslators } from 'node-html-markdown/dist/config.js';
import { parseHTML } from 'node-html-markdown/dist/utilities.js';
import { Visitor, type NodeMetadata } from 'node-html-markdown/dist/visitor.js';
import { blockHtml, type ContentBlock } from './compact-html.js';
import { blockTree, type MdElement, type MdNode, type MdText } from './markdown-tree.js';
import { unescapeLiteralBrackets } from './literal-brackets.js';
import { unescapeInlineLineMarkers } from './literal-line-markers.js';
import { unescapeLiteralStars, unescapeLiteralTildes, unescapeLiteralUnderscores } from './literal-emphasis.js';
import { breaksLine, closesWithBreak, COLLAPSIBLE, isSpace, opensWithBreak } from './text.js';
import type { UrlResolver } from './urls.js';

export const NHM_OPTIONS: Partial<NodeHtmlMarkdownOptions> = {
  codeBlockStyle: 'fenced',
  bulletMarker: '-',
  // Four spaces nest a list under both "- " and "10. " items; NHM's two fall short of "1. ".
  indent: '    ',
  maxConsecutiveNewlines: 2,
  useInlineLinks: true,
  useLinkReferenceDefinitions: false,
  // An FAQ's question and its answer: NHM wrote a <summary> inline, and an answer that is bare
  // text in its <details> ran on from the question ("How do I cancel?Go to settings"). So was a
  // fieldset's <legend> ("Sizexs s m").
  blockElements: ['DETAILS', 'SUMMARY', 'LEGEND'],
};

const NOT_BLANK = /\S/;

// Escaping: only where CommonMark/GFM would read the character as markup. NHM escapes every
// _ * ~ [ ] \ ` it meets, so `autovacuum_vacuum_scale_factor` was stored as
// `autovacuum\_vacuum\_scale\_factor`: a search for the identifier missed it and a diff showed the
// backslashes. A piece of text is escaped without knowing what stands beside it in the output,
// so at its edges the escaping errs on the side of escaping.

const INLINE_SPECIAL = /[\\`*_~[\]<&]/g;
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const ALNUM = /[\p{L}\p{N}]/u;
const WHITE = /\s/;
const HTML_START = /[A-Za-z/!?]/;
const ENTITY = /^&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/;

function escapeInlineChar(c: string, i: number, s: string): string {
  switch (c) {
    case '\\': {
      // A backslash is literal unless punctuation follows it (or may, at the piece's end).
      const after = s[i + 1];
      return after === undefined || ASCII_PUNCTUATION.test(after) ? '\\\\' : c;
    }
    case '<': {
      const after = s[i + 1];
      return after === undefined || HTML_START.test(after) ? '\\<' : c;
    }
    case '&':
      return ENTITY.test(s.slice(i, i + 40)) ? '\\&' : c;
    default:
      return `\\${c}`; // ` [ ]
  }
}

/**
 * The delimiter run of `*`, `_` or `~` that holds position i of s: where it ends, and whether its
 * characters are escaped. A run is judged by what stands on either side of it: with whitespace
 * on both sides it can neither open nor close emphasis (or a strikethrough), and an underscore
 * run inside a word (snake_case identifiers) neither. What could pair with a run in another
 * piece of the paragraph is escaped here, and given back once the paragraph is written
 * (literal-emphasis.ts). Judged once for the whole run (escapeInline keeps it): read
 * again for each of its characters, a page's long run of underscores took time in the square
 * of its length (80,000 of them, 38 s).
 */
function delimiterRun(c: string, i: number, s: string): { end: number; escaped: boolean } {
  let start = i;
  while (s[start - 1] === c) start--;
  let end = i + 1;
  while (s[end] === c) end++;
  // GFM strikes through between runs of one or two tildes only; a longer run is text (and a
  // line's fence, which escapeLineStart sees to).
  if (c === '~' && end - start > 2) return { end, escaped: false };
  const before = s[start - 1];
  const after = s[end];
  let escaped = true;
  if (before !== undefined && after !== undefined) {
    if (WHITE.test(before) && WHITE.test(after)) escaped = false;
    else if (c === '_' && ALNUM.test(before) && ALNUM.test(after)) escaped = false;
  }
  return { end, escaped };
}

/** Markers a line may open with: list items, headings, quotes, rules, setext underlines, fences. */
const LINE_START =
  /^([ \t]*)(?:([-+*])(?=[ \t]|$)|(#{1,6})(?=[ \t]|$)|(>)|(\d{1,9})([.)])(?=[ \t]|$)|([-=_*])(?=(?:[ \t]*\7){2,}[ \t]*$|\7*[ \t]*$)|(~{3,}))/gm;
/**
 * LINE_START at the text's start only: for a text of one line, where the multiline expression
 * would still be tried at every position for a line start that is not there.
 */
const TEXT_START = new RegExp(LINE_START.source);
/** The characters that end a line for `^` and `$` in a multiline expression. */
const LINE_END = /[\n\r\u2028\u2029]/;

/** escapeLineStart applied at every line's start of `text`. */
const escapeLineStarts = (text: string): string =>
  text.replace(LINE_END.test(text) ? LINE_START : TEXT_START, escapeLineStart);

function escapeLineStart(
  m: string,
  indent: string,
  bullet?: string,
  hashes?: string,
  quote?: string,
  digits?: string,
  delimiter?: string,
  rule?: string,
  fence?: string,
): string {
  if (bullet) return `${indent}\\${bullet}`;
  if (hashes) return `${indent}\\${hashes}`;
  if (quote) return `${indent}\\>`;
  if (digits) return `${indent}${digits}\\${delimiter}`;
  if (rule) return `${indent}\\${rule}`;
  // A line of tildes would open a fenced code block (backticks are escaped wherever they are).
  if (fence) return `${indent}\\${fence}`;
  return m;
}

/** Text escaped for markdown: the characters CommonMark and GFM would otherwise read as markup. */
export const escapeInline = (text: string, inLink = false): string => escapeText(text, inLink).escaped;

/**
 * escapeInline, and the bare address the text ends with when it runs to the text's end (GFM reads
 * an address on to the next space or "<": the next piece written against it would be read as
 * part of it). `before` is the character the output holds before the text, where it is known:
 * GFM finds no address right after a letter ("a\bhttp://…"), nor a `www.` one after anything but
 * a space or one of ( * _ [ ] ~.
 */
function escapeText(text: string, inLink: boolean, before?: string): { escaped: string; open?: UrlAtEnd } {
  // In a link's text GFM finds no autolink and reads escapes (an unescaped ] would end the text).
  const found = !inLink && (text.includes('://') || text.includes('www.')) ? bareUrls(text, before) : NO_URLS;
  const urls = found.spans;
  let u = 0;
  let run = { end: -1, escaped: false };
  const escape = (c: string, i: number, s: string): string => {
    while (u < urls.length && urls[u + 1]! <= i) u += 2;
    if (u < urls.length && urls[u]! <= i) return c;
    if (c === '*' || c === '_' || c === '~') {
      if (i >= run.end) run = delimiterRun(c, i, s);
      return run.escaped ? `\\${c}` : c;
    }
    return escapeInlineChar(c, i, s);
  };
  const closed = urls.length ? urlsToClose(text, urls) : NO_SPANS;
  let escaped: string;
  if (!closed.length) escaped = text.replace(INLINE_SPECIAL, escape);
  else {
    // These URLs are written so that they end where they say (an autolink, <https://…>; a www. one
    // as the link GFM makes of it): a bare one runs on to the next space, and takes in the
    // backslash of an escape written after it ("…/a_b\*" showed "a_b\") or leaves a character
    // reference after it to be read ("…js&gt;" showed ">").
    const piece = (from: number, to: number): string =>
      text.slice(from, to).replace(INLINE_SPECIAL, (c: string, i: number) => escape(c, from + i, text));
    escaped = '';
    let from = 0;
    for (let k = 0; k < closed.length; k += 2) {
      escaped += piece(from, closed[k]!) + closedUrl(text.slice(closed[k], closed[k + 1]));
      from = closed[k + 1]!;
    }
    escaped += piece(from, text.length);
  }
  // Open: the last address runs to the text's end, and was not closed above.
  if (!found.openEnd || closed[closed.length - 1] === urls[urls.length - 1]) return { escaped };
  const url = text.slice(urls[urls.length - 2], urls[urls.length - 1]);
  return { escaped, open: { url, written: escaped.slice(escaped.lastIndexOf(url)), at: 0 } };
}

/**
 * An address written so that it ends where it says: an autolink, or a link whose text is the
 * address (a `www.` one, or one holding a ">" an autolink would end at), as GFM would link it.
 */
const closedUrl = (url: string): string =>
  AUTOLINK.test(url) && !url.includes('>')
    ? `<${url}>`
    : `[${escapeText(url, true).escaped}](${markdownUrl(AUTOLINK.test(url) ? url : `http://${url}`)})`;

/**
 * The bare URLs of the text (bareUrls' spans) that a character markdown may escape follows before
 * the next space: these are written closed (closedUrl).
 */
function urlsToClose(text: string, urls: number[]): number[] {
  let closed: number[] | undefined;
  for (let k = 0; k < urls.length; k += 2) {
    const end = urls[k + 1]!;
    const after = NOT_SPACES.exec(text.slice(end, end + 200))![0];
    if (!INLINE_SPECIAL_CHAR.test(after)) continue;
    (closed ??= []).push(urls[k]!, end);
  }
  return closed ?? NO_SPANS;
}

const INLINE_SPECIAL_CHAR = /[\\`*_~[\]<&]/;
const NOT_SPACES = /^\S*/;

const NO_SPANS: number[] = [];
const NO_URLS = { spans: NO_SPANS, openEnd: false };
/**
 * GFM's autolink literals: an address written out ("https://…" after anything but a letter,
 * "www.…" after a space or one of ( * _ [ ] ~, as micromark finds them) up to a space or "<",
 * less the punctuation that ends a sentence after it and what reads as character references
 * there ("…js&quot;&gt;" ends at "js": the "&gt;" after it is read as ">"). GFM reads no markup and no escape inside
 * one, so a backslash there would be shown: its characters stay as they are.
 */
const BARE_URL = /(?:(?<![A-Za-z])https?:\/\/|(?<![^\s(*_[\]~])www\.)[\p{L}\p{N}][^\s<]*/giu;
const URL_TRAIL = /(?:[?!.,:*_~]|&[A-Za-z0-9]+;)+$/;

/**
 * [start, end) of each bare URL in the text, flattened, and whether the last one runs to the
 * text's end (its trailing punctuation in). One at the text's start is left out where `before`
 * (the output's character before the text) keeps GFM from reading it.
 */
function bareUrls(text: string, before?: string): { spans: number[]; openEnd: boolean } {
  const spans: number[] = [];
  let openEnd = false;
  for (const m of text.matchAll(BARE_URL)) {
    if (m.index === 0 && before !== undefined && !(WWW.test(m[0]) ? WWW_AFTER : SCHEME_AFTER).test(before)) continue;
    const url = m[0].replace(URL_TRAIL, '');
    spans.push(m.index, m.index + url.length);
    openEnd = m.index + m[0].length === text.length;
  }
  return { spans, openEnd };
}
/** What GFM finds an address with a scheme after (anything but a letter), and a `www.` one. */
const SCHEME_AFTER = /^[^A-Za-z]$/;
const WWW_AFTER = /^[\s(*_[\]~]$/;
const WWW = /^www\./i;

/** Plain text (paragraphs, lines) as markdown that renders back to the same text. */
export function escapeMarkdownText(text: string): string {
  return unescapeLiteralTildes(escapeLineStarts(escapeInline(text)));
}

/**
 * Characters a link destination cannot hold as they are: parentheses would end it, whitespace
 * and angle brackets are not allowed in it, a pipe would split a table cell. (NHM also encoded
 * _ and *, which markdown never reads inside a destination.)
 */
const HREF_SPECIALS = /[()<>|\s]/g;
const HREF_ESCAPES: Record<string, string> = { '(': '%28', ')': '%29', '<': '%3C', '>': '%3E', '|': '%7C', ' ': '%20' };
const escapeHrefChar = (c: string): string => HREF_ESCAPES[c] ?? encodeURIComponent(c);
/** A URL as a markdown link or image destination. */
export const markdownUrl = (url: string): string => url.trim().replace(HREF_SPECIALS, escapeHrefChar);
/**
 * A link or image title, between delimiters it does not hold, so that it needs no escapes (a
 * title that quotes a headline goes in single quotes or parentheses); escaped only when it holds
 * every kind.
 */
function markdownTitle(title: string | null | undefined): string {
  const t = title?.trim().replace(/\s+/g, ' ');
  if (!t) return '';
  if (!t.includes('"')) return ` "${t.replace(/\\/g, '\\\\')}"`;
  if (!t.includes("'")) return ` '${t.replace(/\\/g, '\\\\')}'`;
  if (!/[()]/.test(t)) return ` (${t.replace(/\\/g, '\\\\')})`;
  return ` "${t.replace(/["\\]/g, '\\$&')}"`;
}
/**
 * Alt text: one line, escaped as a link's text is. A renderer reads markup in an image's
 * description and writes only its text as the alt, so "30 Years of <br> Tags" lost its tag and
 * "Serena &amp; Lily" (a page's own text, escaped twice) became "Serena & Lily".
 */
const altText = (alt: string): string => escapeInline(alt.replace(/\s+/g, ' ').trim(), true);

/** Images keep their alt text; their URL is made a valid destination (srcset junk has spaces). */
const IMAGE: TranslatorConfigFactory = ({ node, options, noEscape, tableMeta }) => {
  // Inside inline code an image's markup would show as text (as `![x](y)`); the text skips it too.
  if (noEscape) return { ignore: true };
  const content = imageMarkdown(node as unknown as ElementLike, !!options.keepDataImages);
  return content === null ? { ignore: true } : { content: inCell(content, !!tableMeta), recurse: false };
};

/**
 * Markup written whole inside a table cell (an image, a link's title) with its pipes escaped: GFM
 * splits a row at every unescaped pipe before it reads anything else, so "Acme | Official logo"
 * as an alt text cut the cell in two.
 */
const inCell = (markup: string, cell: boolean): string =>
  cell && markup.includes('|') ? markup.replace(/\|/g, '\\|') : markup;

/** An image as markdown; null when it is not written (no source, or a data URL left out). */
function imageMarkdown(node: ElementLike, keepDataImages: boolean): string | null {
  const src = node.getAttribute('src') || '';
  if (!src.trim() || (!keepDataImages && /^data:/i.test(src))) return null;
  return `![${altText(node.getAttribute('alt') || '')}](${markdownUrl(src)}${markdownTitle(node.getAttribute('title'))})`;
}

/** What a code block is written in, from the class of its <pre> (cleaning puts it there) or <code>. */
const LANGUAGE = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/;
/**
 * Classes that tell a highlighter what to do rather than what the code is: Discourse's
 * `lang-auto` (guess it), Prism's `language-none`, highlight.js's `nohighlight`, Sphinx's
 * `highlight-default` (the project's default, which the page does not say). Written as the
 * fence's info string they would name a language that does not exist.
 */
const NOT_A_LANGUAGE = new Set(['auto', 'none', 'nohighlight', 'no-highlight', 'undefined', 'null', 'default']);

/** The language the <pre>'s class names, else its <code>'s; a directive names none. */
const languageOf = (node: ElementLike, code: ElementLike | undefined): string => {
  for (const el of [node, code]) {
    const language = LANGUAGE.exec(el?.getAttribute('class') ?? '')?.[1];
    if (language && !NOT_A_LANGUAGE.has(language.toLowerCase())) return language;
  }
  return '';
};

/**
 * A <pre> is a fenced code block whatever it holds (NHM fenced only a <pre> around a single
 * <code>, and wrote any other as text, its line breaks lost), with its language, and a fence
 * longer than any run of backticks inside it.
 */
function codeBlock(node: ElementLike): TranslatorConfig {
  const code = node.childNodes.find((c) => c.nodeType === 1) as ElementLike | undefined;
  const language = languageOf(node, code);
  const text = node.textContent.replace(/^\n/, '').replace(/\s+$/, '');
  if (!text) return { ignore: true };
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return { content: `${fence}${language}\n${text}\n${fence}`, recurse: false, noEscape: true, surroundingNewlines: 2 };
}

interface ElementLike {
  nodeType: number;
  childNodes: ElementLike[];
  textContent: string;
  getAttribute(name: string): string | null | undefined;
}

/** Whether an element holds an element of one of the tag names. */
function holds(node: ElementLike, tagNames: readonly string[]): boolean {
  for (const c of node.childNodes) {
    if (c.nodeType !== 1) continue;
    if (tagNames.includes((c as unknown as { tagName: string }).tagName) || holds(c, tagNames)) return true;
  }
  return false;
}

/** Whether an element holds an image (a link around a picture is not empty). */
const hasImage = (node: ElementLike): boolean => holds(node, ['IMG']);

const CELL_BLOCKS = 'p,div,li,dt,dd,h1,h2,h3,h4,h5,h6,blockquote,section,figcaption';
/**
 * A block inside a table cell: a space on either side, as its line of its own would read
 * ("<code>ssh</code><p><code>winrm</code></p>" was "sshwinrm"), one only: none before it where
 * the cell's text already ends in one, and its own text's last spaces dropped before the one after.
 */
const CELL_BLOCK: TranslatorConfigFactory = ({ visitor }) => ({
  prefix: endsInSpace(tailOf(visitor)) ? '' : ' ',
  postfix: ' ',
  postprocess: cellBlockText,
});
const cellBlockText = ({ content }: { content: string }): string => trimSpacesEnd(content);
/** A line break in a cell is a space, unless the cell's text already ends in one. */
const CELL_BREAK: TranslatorConfigFactory = ({ visitor }) => ({
  content: endsInSpace(tailOf(visitor)) ? '' : ' ',
  recurse: false,
});
/** The last characters of what a translator's visitor (TailVisitor) has written. */
const tailOf = (visitor: unknown): string => (visitor as { tailText: string }).tailText;
/** Whether output whose last characters are `tail` ends in whitespace, or is empty. */
const endsInSpace = (tail: string): boolean => tail === '' || isSpace(tail.charCodeAt(tail.length - 1));

/** A table cell on one line (NHM escaped only the first | of a cell; processText escapes them all). */
const TABLE_CELL: TranslatorConfigFactory = ({ visitor }) => ({
  surroundingNewlines: false,
  childTranslators: visitor.instance.tableCellTranslators,
  prefix: ' ',
  postfix: ' |',
  postprocess: tableCellText,
});
const tableCellText = ({ content }: { content: string }): string =>
  trimNewLines(content)
    .replace(/(?:\r?\n)+/g, ' ')
    .trim();

/**
 * Two of NHM's translators, doing the same work cheaper (its other translators are its own).
 * - The link escapes its URL with one replace; NHM builds it character by character.
 * - The list item's last step ends every line that ends in spaces with a markdown line break.
 *   NHM does it with /(\S+?)[^\S\r\n]+$/gm, which retries the lazy word at each of its
 *   characters: quadratic in the length of a word (a long URL in a link), and nested lists run
 *   it again at each level. Matching only the word's last character does the same replacement
 *   in linear time.
 */
export const NHM_TRANSLATORS: TranslatorConfigObject = {
  a: ({ node, options, visitor, noEscape, tableMeta }) => {
    const href = node.getAttribute('href');
    // A link inside inline code is its text (a code span cannot hold one).
    if (!href || noEscape) return PLAIN;
    // A link that shows nothing but an icon (share buttons, social links) is not written: an
    // empty link is noise to a model. Blank text inside it still separates words, once: a row of
    // such links wrote a space each, and four of them opening a line made an indented code block
    // of the text after them (a footer's "© 2026 Brand" after its social icons).
    const text = node.textContent;
    if (!NOT_BLANK.test(text) && !hasImage(node as unknown as ElementLike)) {
      return text && !endsInSpace(tailOf(visitor)) ? { content: ' ' } : { ignore: true };
    }
    const encoded = markdownUrl(href);
    if (node.textContent === href && options.useInlineLinks && AUTOLINK.test(encoded)) {
      return { content: `<${encoded}>` };
    }
    (node as unknown as { linkClose?: string }).linkClose =
      ']' +
      (options.useLinkReferenceDefinitions
        ? `[${visitor.addOrGetUrlDefinition(encoded)}]`
        : `(${encoded}${inCell(markdownTitle(node.getAttribute('title')), !!tableMeta)})`);
    return {
      postprocess: linkWritten,
      childTranslators: visitor.instance.aTagTranslators,
      prefix: spaceBeforeLink(node as unknown as ElementLike, text, tailOf(visitor)) ? ' [' : '[',
    };
  },
  img: IMAGE,
  // Each line of a quote gets "> " ahead of it, as written. NHM rewrote a line's leading '>'s and
  // one space after them (`^(>*) ?` to `>$1 `), so that a nested quote read `>> b`; but that took a
  // space off every indented line of a code block in a quote (Python's four became three) and put
  // one into a code line opening with '>' (a prompt `>>>x` became `>>>> x`).
  blockquote: { postprocess: ({ content }) => quoted(trimNewLines(content)) },
  pre: ({ node }) => codeBlock(node as unknown as ElementLike),
  table: (ctx) => {
    const nhm = (defaultTranslators.table as TranslatorConfigFactory)(ctx);
    return { ...nhm, postprocess: (c) => tableText(c.content, c.nodeMetadata.get(c.node)?.tableMeta) };
  },
  // Inside inline code (noEscape) markup is not markup: `-H *user*@*host*` would show its stars.
  'strong,b': { spaceIfRepeatingChar: true, postprocess: (c) => (c.noEscape ? c.content : emphasis(c.content, '**')) },
  'em,i': { spaceIfRepeatingChar: true, postprocess: (c) => (c.noEscape ? c.content : emphasis(c.content, '*')) },
  'del,s,strike': {
    spaceIfRepeatingChar: true,
    postprocess: (c) => (c.noEscape ? c.content : emphasis(c.content, '~~')),
  },
  // Code inside inline code is its text; NHM opened a second span inside the first. A <code>
  // around a <pre> (a code editor's markup) shows a block: the <pre> is written as one, and the
  // span would have held its fences as text.
  code: ({ node, noEscape }) => (noEscape || holds(node as unknown as ElementLike, ['PRE']) ? PLAIN : INLINE_CODE),
  // A heading inside a heading (served nested; a browser would have closed the first) is part of
  // its line: a second marker there would be read as text ("### ## Free delivery").
  // A heading holding a list (a city menu, a table of contents) is written as its line and then
  // the list: on the line, the items' markers were read as text ("## Chicago - [Chicago](…) -
  // [Flagstaff](…)"). Its marker is written last, so that its content opens a line and only an
  // item's marker opens a line unescaped there.
  'h1,h2,h3,h4,h5,h6': ({ node }) =>
    inHeading(node as unknown as MdElement)
      ? { surroundingNewlines: 1 }
      : holds(node as unknown as ElementLike, ['UL', 'OL'])
        ? { surroundingNewlines: 2, postprocess: headingWithList(+node.tagName.charAt(1)) }
        : { prefix: `${'#'.repeat(+node.tagName.charAt(1))} `, postprocess: headingText },
  // A nested list is indented by the items around it (each item's later lines go to its content
  // column), not by how many lists it is in: a list inside a list with no item between (invalid,
  // but served) or inside a layout list's item stays a list (NHM indented it four spaces a list).
  // Lists nested past MAX_LIST_DEPTH are written at that depth: each level indents every line
  // below it again (unclosed lists 255 deep made 10 MB of markdown of a 0.2 MB page, in 12 s).
  li: ({ options: { bulletMarker }, listKind, listItemNumber, indentLevel }) => {
    const marker = listKind === 'OL' && listItemNumber !== undefined ? `${listItemNumber}. ` : `${bulletMarker} `;
    const deepest = (indentLevel ?? 0) >= MAX_LIST_DEPTH - 1;
    return { prefix: marker, surroundingNewlines: 1, postprocess: listItemText(deepest ? 0 : marker.length) };
  },
};

/**
 * NHM's table as NHM reads it (a row a line, its pipes at the ends dropped, cells split at " |"
 * and trimmed), written as a GFM renderer reads a table, in one pass:
 * - without padding each cell to its column's widest: NHM pads them, and a table whose one long
 *   cell padded every row grew with its rows times that cell (8,000 rows and a 40 KB cell: 6 s
 *   and 1.4 GB);
 * - its delimiter row gives each column dashes, as many as its widest cell up to three, and three
 *   for a column empty in every row (NHM gave that none, and the table was read as text);
 * - a table whose every cell is empty (a rating's bars drawn in cells, a spacer) is not written.
 */
function tableText(content: string, meta: NodeMetadata['tableMeta']): string | PostProcessResult {
  const rows: string[][] = [];
  const widths: number[] = [];
  let empty = true;
  for (const line of content.split(/\r\n|\r|\n/)) {
    const row = line.replace(TABLE_ROW_ENDS, '$1');
    if (!row) continue;
    const cells = row.split(' |');
    for (let i = 0; i < cells.length; i++) {
      const cell = (cells[i] = cells[i]!.trim());
      if (cell) empty = false;
      if (!(widths[i]! >= cell.length)) widths[i] = cell.length;
    }
    rows.push(cells);
  }
  if (empty) return PostProcessResult.RemoveNode;
  const out: string[] = meta?.caption ? [meta.caption] : [];
  rows.forEach((cells, n) => {
    out.push(`| ${widths.map((_, i) => `${cells[i] ?? ''} |`).join(' ')}`);
    if (n === 0) out.push(`|${widths.map((w) => ` ${'-'.repeat(w === 0 ? 3 : Math.min(w, 3))} |`).join('')}`);
  });
  return `${out.join('\n')}\n`;
}

/** A table row's pipes at its ends, as NHM drops them. */
const TABLE_ROW_ENDS = /^(?:\|)?(.+)\s*\|\s*$/;

/**
 * A quote's lines behind its marker, a blank line as the marker alone. Outside a fenced block a
 * line opening with one space loses it (an inline text's leading blank, which NHM took too; two
 * or more are a list item's later lines, and stay); inside one every line is kept as written.
 */
function quoted(content: string): string {
  const lines = content.split('\n');
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence) {
      if (closesFence(line, fence)) fence = null;
      lines[i] = line ? `> ${line}` : '>';
      continue;
    }
    fence = FENCE.exec(line)?.[1] ?? null;
    const text = line.charCodeAt(0) === 32 && line.charCodeAt(1) !== 32 ? line.slice(1) : line;
    lines[i] = NOT_BLANK.test(text) ? `> ${text}` : '>';
  }
  return lines.join('\n');
}

/** An element written as its children are. */
const PLAIN: TranslatorConfig = {};

/** NHM's inline code: a span fenced by one backtick more than the longest run inside it. */
const INLINE_CODE: TranslatorConfig = {
  spaceIfRepeatingChar: true,
  noEscape: true,
  postprocess: ({ content }) => codeSpan(content),
};

function codeSpan(content: string): string {
  // An empty code element shows nothing; two backticks would be read as text ("``").
  if (!NOT_BLANK.test(content)) return content;
  // A line break (a <br> in the code) is a space to a renderer, which reads the lines' block
  // structure first: a blank line or a line opening with "#", ">" or "- " ended the span there.
  if (content.includes('\n')) content = content.replace(/[ \t]*\n/g, ' ');
  let longest = '';
  for (const run of content.match(/`+/g) ?? []) if (run.length > longest.length) longest = run;
  const delimiter = `\`${longest}`;
  const padding = delimiter.length > 1 ? ' ' : '';
  return `${delimiter}${padding}${content}${padding}${delimiter}`;
}

/** A URL that can stand as an autolink: it has a scheme. */
const AUTOLINK = /^[a-z][a-z0-9+.-]*:/i;

/**
 * A link's text on one line, without the spaces the page put at its ends: they are written outside
 * the brackets, where they separate the link from its neighbours ("a successful [catering
 * business](…) for", not "a successful[ catering business ](…)for"). Then its closing
 * (`](url "title")`). A space after a backslash stays: the backslash would escape the bracket.
 */
function linkMarkdown(content: string, close: string, node: ElementLike): string {
  const line = content.replace(/\s*(?:\r?\n)+\s*/g, ' ');
  let start = 0;
  let end = line.length;
  while (start < end && isBlank(line.charCodeAt(start))) start++;
  while (end > start && isBlank(line.charCodeAt(end - 1)) && line.charCodeAt(end - 2) !== 92) end--;
  // A link whose text ends with a block (an icon's <div>, even with nothing in it) ends a line of
  // the text, and the word after it is a word apart ("[Twitter](…)[GitHub](…)" was one word).
  const spaceAfter = end < line.length || closesWithBreak(node);
  return `${line.slice(start, end)}${close}${spaceAfter ? ' ' : ''}`;
}
const isBlank = (c: number): boolean => c === 32 || c === 9;

// The translators' functions are made once, not per element: besides the allocation, a
// toolchain that keeps function names (esbuild's keepNames) names each new one at run time. So a
// link's closing is kept on its node (MdElement.linkClose) for its postprocess, not in a closure.
const linkWritten = ({ node, content }: { node: object; content: string }): string =>
  linkMarkdown(content, (node as { linkClose?: string }).linkClose!, node as ElementLike);

/**
 * Whether a link's text opens with whitespace, or with a block (a line break in the text), where
 * the output before it does not end in any: the space is written before the bracket
 * (linkMarkdown drops it inside). Without it, "<a>About Us</a><a><div>Careers</div></a>" was
 * "About UsCareers" to a renderer.
 */
const spaceBeforeLink = (node: ElementLike, text: string, tail: string): boolean =>
  !endsInSpace(tail) && (isSpace(text.charCodeAt(0)) || opensWithBreak(node));

/** Whitespace and sentence punctuation that can stand outside emphasis without changing the text. */
const EDGE = String.raw`(?:\s|[.,:;!?'"…“”‘’«»]|\\[.,:;!?'"])*`;
const EMPHASIS_PARTS = new RegExp(String.raw`^(${EDGE})([\s\S]*?)(${EDGE})$`, 'u');
const PUNCTUATION_EDGE = /^[\p{P}\p{S}]|[\p{P}\p{S}]$/u;

/**
 * Emphasis that a CommonMark renderer reads back as emphasis: delimiters hug the words. NHM put
 * them around whatever the element held, and "**(UK)**Reviewed" or "**caption **toggle" is not
 * emphasis to a renderer, which then shows the asterisks. Spaces and sentence punctuation at the
 * edges go outside the delimiters; if the words still begin or end with other punctuation or a
 * symbol (a link, a bracket), whether the delimiters work would depend on the text around them,
 * so the emphasis is left out. An element holding only whitespace gives a space (it separated
 * words: "Dad.<strong> </strong>Nevertheless").
 */
function emphasis(content: string, delimiter: string): string | PostProcessResult {
  if (!content) return PostProcessResult.RemoveNode;
  if (!NOT_BLANK.test(content)) return ' ';
  const [, lead = '', core = '', trail = ''] = EMPHASIS_PARTS.exec(content) ?? [];
  if (!core || PUNCTUATION_EDGE.test(core) || core.includes('\n')) return content;
  return `${lead}${delimiter}${core}${delimiter}${trail}`;
}

/** Whether emphasis() put delimiters around the content. */
const wraps = (written: string | PostProcessResult, content: string): boolean =>
  typeof written === 'string' && written !== content && written !== ' ';

/** Whether an element inside the node is an emphasis written with these delimiters. */
function holdsEmphasis(node: MdElement, delimiter: string): boolean {
  for (const child of node.childNodes) {
    if (child.nodeType !== 1) continue;
    if (DELIMITER[child.tagName] === delimiter || holdsEmphasis(child as MdElement, delimiter)) return true;
  }
  return false;
}

const HEADING_TAG = /^H[1-6]$/;

function inHeading(node: MdElement): boolean {
  for (let p = node.parentNode; p; p = p.parentNode) if (HEADING_TAG.test(p.tagName)) return true;
  return false;
}

/** A heading is one line (a <br> or a block inside it would end it); an empty one goes. */
function headingText({ content }: { content: string }): string | PostProcessResult {
  const line = content.replace(/\s*(?:\r?\n)+\s*/g, ' ').trim();
  // A run of # after a space ends an ATX heading and is not shown ("### Part #" reads "Part").
  return line ? line.replace(HEADING_CLOSE, '$1\\$2') : PostProcessResult.RemoveNode;
}
const HEADING_CLOSE = /(^|\s)(#+)$/;

/** The postprocess of a heading holding a list: its line up to the first item, then the rest. */
function headingWithList(level: number): (ctx: { content: string }) => string | PostProcessResult {
  return ({ content }) => {
    const item = LIST_LINE.exec(content);
    const line = headingText({ content: item ? content.slice(0, item.index) : content });
    const rest = item ? trimNewLines(content.slice(item.index)) : '';
    if (typeof line !== 'string') return rest || PostProcessResult.RemoveNode;
    return `${'#'.repeat(level)} ${line}${rest && `\n\n${rest}`}`;
  };
}
/** A line opening with a list item's marker. */
const LIST_LINE = /^(?:[-*+]|\d{1,9}[.)])[ \t]/m;

/** How deep markdown nests lists; deeper ones are written as items of the deepest. */
export const MAX_LIST_DEPTH = 32;

type ListItemText = (ctx: { content: string }) => string | PostProcessResult;
const listItemTexts: ListItemText[] = [];

/** A line that opens a list item, a table row or a code fence: the item keeps its line breaks. */
const STRUCTURAL_LINE = /^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)|\||`{3,}|~{3,})/;
const FENCE = /^[ \t]*(`{3,}|~{3,})/;
/** Whether a line closes the fenced block `fence` opened (as codeBlock writes it: the same run). */
const closesFence = (line: string, fence: string): boolean =>
  line.trimStart().startsWith(fence) && !line.trim().slice(fence.length);
/** A table's row as tableText writes it (a lone pipe is text). */
const TABLE_ROW = /^[ \t]*\|.*\|[ \t]*$/;

/**
 * The list item's postprocess for a marker `width` characters wide ("- ", "12. "). The item's
 * later lines are indented to its content column, so that what it holds (a heading, a nested
 * list, a table, a code block) stays in it by CommonMark's list-item rule; the items around it
 * add their own widths. Its text lines are joined by hard line breaks (blank lines collapse), as
 * NHM's item did; before a nested item, a table row or a fence, and inside a fenced block, the
 * line breaks are kept as written, and a fence's lines get no trailing spaces.
 */
function listItemText(width: number): ListItemText {
  const pad = ' '.repeat(width);
  return (listItemTexts[width] ??= ({ content }) => {
    if (!NOT_BLANK.test(content)) return PostProcessResult.RemoveNode;
    const text = content.trim();
    if (!text.includes('\n')) return text;
    const lines = text.split(/\r?\n/);
    // The item is put together in parts, joined once: reading the end of a string built by
    // concatenation copies all of it, once a line (a list nested hundreds deep took minutes).
    let last = hardBreakEnd(lines[0]!);
    const out = [last];
    let fence = FENCE.exec(lines[0]!)?.[1] ?? null;
    let breaks = 0;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      if (fence) {
        out.push((last = `\n${line && pad}${line}`));
        if (closesFence(line, fence)) fence = null;
        continue;
      }
      if (!NOT_BLANK.test(line)) {
        breaks++;
        continue;
      }
      // A line after a table stays apart from it: joined to it, GFM reads it as one more row.
      if (TABLE_ROW.test(last) && !TABLE_ROW.test(line)) out.push('\n'.repeat(Math.max(breaks, 1) + 1));
      else out.push(STRUCTURAL_LINE.test(line) ? '\n'.repeat(breaks + 1) : last.endsWith('  ') ? '\n' : '  \n');
      out.push((last = pad + hardBreakEnd(line)));
      fence = FENCE.exec(line)?.[1] ?? null;
      breaks = 0;
    }
    return out.join('');
  });
}

/** Trailing blanks of a line made a hard line break's two spaces (NHM's item did the same). */
const hardBreakEnd = (line: string): string => line.replace(/(\S)[^\S\r\n]+$/, '$1  ');

// Translators are built once per option set; building them per page would cost more than a
// small page's whole conversion.
let withoutDataImages: NodeHtmlMarkdown | undefined;
let withDataImages: NodeHtmlMarkdown | undefined;

const converterFor = (keepDataImages: boolean) =>
  keepDataImages ? (withDataImages ??= makeConverter(true)) : (withoutDataImages ??= makeConverter(false));

/** The translators NHM visits a link's text with: processText knows it is in a link by them. */
const LINK_TEXT = new WeakSet<object>();

/** NHM with our translators, also where NHM uses its own collections (in links and tables). */
function makeConverter(keepDataImages: boolean): NodeHtmlMarkdown {
  const converter = new NodeHtmlMarkdown({ ...NHM_OPTIONS, keepDataImages }, NHM_TRANSLATORS);
  LINK_TEXT.add(converter.aTagTranslators);
  converter.aTagTranslators.set('img', IMAGE);
  // Blocks inside a link (a teaser card's title and summary) are words apart, not run together,
  // on both sides as in a cell ("<span>Adidas</span><p>A leading…</p>" was "AdidasA leading").
  converter.aTagTranslators.set(CELL_BLOCKS, CELL_BLOCK);
  for (const collection of [converter.aTagTranslators, converter.tableCellTranslators]) {
    collection.set('strong,b', NHM_TRANSLATORS['strong,b']!);
    collection.set('em,i', NHM_TRANSLATORS['em,i']!);
    collection.set('del,s,strike', NHM_TRANSLATORS['del,s,strike']!);
  }
  converter.tableCellTranslators.set('img', IMAGE);
  // Code stays code in a cell and in a link's text (NHM wrote it as plain text there): a
  // reference table's parameter names and types, a link to an API's `Method`.
  converter.tableCellTranslators.set('code', NHM_TRANSLATORS.code!);
  converter.aTagTranslators.set('code', NHM_TRANSLATORS.code!);
  converter.tableCellTranslators.set('a', NHM_TRANSLATORS.a!);
  converter.tableTranslators.set('th,td', TABLE_CELL);
  converter.tableRowTranslators.set('th,td', TABLE_CELL);
  // Inside a cell, line breaks and blocks are spaces (NHM wrote "two<p>lines" as "twolines").
  converter.tableCellTranslators.set('br', CELL_BREAK);
  converter.tableCellTranslators.set(CELL_BLOCKS, CELL_BLOCK);
  // So are the cells of a table inside a cell (a layout table's menu: "submit" then "login").
  converter.tableCellTranslators.set('td,th', { postfix: ' ' });
  return converter;
}

/** Markdown for already-cleaned HTML (links and images are absolute by now). */
export function toMarkdown(html: string, keepDataImages: boolean): string {
  return tidyMarkdown(translate(converterFor(keepDataImages), html));
}

/** NHM's translate(), with TailVisitor: HTML parsed by NHM's parser (node-html-parser). */
function translate(converter: NodeHtmlMarkdown, html: string): string {
  return renderTree(converter, parseHTML(html, converter.options) as unknown as MdElement);
}

/**
 * Markdown for content cut into top-level blocks (contentBlocks): each converted on its own and
 * joined by a blank line, which keeps node-html-markdown's cost linear in the page's length.
 * NHM's visitor is handed the tree its parser would have made of the block's compact HTML
 * (blockTree), which spares serialising the block and parsing it again; a block that tree does
 * not cover goes through translate() as HTML. `resolve`: links and image sources are made
 * absolute here rather than by cleaning (resolvedAttr).
 */
export function blocksToMarkdown(blocks: ContentBlock[], keepDataImages: boolean, resolve?: UrlResolver): string {
  const converter = converterFor(keepDataImages);
  const parts: string[] = [];
  for (const block of blocks) {
    const tree = blockTree(block, resolve);
    const md = (
      tree
        ? (simpleBlockMarkdown(tree, keepDataImages) ?? renderTree(converter, tree))
        : translate(converter, blockHtml(block, resolve))
    ).trim();
    if (md) parts.push(unsplitIdentifiers(md));
  }
  return tidyMarkdown(parts.join('\n\n'));
}

/**
 * Underscores escaped inside a word: markup split the identifier into pieces
 * (`balance<!-- -->_<wbr>transaction`), and each piece was escaped without seeing its
 * neighbours. Between letters or digits an underscore run neither opens nor closes emphasis, so
 * it is written as it is (not in code spans and fences, whose backslashes are the code's).
 */
const SPLIT_IDENTIFIER = /(?<=[\p{L}\p{N}])(?:\\_)+(?=[\p{L}\p{N}])/gu;
const unescapeRun = (run: string): string => run.replace(/\\/g, '');
/** Code spans and fences (a backtick run to the next run of the same length), or other text. */
const CODE_OR_TEXT = /(`+)[\s\S]*?\1|[^`]+/g;

function unsplitIdentifiers(md: string): string {
  // An escaped backtick would be taken for a code span's: such a block is left as it is.
  if (!md.includes('\\_') || md.includes('\\`')) return md;
  return md.replace(CODE_OR_TEXT, (part, ticks?: string) =>
    ticks ? part : part.replace(SPLIT_IDENTIFIER, unescapeRun),
  );
}

/**
 * NHM's visitor, told where its output ends. After every piece it appends, NHM's visitor reads
 * the trailing whitespace of its output (the last ten characters), and the read flattens the
 * string it builds by concatenation: a copy of the whole output per piece, quadratic in a long
 * list or table. This one keeps the last characters aside and reads them there.
 */
class TailVisitor extends Visitor implements Output {
  /** The last characters of the output (no initialiser: the base constructor does the visit). */
  declare tail: string | undefined;
  /** While an item is written on its own (visitNode): the last characters of what came before. */
  declare before: string | undefined;
  declare pendingUrl: UrlAtEnd | undefined;
  declare openUrl: UrlAtEnd | undefined;

  get tracksUrls(): boolean {
    return true;
  }

  get closesUrlsWithin(): number {
    return WRITE_APART_FROM;
  }

  get tailText(): string {
    return this.tail ?? '';
  }

  /**
   * Once the output is long, each element is written into an output of its own, then joined to
   * what came before. NHM's translators rewrite what they wrote (a postprocess reads the output
   * from the element's start and cuts it back there: items, cells, links, emphasis), and each
   * cut flattens the string it cuts: on one output, a copy of everything so far per element (2.4
   * s for a list of 20,000 items, 7 s for a table of 20,000 rows, 5.4 s for 20,000 links in one
   * cell); on the element's own, a copy of it.
   */
  override visitNode(node: Parameters<Visitor['visitNode']>[0], textOnly?: boolean, metadata?: NodeMetadata): void {
    const text = node as unknown as MdText;
    if (text.nodeType === 3 && text.preserve && text.isWhitespace && !metadata?.preserveWhitespace) {
      // NHM's rule for blank text (a space, unless nothing is written yet or the output ends in
      // whitespace), read from what was written before it here or before an element written apart.
      if (this.tail && !this.result.trailingNewlineStats.whitespace) this.appendResult(' ');
      return;
    }
    if (this.openUrl && node.nodeType === 1) settleOpenUrl(this, node as unknown as MdElement);
    // After a "!" the element stays in place: a link there escapes it (appendPiece), which an
    // output of its own could not reach.
    if (node.nodeType !== 1 || this.result.text.length < WRITE_APART_FROM || endsInBang(this.tail ?? ''))
      return super.visitNode(node, textOnly, metadata);
    writeApart(this, () => super.visitNode(node, textOnly, metadata));
  }

  override appendResult(s: string, startPos?: number, spaceIfRepeatingChar?: boolean): void {
    appendPiece(this, s, startPos, spaceIfRepeatingChar);
  }
}

/** What NHM's appendResult works on, kept as TailVisitor keeps it (its last characters aside). */
interface Output {
  result: { text: string; trailingNewlineStats: { whitespace: number; newLines: number } };
  tail: string | undefined;
  before: string | undefined;
  /**
   * Set by the writer whose output is its own until an element's markup is put around it
   * (SimpleBlockWriter): processText reads the character before a text there.
   */
  closesUrls?: boolean;
  /**
   * Set by a writer that closes a bare address its text ends with when the next piece is written
   * against it (closeOpenUrl). `pendingUrl` is the address the text processText just escaped ends
   * with, until that text is appended; `openUrl` the one the output ends with. NHM's translators
   * cut the output back to where their element began, which a rewrite before that place would
   * move: TailVisitor closes or forgets an open address as an element begins (visitNode), so that
   * a rewrite is always after the place of every element still open.
   */
  tracksUrls?: boolean;
  /**
   * An output longer than this gives up an open address rather than rewrite it: TailVisitor's
   * output is one string built by concatenation, and each rewrite copied all of it.
   */
  closesUrlsWithin?: number;
  pendingUrl?: UrlAtEnd | undefined;
  openUrl?: UrlAtEnd | undefined;
}

/**
 * A bare address that ends a text as written: `written` is its end of the output, the address at
 * `at` in it (0 but in an emphasis, where `written` is the whole emphasis); `plain` is what
 * replaces `written` where the emphases it closes cannot close once the address is (below).
 */
interface UrlAtEnd {
  url: string;
  written: string;
  at: number;
  plain?: string;
}

/** `written` with its address closed (closedUrl). */
const closedForm = (open: UrlAtEnd): string =>
  open.written.slice(0, open.at) + closedUrl(open.url) + open.written.slice(open.at + open.url.length);

/**
 * The open address at the output's end written so that the piece `s` after it stays out of it
 * (closedUrl). In TailVisitor's output only up to Output.closesUrlsWithin, and after the places
 * its translators keep (settleOpenUrl).
 */
function closeOpenUrl(out: Output, s: string): void {
  const open = out.openUrl!;
  const { result } = out;
  if (out.closesUrlsWithin !== undefined && result.text.length > out.closesUrlsWithin) {
    out.openUrl = undefined;
    return;
  }
  // Written apart (an element's content before its markup is put around it, a code span's
  // opening space after its backtick): the address is in the output that piece goes into, and
  // is closed when it does.
  if (!result.text.endsWith(open.written)) return;
  out.openUrl = undefined;
  // GFM ends the address before a space or "<", and leaves out the punctuation that ends a
  // sentence before a space ("*www.x.org*. Then"): written as it is, it ends where it says.
  const c = s.charCodeAt(0);
  if (isSpace(c) || c === 60 || TRAIL_THEN_SPACE.test(s)) return;
  // A closing delimiter after the closed address's ">" or ")" closes only before a space or a
  // punctuation mark: before a letter the emphases go, their words kept.
  const closing = open.plain !== undefined && !PUNCTUATION.test(s[0]!) ? open.plain : closedForm(open);
  result.text = result.text.slice(0, -open.written.length) + closing;
  if (result.text.length >= TAIL) out.tail = result.text.slice(-TAIL);
}
const PUNCTUATION = /[\p{P}\p{S}]/u;
const TRAIL_THEN_SPACE = /^[?!.,:*_~]+\s/;

/**
 * The address the content of an emphasis ends with (`open`), as the emphasis is written: open at
 * its end where only closing delimiters follow it; `plain` is the content, its address closed and
 * the emphases inside it dropped the same way.
 */
function emphasisedUrl(open: UrlAtEnd, content: string, written: string): UrlAtEnd | undefined {
  const from = written.lastIndexOf(open.written);
  if (from < 0 || !CLOSING_DELIMITERS.test(written.slice(from + open.written.length))) return undefined;
  const plain = content.endsWith(open.written)
    ? content.slice(0, content.length - open.written.length) + (open.plain ?? closedForm(open))
    : undefined;
  return { url: open.url, written, at: from + open.at, plain };
}
const CLOSING_DELIMITERS = /^[*_~]*$/;

/**
 * NHM's appendResult: the piece is added (the output first cut back to startPos, when given),
 * with a space between it and a repeated character where spaceIfRepeatingChar asks (repeated).
 */
function appendPiece(out: Output, s: string, startPos?: number, spaceIfRepeatingChar?: boolean): void {
  if (!s && startPos === undefined) return;
  const result = out.result;
  // Closed against the piece's first character as it will be written (repeated() may drop the
  // delimiters it opens with).
  if (out.openUrl && s && startPos === undefined)
    closeOpenUrl(out, spaceIfRepeatingChar && repeatsTail(out.tail ?? '', s) ? repeated(s) : s);
  let tail = out.tail ?? '';
  // An emphasis node-html-markdown's translator wrote (its postprocess, the only one with
  // spaceIfRepeatingChar but code's) around content that ends with an open address: the address
  // stays open past the delimiters, as SimpleBlockWriter.emphasised keeps it.
  const inner = startPos !== undefined && spaceIfRepeatingChar ? out.openUrl : undefined;
  const content = inner ? result.text.substr(startPos!) : '';
  if (startPos !== undefined) {
    result.text = result.text.substr(0, startPos);
    tail = ((out.before ?? '') + result.text).slice(-TAIL);
  }
  // "!" right before a link's "[" would make it an image ("stronger![8](#note-8)").
  // (The output's end read from its last characters: reading the output itself would flatten it.)
  if (s.charCodeAt(0) === 91 && result.text.length && tail.endsWith('!') && !escapedEnd(tail)) {
    result.text = `${result.text.slice(0, -1)}\\!`;
    tail = `${tail.slice(0, -1)}\\!`.slice(-TAIL);
  }
  const piece = spaceIfRepeatingChar && repeatsTail(tail, s) ? repeated(s) : s;
  result.text += piece;
  if (out.pendingUrl) {
    out.openUrl = out.pendingUrl;
    out.pendingUrl = undefined;
  }
  if (inner) out.openUrl = emphasisedUrl(inner, content, piece);
  out.tail = tail = piece.length >= TAIL ? piece.slice(-TAIL) : (tail + piece).slice(-TAIL);
  trailingWhitespace(tail, result.trailingNewlineStats);
}

/** Whether the piece opens with the character the output ends with (not an escaped one). */
const repeatsTail = (tail: string, s: string): boolean => tail.slice(-1) === s[0] && !escapedEnd(tail);

/** Whether the output ends with a "!" a link's "[" would make an image of. */
const endsInBang = (tail: string): boolean => tail.endsWith('!') && !escapedEnd(tail);

/**
 * Whether the output's last character is backslash-escaped ("\*"): an escaped "*" is no part of a
 * delimiter run, so emphasis may open right after it ("\**Note*", a footnote's star).
 */
function escapedEnd(tail: string): boolean {
  let slashes = 0;
  for (let i = tail.length - 2; i >= 0 && tail.charCodeAt(i) === 92; i--) slashes++;
  return slashes % 2 === 1;
}

/**
 * The open address at the output's end as an element begins: closed where the element's first
 * text would be written against it, forgotten where a space or a line break comes first.
 */
function settleOpenUrl(out: Output, el: MdElement): void {
  const element = el as unknown as ElementLike & { tagName: string };
  const tag = element.tagName.toLowerCase();
  // A link and a code span write their markup first, whatever their text opens with (a code
  // span's blocks break no line); an empty code element writes nothing.
  if (tag === 'a' && el.getAttribute('href')) closeOpenUrl(out, '[');
  else if (tag === 'code') {
    if (NOT_BLANK.test(el.textContent)) closeOpenUrl(out, '`');
  } else if (!breaksLine(tag) && !opensWithBreak(element)) {
    const text = firstText(el);
    if (!isSpace(text.charCodeAt(0))) closeOpenUrl(out, text || 'x');
  }
  // Closed, written apart from the output, or ending before a space or a line break: nothing
  // later closes it.
  out.openUrl = undefined;
}

/**
 * The first text the node holds that is not empty, where its textContent starts: read from there
 * alone (an element nested in the next one, each after an address, would read the rest of the
 * page for each).
 */
function firstText(el: MdElement): string {
  for (const child of el.childNodes) {
    if (child.nodeType === 3) {
      if (child.text) return child.text;
    } else if (child.nodeType === 1) {
      const text = firstText(child);
      if (text) return text;
    }
  }
  return '';
}

/** Has `write` write into an output of its own, then joins that to the output (TailVisitor.visitNode). */
function writeApart(out: Output, write: () => void): void {
  const result = out.result;
  const text = result.text;
  const before = out.before;
  out.before = out.tail ?? '';
  result.text = '';
  try {
    write();
  } finally {
    result.text = text + result.text;
    out.before = before;
  }
}

/**
 * A piece that would extend the delimiter the output ends with ("**trend**" then "*s*"). NHM
 * put a space between them, which split the word ("trend s"); emphasis delimiters are dropped
 * instead (two runs side by side are not read as two emphases), other pieces keep the space.
 */
function repeated(s: string): string {
  const run = /^(\*+|~+)/.exec(s)?.[1];
  if (run && s.length > 2 * run.length && s.endsWith(run)) return s.slice(run.length, -run.length);
  // Emphasis written as plain text (a lone "." or ")" in <em>) extends nothing: no space. A code
  // span's backticks would, and keep it.
  if (!DELIMITER_CHARS.has(s[0]!)) return s;
  return ` ${s}`;
}
const DELIMITER_CHARS = new Set(['*', '_', '~', '`']);

/** getTrailingWhitespaceInfo reads this many characters. */
const TAIL = 10;
/** An output this long has its next element written apart (TailVisitor; below it, a cut copies little). */
const WRITE_APART_FROM = 4096;

/** Where the output stands at the start of a line (after indentation, list and quote markers). */
const LINE_OPEN = /(?:^|\n)[ \t>]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)?$/;

/**
 * NHM's processText (private in its types, so set on the prototype): whitespace collapsed as
 * NHM does, then escaped only where CommonMark/GFM would read markup (escapeInline), line-start
 * markers only when the text opens a line of the output, and a pipe in a table cell.
 */
function processText(
  this: {
    tailText: string;
    result: { text: string };
    closesUrls?: boolean;
    tracksUrls?: boolean;
    pendingUrl?: UrlAtEnd | undefined;
  },
  text: string,
  metadata?: NodeMetadata,
  inLink = !!metadata?.translators && LINK_TEXT.has(metadata.translators),
): string {
  let res = metadata?.preserveWhitespace ? text : collapseSpaces(text);
  const tail = this.tailText;
  // NHM drops the leading space of a text that begins with a line break ("<a>x</a>\nand" gave
  // "[x](…)and"): one more is added where the output does not already end in whitespace.
  const keepSpace = !metadata?.preserveWhitespace && text.charCodeAt(0) === 10 && !endsInSpace(tail);
  // Whitespace between two pieces is one space, as a browser shows it: a text that opens with one
  // after output that ends in one drops it (a link's text ended with a space, written after it),
  // and so does one that opens a line (after a <br>: " White" on a line of its own).
  if (
    res.charCodeAt(0) === 32 &&
    !metadata?.noEscape &&
    !metadata?.preserveWhitespace &&
    (tail.endsWith(' ') || tail.endsWith('\n'))
  )
    res = res.slice(1);
  if (metadata?.noEscape) {
    // Inside code a pipe is the cell's end all the same (GFM splits the row first): escaped.
    const code = metadata.tableMeta && res.includes('|') ? res.replace(/\|/g, '\\|') : res;
    return keepSpace ? ` ${code}` : code;
  }
  // The character the output holds before the text, where it is already there: an element's
  // markup (a bold's stars, a link's bracket) is put around its content once that is written, so
  // before the element's first text it is not known yet. Asked of the paragraph and list writer
  // only (Output.closesUrls), whose output is its own until then; NHM's translators cut theirs.
  const before = this.closesUrls && this.result.text ? tail.slice(-1) || undefined : undefined;
  const written = escapeText(res, inLink, before);
  let escaped = written.escaped;
  // A collapsed text is one line: its start is the only line start.
  if (LINE_OPEN.test(tail))
    escaped = metadata?.preserveWhitespace ? escapeLineStarts(escaped) : escaped.replace(TEXT_START, escapeLineStart);
  if (metadata?.tableMeta) escaped = escaped.replace(/\|/g, '\\|');
  // Open once this text is in the output: the next piece appended decides (closeOpenUrl).
  if (this.tracksUrls) this.pendingUrl = written.open;
  return keepSpace ? ` ${escaped}` : escaped;
}
(TailVisitor.prototype as unknown as { processText: typeof processText }).processText = processText;

/** Runs of whitespace made one space, as text.replace(/\s+/g, ' ') does; most texts have none to collapse. */
const collapseSpaces = (text: string): string => (COLLAPSIBLE.test(text) ? text.replace(/\s+/g, ' ') : text);

/** The text without the plain spaces it ends with. */
const trimSpacesEnd = (s: string): string => {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 32) end--;
  return end === s.length ? s : s.slice(0, end);
};

/** NHM's getTrailingWhitespaceInfo: whitespace (\s) and line breaks among the last characters. */
function trailingWhitespace(tail: string, into: { whitespace: number; newLines: number }): void {
  let whitespace = 0;
  let newLines = 0;
  for (let i = tail.length - 1; i >= 0; i--) {
    const c = tail.charCodeAt(i);
    if (c === 10 || c === 13) newLines++;
    else if (!isSpace(c)) break;
    whitespace++;
  }
  // In place: the visitor reads the figures as they are, it keeps no earlier ones.
  into.whitespace = whitespace;
  into.newLines = newLines;
}

/** NHM's getMarkdownForHtmlNodes with TailVisitor (NHM_OPTIONS: inline links, no reference list). */
function renderTree(converter: NodeHtmlMarkdown, tree: MdElement): string {
  return finishedMarkdown(new TailVisitor(converter, tree as never).result.text);
}

/** What getMarkdownForHtmlNodes does to the visitor's output. */
function finishedMarkdown(text: string): string {
  const md = trimNewLines(enoughLineFeeds(text) ? text.replace(EXTRA_NEWLINES, '$1') : text);
  return md.endsWith(' ') && !md.endsWith('  ') ? md.trimEnd() : md;
}

/**
 * Whether `text` holds as many line feeds as EXTRA_NEWLINES needs (one more than the most it
 * keeps in a row): a block of one paragraph has none, and is not read again for them.
 */
const enoughLineFeeds = (text: string): boolean => {
  let at = -1;
  for (let n = 0; n <= NHM_OPTIONS.maxConsecutiveNewlines!; n++)
    if ((at = text.indexOf('\n', at + 1)) < 0) return false;
  return true;
};

/**
 * NHM's trimNewLines (text.replace(/^\n+|\n+$/g, '')): line feeds at either end dropped, read
 * from the ends; the expression was tried at every line feed of the text.
 */
const trimNewLines = (s: string): string => {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) === 10) start++;
  while (end > start && s.charCodeAt(end - 1) === 10) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
};

const EXTRA_NEWLINES = new RegExp(String.raw`(?:\r?\n\s*)+((?:\r?\n\s*){${NHM_OPTIONS.maxConsecutiveNewlines}})`, 'g');

// A fast path for the most common blocks. NHM's visitor is generic: per element it looks up a
// translator by name, builds a context object, merges configurations and copies the child list,
// and per block it sets itself up (a map, two reads of process.env); on a paragraph of text with
// a few links that costs more than the writing. A block that is one paragraph or heading, or one
// list whose items are, holding only text and the inline elements below, is written here
// instead, step for step as NHM's visitor writes it with our translators and options (the same
// pieces through the same appendResult, escaping and postprocessing); any other block goes to
// NHM.

/** How the fast path writes an element, by its tag name as the block's tree reports it. */
const enum Simple {
  Paragraph,
  Heading,
  List,
  Item,
  Link,
  Emphasis,
  Break,
  Image,
  Code,
  /** No translator: its content is written as it is. */
  Plain,
  /** Ignored by NHM, and empty (NHM never visits it). */
  Skipped,
}

const SIMPLE = new Map<string, Simple>([
  ['P', Simple.Paragraph],
  ['UL', Simple.List],
  ['OL', Simple.List],
  ['LI', Simple.Item],
  ...['H1', 'H2', 'H3', 'H4', 'H5', 'H6'].map((h) => [h, Simple.Heading] as const),
  ['A', Simple.Link],
  ...['STRONG', 'B', 'EM', 'I', 'DEL', 'S', 'STRIKE'].map((e) => [e, Simple.Emphasis] as const),
  ['BR', Simple.Break],
  ['IMG', Simple.Image],
  ['CODE', Simple.Code],
  ...['SUB', 'SUP', 'U', 'CITE', 'Q', 'KBD', 'VAR', 'INS', 'DFN', 'SAMP', 'TT'].map((t) => [t, Simple.Plain] as const),
  ['WBR', Simple.Skipped],
]);
const DELIMITER: Record<string, string> = { STRONG: '**', B: '**', EM: '*', I: '*', DEL: '~~', S: '~~', STRIKE: '~~' };

/** The metadata NHM's visitor carries inside inline code (the code translator's noEscape). */
const IN_CODE: NodeMetadata = { noEscape: true };

/**
 * The block's markdown as renderTree writes it, when the block is one paragraph, heading or list
 * of text and simple inline elements; null for any other block.
 */
export function simpleBlockMarkdown(tree: MdElement, keepDataImages: boolean): string | null {
  const block = tree.childNodes.length === 1 ? tree.childNodes[0]! : undefined;
  if (block?.nodeType !== 1) return null;
  const kind = SIMPLE.get(block.tagName);
  if (kind !== Simple.Paragraph && kind !== Simple.Heading && kind !== Simple.List) return null;
  const worth = kind === Simple.List ? markItems(block) : markChildren(block, false, false);
  if (worth === NOT_SIMPLE) return null;
  // Nothing worth visiting: NHM writes nothing, or cuts back what it wrote (an empty heading), or
  // only line breaks (an empty list).
  if (!worth) return '';
  const writer = new SimpleBlockWriter(keepDataImages);
  if (kind === Simple.Paragraph) writer.paragraph(block);
  else if (kind === Simple.Heading) writer.heading(block);
  else writer.list(block);
  return finishedMarkdown(writer.written());
}

const NOT_SIMPLE = -1;

/**
 * markChildren for the items of a list: 1 when one of them is worth visiting (an item is even
 * empty: its translator is a function). NOT_SIMPLE for anything but items holding the inline
 * elements and blank text between them.
 */
function markItems(list: MdElement): number {
  let worth = 0;
  for (const item of list.childNodes) {
    if (item.nodeType === 3) {
      if (NOT_BLANK.test(item.text)) return NOT_SIMPLE;
      item.preserve = true;
      continue;
    }
    if (SIMPLE.get(item.tagName) !== Simple.Item) return NOT_SIMPLE;
    const children = markChildren(item, false, false);
    if (children === NOT_SIMPLE) return NOT_SIMPLE;
    item.preserve = children === 1 || !item.childNodes.length;
    if (item.preserve) worth = 1;
  }
  return worth;
}

/**
 * Whether a node is worth visiting (1) or not (0), set on it as NHM's optimizeTree sets
 * `preserve`: text, and elements holding some, or a <br> or <img>, or that NHM visits even empty
 * (a link or inline code: their translators are functions). NOT_SIMPLE for a subtree the fast
 * path does not write: another element, a link in a link, code in code or a link in code.
 */
function markWorthVisiting(node: MdNode, inLink: boolean, inCode: boolean): number {
  if (node.nodeType === 3) return +(node.preserve = true);
  const kind = SIMPLE.get(node.tagName);
  if (kind === undefined || kind <= Simple.Item) return NOT_SIMPLE; // blocks and lists
  if (kind === Simple.Link && (inLink || inCode)) return NOT_SIMPLE;
  if (kind === Simple.Code && inCode) return NOT_SIMPLE;
  const children = markChildren(node, inLink || kind === Simple.Link, inCode || kind === Simple.Code);
  if (children === NOT_SIMPLE) return NOT_SIMPLE;
  let worth = children === 1 || kind === Simple.Break || kind === Simple.Image;
  if (!node.childNodes.length) worth ||= kind === Simple.Link || kind === Simple.Code;
  return +(node.preserve = worth);
}

/** markWorthVisiting over an element's children: 1 when one of them is worth visiting. */
function markChildren(node: MdElement, inLink: boolean, inCode: boolean): number {
  let worth = 0;
  for (const child of node.childNodes) {
    const childWorth = markWorthVisiting(child, inLink, inCode);
    if (childWorth === NOT_SIMPLE) return NOT_SIMPLE;
    worth |= childWorth;
  }
  return worth;
}

/**
 * NHM's visitor for the elements of SIMPLE. Inside a link NHM uses its link translators, where
 * a <br> is a plain line break and <code> has no translator (it is written as plain text).
 */
class SimpleBlockWriter implements Output {
  readonly result = { text: '', trailingNewlineStats: { whitespace: 0, newLines: 0 } };
  tail: string | undefined = undefined;
  /** Nothing here cuts the output back to a place in it (see chunks), which is what this is for. */
  readonly before = undefined;
  readonly closesUrls = true;
  readonly tracksUrls = true;
  pendingUrl: UrlAtEnd | undefined = undefined;
  openUrl: UrlAtEnd | undefined = undefined;
  /**
   * What the output holds before result.text, in pieces: result.text is kept short so that what
   * reads it (a link's "!" check, its cut) reads a few kilobytes, not the whole block. Read at
   * once, by written(). Nothing here holds a place in the output to cut back to: an element that
   * rewrites what its children wrote has them write apart (apart()).
   */
  private chunks: string[] = [];
  /** The delimiters whose emphases are written as their words alone (emphasised). */
  private readonly openEmphases = new Set<string>();
  /** How many emphases of each delimiter are being written around what is written now. */
  private readonly emphasisDepth = new Map<string, number>();

  constructor(private readonly keepDataImages: boolean) {}

  get tailText(): string {
    return this.tail ?? '';
  }

  /** Everything written. */
  written(): string {
    return this.chunks.length ? this.chunks.join('') + this.result.text : this.result.text;
  }

  paragraph(node: MdElement): void {
    this.newlines(2);
    this.children(node, false, undefined);
    this.newlines(2);
  }

  heading(node: MdElement): void {
    let opening = '';
    let line: string | PostProcessResult = PostProcessResult.RemoveNode;
    this.apart(() => {
      this.newlines(2);
      this.append(`${'#'.repeat(+node.tagName.charAt(1))} `);
      opening = this.written();
      line = headingText({ content: this.apart(() => this.children(node, false, undefined)) });
    });
    if (line === PostProcessResult.RemoveNode) return;
    this.append(opening);
    this.append(line as string);
    this.newlines(2);
  }

  /** NHM's list translator, its items' (ours) and its numbering. */
  list(node: MdElement): void {
    const ordered = node.tagName === 'OL';
    let number = 0;
    this.newlines(1);
    for (const child of node.childNodes) {
      if (!child.preserve) continue;
      if (child.nodeType === 3) this.text(child.text, false, undefined);
      else if (!this.item(child as MdElement, ordered ? `${++number}. ` : '- ') && ordered) number--;
    }
    this.newlines(1);
  }

  /** Whether the item was written (NHM's postprocess removes a blank one). */
  private item(node: MdElement, marker: string): boolean {
    let opening = '';
    let content: string | PostProcessResult = PostProcessResult.RemoveNode;
    this.apart(() => {
      this.newlines(1);
      this.append(marker);
      opening = this.written();
      content = listItemText(marker.length)({ content: this.apart(() => this.children(node, false, undefined)) });
    });
    if (content === PostProcessResult.RemoveNode) return false;
    this.append(opening);
    this.append(content as string);
    this.newlines(1);
    return true;
  }

  /**
   * Runs `write` into an output of its own and answers what it wrote; the output is then as it
   * was before. What is written apart sees the output's last characters as if it followed them.
   */
  private apart(write: () => void): string {
    const result = this.result;
    const { text } = result;
    const { whitespace, newLines } = result.trailingNewlineStats;
    const { chunks, tail } = this;
    this.chunks = [];
    result.text = '';
    try {
      write();
      return this.written();
    } finally {
      result.text = text;
      result.trailingNewlineStats.whitespace = whitespace;
      result.trailingNewlineStats.newLines = newLines;
      this.chunks = chunks;
      this.tail = tail;
    }
  }

  private visit(node: MdNode, inLink: boolean, metadata: NodeMetadata | undefined): void {
    if (!node.preserve) return;
    if (node.nodeType === 3) return this.text(node.text, inLink, metadata);
    switch (SIMPLE.get(node.tagName)) {
      case Simple.Link:
        return this.link(node);
      case Simple.Emphasis:
        return this.emphasised(node, inLink, metadata);
      case Simple.Break:
        return this.append(inLink ? '\n' : '  \n');
      case Simple.Image: {
        if (metadata?.noEscape) return;
        const image = imageMarkdown(node as unknown as ElementLike, this.keepDataImages);
        return image === null ? undefined : this.append(image);
      }
      case Simple.Code:
        return this.inlineCode(node);
      default:
        return this.children(node, inLink, metadata);
    }
  }

  private children(node: MdElement, inLink: boolean, metadata: NodeMetadata | undefined): void {
    for (const child of node.childNodes) this.visit(child, inLink, metadata);
  }

  /** NHM's visit of a text node. */
  private text(text: string, inLink: boolean, metadata: NodeMetadata | undefined): void {
    if (!NOT_BLANK.test(text)) {
      // Anything written (here or before an element written apart) leaves its last characters.
      if (this.tail && !this.result.trailingNewlineStats.whitespace) this.append(' ');
      return;
    }
    let processed = processText.call(this, text, metadata, inLink);
    if (processed) {
      if (text.charCodeAt(0) === 10) processed = processed.replace(/^ /, '');
      // NHM's /\s$/ test and / +$/ replace, without trying the expressions at every space.
      if (!isSpace(text.charCodeAt(text.length - 1))) processed = trimSpacesEnd(processed);
    }
    this.append(processed);
  }

  /** NHM_TRANSLATORS.a with NHM_OPTIONS (inline links, no reference definitions). */
  private link(node: MdElement): void {
    const href = node.getAttribute('href');
    if (!href) return this.children(node, false, undefined);
    const text = node.textContent;
    if (!NOT_BLANK.test(text) && !hasImage(node as unknown as ElementLike))
      return text && !endsInSpace(this.tailText) ? this.append(' ') : undefined;
    const encoded = markdownUrl(href);
    if (text === href && AUTOLINK.test(encoded)) return this.append(`<${encoded}>`);
    this.append(spaceBeforeLink(node as unknown as ElementLike, text, this.tailText) ? ' [' : '[');
    const content = this.apart(() => this.children(node, true, undefined));
    this.append(
      linkMarkdown(
        content,
        `](${encoded}${markdownTitle(node.getAttribute('title'))})`,
        node as unknown as ElementLike,
      ),
    );
  }

  private emphasised(node: MdElement, inLink: boolean, metadata: NodeMetadata | undefined): void {
    const delimiter = DELIMITER[node.tagName]!;
    // Inside an emphasis written with the same delimiters (below): its words, as they are.
    if (this.openEmphases.has(delimiter)) return this.children(node, inLink, metadata);
    // An address the output ends with stays open for the emphasis to close; one the content ends
    // with is told apart from it.
    const outer = this.openUrl;
    const outermost = !this.emphasisDepth.get(delimiter);
    let content = this.apartInEmphasis(delimiter, () => this.children(node, inLink, metadata));
    let inner = this.openUrl !== outer ? this.openUrl : undefined;
    this.openUrl = outer;
    let written = metadata?.noEscape ? content : emphasis(content, delimiter);
    // Bold inside bold is bold: its delimiters would close the outer one's instead
    // ("**one**two**three**" showed "two" plain, and paired a star written as text), or keep it
    // from being written ("**QUESTION 2: H**ow…?"). The content is written again without them,
    // and kept so where the outer emphasis can be written around it. Only the outermost emphasis
    // of its delimiters does (at most three levels, one a delimiter): every level doing it wrote
    // a page of nested <b> and <i> in time that grew with the square of its depth, or faster.
    if (
      outermost &&
      !metadata?.noEscape &&
      written !== PostProcessResult.RemoveNode &&
      content.includes(delimiter) &&
      holdsEmphasis(node, delimiter)
    ) {
      this.openEmphases.add(delimiter);
      try {
        const plain = this.apartInEmphasis(delimiter, () => this.children(node, inLink, metadata));
        const again = emphasis(plain, delimiter);
        if (wraps(again, plain)) {
          [content, written] = [plain, again];
          inner = this.openUrl !== outer ? this.openUrl : undefined;
        }
      } finally {
        this.openEmphases.delete(delimiter);
        this.openUrl = outer;
      }
    }
    if (written === PostProcessResult.RemoveNode) return;
    this.append(written as string, true);
    // GFM trims the closing delimiter off an address only before a space: glued to what follows
    // ("~~…/a_b~~next"), the address runs on through it. It is open until that piece is written.
    if (inner) this.openUrl = emphasisedUrl(inner, content, written as string);
  }

  /** apart(), counted as the content of an emphasis with these delimiters (emphasisDepth). */
  private apartInEmphasis(delimiter: string, write: () => void): string {
    const depth = this.emphasisDepth.get(delimiter) ?? 0;
    this.emphasisDepth.set(delimiter, depth + 1);
    try {
      return this.apart(write);
    } finally {
      this.emphasisDepth.set(delimiter, depth);
    }
  }

  /** NHM's translator of inline code: a delimiter longer than any run of backticks inside. */
  private inlineCode(node: MdElement): void {
    this.append(codeSpan(this.apart(() => this.children(node, false, IN_CODE))), true);
  }

  private newlines(count: number): void {
    this.append('\n'.repeat(Math.max(0, count - this.result.trailingNewlineStats.newLines)));
  }

  private append(s: string, spaceIfRepeatingChar?: boolean): void {
    appendPiece(this, s, undefined, spaceIfRepeatingChar);
    const { text } = this.result;
    // Its last characters stay: a "!" before a link is escaped where it stands.
    if (text.length >= CHUNK_CHARS) {
      this.chunks.push(text.slice(0, -TAIL));
      this.result.text = text.slice(-TAIL);
    }
  }
}

/** SimpleBlockWriter's output is set aside in pieces of about this many characters. */
const CHUNK_CHARS = 4096;

/** The same as blocksToMarkdown, from each block's HTML through translate() (the reference). */
export function htmlBlocksToMarkdown(blocks: string[], keepDataImages: boolean): string {
  const converter = converterFor(keepDataImages);
  const parts: string[] = [];
  for (const block of blocks) {
    const md = translate(converter, block).trim();
    if (md) parts.push(md);
  }
  return tidyMarkdown(parts.join('\n\n'));
}

/**
 * Drops links with no text, trailing spaces and runs of blank lines NHM leaves behind, and runs
 * of spaces beside a table's pipes and of dashes in its delimiter row (tableText writes
 * neither; this keeps any other table's the same).
 */
export function tidyMarkdown(md: string): string {
  // Each step runs only where the markdown can hold what it mends: on a page of prose the
  // expressions themselves found nothing, but tried at every position (~0.1 ms on a crawled page).
  if (md.includes('|')) {
    md = md
      .replace(/^\|.*\|$/gm, (row) => row.replace(/ {2,}\|/g, ' |').replace(/\| {2,}/g, '| '))
      .replace(/^\|(?:\s*:?-+:?\s*\|)+$/gm, (rule) => rule.replace(/-{4,}/g, '---'));
  }
  // An opening bracket after an odd run of backslashes is text ("\[" ending an image's alt,
  // before its "](src)"), not a link's.
  if (EMPTY_LINK_TEXT.test(md)) md = md.replace(/(^|[^!\]\\])((?:\\\\)*)\[\s*\]\([^)]*\)/g, '$1$2');
  return unescapeInlineLineMarkers(
    unescapeLiteralTildes(unescapeLiteralUnderscores(unescapeLiteralStars(unescapeLiteralBrackets(trimLineEnds(md))))),
  )
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** What every empty link holds; it opens with a literal, so a page without one is read in one scan. */
const EMPTY_LINK_TEXT = /\[\s*\]\(/;

/**
 * md.replace(/[ \t]+$/gm, ''): spaces and tabs at the end of each line dropped. Markdown has few
 * lines and long ones, so each is read from its end; a line ended by a character other than \n
 * (\r, U+2028, U+2029: rare here) sends the whole text to the expression.
 */
export function trimLineEnds(md: string): string {
  if (md.includes('\r') || md.includes('\u2028') || md.includes('\u2029')) return md.replace(/[ \t]+$/gm, '');
  // Cut into lines once: each line is then read from its end, never the whole text again.
  const lines = md.split('\n');
  let changed = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let cut = line.length;
    for (let c = line.charCodeAt(cut - 1); cut > 0 && (c === 32 || c === 9); c = line.charCodeAt(--cut - 1));
    if (cut < line.length) {
      lines[i] = line.slice(0, cut);
      changed = true;
    }
  }
  return changed ? lines.join('\n') : md;
}
