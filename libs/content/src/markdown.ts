import {
  NodeHtmlMarkdown,
  PostProcessResult,
  type NodeHtmlMarkdownOptions,
  type TranslatorConfig,
  type TranslatorConfigFactory,
  type TranslatorConfigObject,
} from 'node-html-markdown';
import { parseHTML, trimNewLines } from 'node-html-markdown/dist/utilities.js';
import { Visitor, type NodeMetadata } from 'node-html-markdown/dist/visitor.js';
import { blockHtml, type ContentBlock } from './compact-html.js';
import { blockTree, type MdElement } from './markdown-tree.js';
import { COLLAPSIBLE, isSpace } from './text.js';
import type { UrlResolver } from './urls.js';

export const NHM_OPTIONS: Partial<NodeHtmlMarkdownOptions> = {
  codeBlockStyle: 'fenced',
  bulletMarker: '-',
  // Four spaces nest a list under both "- " and "10. " items; NHM's two fall short of "1. ".
  indent: '    ',
  maxConsecutiveNewlines: 2,
  useInlineLinks: true,
  useLinkReferenceDefinitions: false,
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
    case '*':
    case '_': {
      // A delimiter run is judged by what stands on either side of it: with whitespace on both
      // sides it can neither open nor close emphasis, and an underscore run inside a word
      // (snake_case identifiers) neither.
      let start = i;
      while (s[start - 1] === c) start--;
      let end = i + 1;
      while (s[end] === c) end++;
      const before = s[start - 1];
      const after = s[end];
      if (before !== undefined && after !== undefined) {
        if (WHITE.test(before) && WHITE.test(after)) return c;
        if (c === '_' && ALNUM.test(before) && ALNUM.test(after)) return c;
      }
      return `\\${c}`;
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

/** Markers a line may open with: list items, headings, quotes, rules, setext underlines. */
const LINE_START =
  /^([ \t]*)(?:([-+*])(?=[ \t]|$)|(#{1,6})(?=[ \t]|$)|(>)|(\d{1,9})([.)])(?=[ \t]|$)|([-=_*])(?=(?:[ \t]*\7){2,}[ \t]*$|\7*[ \t]*$))/gm;

function escapeLineStart(
  m: string,
  indent: string,
  bullet?: string,
  hashes?: string,
  quote?: string,
  digits?: string,
  delimiter?: string,
  rule?: string,
): string {
  if (bullet) return `${indent}\\${bullet}`;
  if (hashes) return `${indent}\\${hashes}`;
  if (quote) return `${indent}\\>`;
  if (digits) return `${indent}${digits}\\${delimiter}`;
  if (rule) return `${indent}\\${rule}`;
  return m;
}

/** Text escaped for markdown: the characters CommonMark and GFM would otherwise read as markup. */
export function escapeInline(text: string): string {
  const tildes = text.includes('~') && mayStrike(text);
  return text.replace(INLINE_SPECIAL, (c, i: number, s: string) =>
    c === '~' ? (tildes ? '\\~' : c) : escapeInlineChar(c, i, s),
  );
}

/**
 * Whether GFM could read a strikethrough in the text: a run of tildes that can open (text
 * follows it) before one that can close (text precedes it). "~120 ms to ~15 ms" cannot.
 */
function mayStrike(text: string): boolean {
  let opener = false;
  for (const m of text.matchAll(/~+/g)) {
    const before = text[m.index - 1];
    const after = text[m.index + m[0].length];
    if (opener && before !== undefined && !WHITE.test(before)) return true;
    if (after === undefined || !WHITE.test(after)) opener = true;
  }
  return false;
}

/** Plain text (paragraphs, lines) as markdown that renders back to the same text. */
export function escapeMarkdownText(text: string): string {
  return escapeInline(text).replace(LINE_START, escapeLineStart);
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
/** Alt text: one line, brackets and backslashes escaped. */
const altText = (alt: string): string =>
  alt
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[[\]\\`]/g, '\\$&');

/** Images keep their alt text; their URL is made a valid destination (srcset junk has spaces). */
const IMAGE: TranslatorConfigFactory = ({ node, options }) => {
  const src = node.getAttribute('src') || '';
  if (!src.trim() || (!options.keepDataImages && /^data:/i.test(src))) return { ignore: true };
  return {
    content: `![${altText(node.getAttribute('alt') || '')}](${markdownUrl(src)}${markdownTitle(node.getAttribute('title'))})`,
    recurse: false,
  };
};

/** What a code block is written in, from the class of its <pre> (cleaning puts it there) or <code>. */
const LANGUAGE = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/;

/**
 * A <pre> is a fenced code block whatever it holds (NHM fenced only a <pre> around a single
 * <code>, and wrote any other as text, its line breaks lost), with its language, and a fence
 * longer than any run of backticks inside it.
 */
function codeBlock(node: ElementLike): TranslatorConfig {
  const code = node.childNodes.find((c) => c.nodeType === 1) as ElementLike | undefined;
  const language =
    LANGUAGE.exec(node.getAttribute('class') ?? '')?.[1] ?? LANGUAGE.exec(code?.getAttribute('class') ?? '')?.[1] ?? '';
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

/** Whether an element holds an image (a link around a picture is not empty). */
function hasImage(node: ElementLike): boolean {
  for (const c of node.childNodes) {
    if (c.nodeType !== 1) continue;
    if ((c as unknown as { tagName: string }).tagName === 'IMG' || hasImage(c)) return true;
  }
  return false;
}

const CELL_BLOCKS = 'p,div,li,dt,dd,h1,h2,h3,h4,h5,h6,blockquote,section,figcaption';

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
  a: ({ node, options, visitor }) => {
    const href = node.getAttribute('href');
    if (!href) return {};
    // A link that shows nothing but an icon (share buttons, social links) is not written: an
    // empty link is noise to a model. Blank text inside it still separates words.
    const text = node.textContent;
    if (!NOT_BLANK.test(text) && !hasImage(node as unknown as ElementLike)) {
      return text ? { content: ' ' } : { ignore: true };
    }
    const encoded = markdownUrl(href);
    if (node.textContent === href && options.useInlineLinks && /^[a-z][a-z0-9+.-]*:/i.test(encoded)) {
      return { content: `<${encoded}>` };
    }
    return {
      postprocess: linkText,
      childTranslators: visitor.instance.aTagTranslators,
      prefix: '[',
      postfix:
        ']' +
        (options.useLinkReferenceDefinitions
          ? `[${visitor.addOrGetUrlDefinition(encoded)}]`
          : `(${encoded}${markdownTitle(node.getAttribute('title'))})`),
    };
  },
  img: IMAGE,
  pre: ({ node }) => codeBlock(node as unknown as ElementLike),
  'strong,b': { spaceIfRepeatingChar: true, postprocess: ({ content }) => emphasis(content, '**') },
  'em,i': { spaceIfRepeatingChar: true, postprocess: ({ content }) => emphasis(content, '*') },
  'del,s,strike': { spaceIfRepeatingChar: true, postprocess: ({ content }) => emphasis(content, '~~') },
  'h1,h2,h3,h4,h5,h6': ({ node }) => ({ prefix: `${'#'.repeat(+node.tagName.charAt(1))} `, postprocess: headingText }),
  li: ({ options: { bulletMarker, indent }, indentLevel, listKind, listItemNumber }) => {
    const level = +(indentLevel || 0);
    const marker = listKind === 'OL' && listItemNumber !== undefined ? `${listItemNumber}. ` : `${bulletMarker} `;
    return {
      prefix: indent!.repeat(level) + marker,
      surroundingNewlines: 1,
      postprocess: listItemText(indent!, level),
    };
  },
};

// The translators' functions are made once, not per element: besides the allocation, a
// toolchain that keeps function names (esbuild's keepNames) names each new one at run time.
const linkText = ({ content }: { content: string }): string => content.replace(/\s*(?:\r?\n)+\s*/g, ' ');

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

/** A heading is one line (a <br> or a block inside it would end it); an empty one goes. */
function headingText({ content }: { content: string }): string | PostProcessResult {
  const line = content.replace(/\s*(?:\r?\n)+\s*/g, ' ').trim();
  return line ? line : PostProcessResult.RemoveNode;
}

type ListItemText = (ctx: { content: string }) => string | PostProcessResult;
const listItemTexts = new Map<string, ListItemText[]>();

/** The list item's postprocess for one indent and nesting level. */
function listItemText(indent: string, level: number): ListItemText {
  let byLevel = listItemTexts.get(indent);
  if (!byLevel) listItemTexts.set(indent, (byLevel = []));
  return (byLevel[level] ??= ({ content }) =>
    !NOT_BLANK.test(content)
      ? PostProcessResult.RemoveNode
      : content
          .trim()
          .replace(/([^\r\n])(?:\r?\n)+(?!\s*[-*+]|\s*\d+\.|\s*\|)/g, `$1  \n${indent.repeat(level)}`)
          .replace(/(\S)[^\S\r\n]+$/gm, '$1  '));
}

// Translators are built once per option set; building them per page would cost more than a
// small page's whole conversion.
let withoutDataImages: NodeHtmlMarkdown | undefined;
let withDataImages: NodeHtmlMarkdown | undefined;

const converterFor = (keepDataImages: boolean) =>
  keepDataImages ? (withDataImages ??= makeConverter(true)) : (withoutDataImages ??= makeConverter(false));

/** NHM with our translators, also where NHM uses its own collections (in links and tables). */
function makeConverter(keepDataImages: boolean): NodeHtmlMarkdown {
  const converter = new NodeHtmlMarkdown({ ...NHM_OPTIONS, keepDataImages }, NHM_TRANSLATORS);
  converter.aTagTranslators.set('img', IMAGE);
  // Blocks inside a link (a teaser card's title and summary) are words apart, not run together.
  converter.aTagTranslators.set(CELL_BLOCKS, { postfix: ' ' });
  for (const collection of [converter.aTagTranslators, converter.tableCellTranslators]) {
    collection.set('strong,b', NHM_TRANSLATORS['strong,b']!);
    collection.set('em,i', NHM_TRANSLATORS['em,i']!);
    collection.set('del,s,strike', NHM_TRANSLATORS['del,s,strike']!);
  }
  converter.tableCellTranslators.set('img', IMAGE);
  converter.tableCellTranslators.set('a', NHM_TRANSLATORS.a!);
  converter.tableTranslators.set('th,td', TABLE_CELL);
  converter.tableRowTranslators.set('th,td', TABLE_CELL);
  // Inside a cell, line breaks and blocks are spaces (NHM wrote "two<p>lines" as "twolines").
  converter.tableCellTranslators.set('br', { content: ' ', recurse: false });
  converter.tableCellTranslators.set(CELL_BLOCKS, { postfix: ' ' });
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
    const md = (tree ? renderTree(converter, tree) : translate(converter, blockHtml(block, resolve))).trim();
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
class TailVisitor extends Visitor {
  /** The last characters of the output (no initialiser: the base constructor does the visit). */
  declare private tail: string | undefined;
  /** While an item is written on its own (visitNode): the last characters of what came before. */
  declare private before: string | undefined;

  get tailText(): string {
    return this.tail ?? '';
  }

  /**
   * A list item or table row is written into an output of its own, then joined to what came
   * before. NHM's item and cell translators rewrite what they wrote (a postprocess reads the
   * output from the element's start and cuts it back there), and each cut flattens the string it
   * cuts: on one output, a copy of everything so far per item or cell (2.4 s for a list of
   * 20,000 items, 7 s for a table of 20,000 rows); on the item's or row's own, a copy of it.
   */
  override visitNode(node: Parameters<Visitor['visitNode']>[0], textOnly?: boolean, metadata?: NodeMetadata): void {
    if (!WRITTEN_APART.has((node as { tagName?: string }).tagName ?? '') || this.result.text.length < ITEM_APART_FROM)
      return super.visitNode(node, textOnly, metadata);
    const result = this.result;
    const text = result.text;
    const before = this.before;
    this.before = this.tail ?? '';
    result.text = '';
    try {
      super.visitNode(node, textOnly, metadata);
    } finally {
      result.text = text + result.text;
      this.before = before;
    }
  }

  override appendResult(s: string, startPos?: number, spaceIfRepeatingChar?: boolean): void {
    if (!s && startPos === undefined) return;
    const result = this.result;
    let tail = this.tail ?? '';
    if (startPos !== undefined) {
      result.text = result.text.substr(0, startPos);
      tail = ((this.before ?? '') + result.text).slice(-TAIL);
    }
    const piece = spaceIfRepeatingChar && tail.slice(-1) === s[0] ? repeated(s) : s;
    result.text += piece;
    this.tail = tail = piece.length >= TAIL ? piece.slice(-TAIL) : (tail + piece).slice(-TAIL);
    trailingWhitespace(tail, result.trailingNewlineStats);
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
  return ` ${s}`;
}

/** getTrailingWhitespaceInfo reads this many characters. */
const TAIL = 10;
/** An output this long has its next list item or table row written apart (below it, a cut copies little). */
const ITEM_APART_FROM = 4096;
const WRITTEN_APART = new Set(['LI', 'TR']);

/** Where the output stands at the start of a line (after indentation, list and quote markers). */
const LINE_OPEN = /(?:^|\n)[ \t>]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)?$/;

/**
 * NHM's processText (private in its types, so set on the prototype): whitespace collapsed as
 * NHM does, then escaped only where CommonMark/GFM would read markup (escapeInline), line-start
 * markers only when the text opens a line of the output, and a pipe in a table cell.
 */
function processText(this: TailVisitor, text: string, metadata?: NodeMetadata): string {
  const res = metadata?.preserveWhitespace ? text : collapseSpaces(text);
  const tail = this.tailText;
  // NHM drops the leading space of a text that begins with a line break ("<a>x</a>\nand" gave
  // "[x](…)and"): one more is added where the output does not already end in whitespace.
  const keepSpace =
    !metadata?.preserveWhitespace &&
    text.charCodeAt(0) === 10 &&
    tail !== '' &&
    !isSpace(tail.charCodeAt(tail.length - 1));
  if (metadata?.noEscape) return keepSpace ? ` ${res}` : res;
  let escaped = escapeInline(res);
  if (LINE_OPEN.test(tail)) escaped = escaped.replace(LINE_START, escapeLineStart);
  if (metadata?.tableMeta) escaped = escaped.replace(/\|/g, '\\|');
  return keepSpace ? ` ${escaped}` : escaped;
}
(TailVisitor.prototype as unknown as { processText: typeof processText }).processText = processText;

/** Runs of whitespace made one space, as text.replace(/\s+/g, ' ') does; most texts have none to collapse. */
const collapseSpaces = (text: string): string => (COLLAPSIBLE.test(text) ? text.replace(/\s+/g, ' ') : text);

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
  let md = new TailVisitor(converter, tree as never).result.text;
  md = md.replace(EXTRA_NEWLINES, '$1');
  md = trimNewLines(md);
  return md.endsWith(' ') && !md.endsWith('  ') ? md.trimEnd() : md;
}

const EXTRA_NEWLINES = new RegExp(String.raw`(?:\r?\n\s*)+((?:\r?\n\s*){${NHM_OPTIONS.maxConsecutiveNewlines}})`, 'g');

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
 * Drops links with no text, trailing spaces and runs of blank lines NHM leaves behind, and
 * the padding NHM adds to align table columns (one long cell pads every row by kilobytes).
 */
export function tidyMarkdown(md: string): string {
  return md
    .replace(/^\|.*\|$/gm, (row) => row.replace(/ {2,}\|/g, ' |').replace(/\| {2,}/g, '| '))
    .replace(/^\|(?:\s*:?-+:?\s*\|)+$/gm, (rule) => rule.replace(/-{4,}/g, '---'))
    .replace(/(^|[^!\]])\[\s*\]\([^)]*\)/g, '$1')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
