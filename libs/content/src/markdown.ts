import {
  NodeHtmlMarkdown,
  PostProcessResult,
  type NodeHtmlMarkdownOptions,
  type TranslatorConfigObject,
} from 'node-html-markdown';
import { trimNewLines } from 'node-html-markdown/dist/utilities.js';
import { Visitor } from 'node-html-markdown/dist/visitor.js';
import { blockHtml, type ContentBlock } from './compact-html.js';
import { blockTree, type MdElement } from './markdown-tree.js';
import { isSpace } from './text.js';
import type { UrlResolver } from './urls.js';

export const NHM_OPTIONS: Partial<NodeHtmlMarkdownOptions> = {
  codeBlockStyle: 'fenced',
  bulletMarker: '-',
  // Four spaces nest a list under both "- " and "10. " items; NHM's two fall short of "1. ".
  indent: '    ',
  maxConsecutiveNewlines: 2,
  useInlineLinks: true,
  useLinkReferenceDefinitions: false,
  // NHM's default escapes "2022. " anywhere in a line (its number branch lacks the ^ anchor);
  // only a line that would otherwise start a list or heading needs it.
  lineStartEscape: [/^(\s*?)((?:\+\s)|(?:[=>-])|(?:#{1,6}\s))|^(\s*?)(\d+)(\.\s)/gm, '$1$3$4\\$2$5'],
};

const NOT_BLANK = /\S/;

/** What NHM escapes in a link's URL: characters markdown would read. */
const HREF_SPECIALS = /[()_*]/g;
const HREF_ESCAPES: Record<string, string> = { '(': '%28', ')': '%29', _: '%5F', '*': '%2A' };

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
    const encoded = href.replace(HREF_SPECIALS, escapeHrefChar);
    const title = node.getAttribute('title');
    if (node.textContent === href && options.useInlineLinks) return { content: `<${encoded}>` };
    return {
      postprocess: linkText,
      childTranslators: visitor.instance.aTagTranslators,
      prefix: '[',
      postfix:
        ']' +
        (options.useLinkReferenceDefinitions
          ? `[${visitor.addOrGetUrlDefinition(encoded)}]`
          : `(${encoded}${title ? ` "${title}"` : ''})`),
    };
  },
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
const escapeHrefChar = (c: string): string => HREF_ESCAPES[c]!;
const linkText = ({ content }: { content: string }): string => content.replace(/(?:\r?\n)+/g, ' ');

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
  keepDataImages
    ? (withDataImages ??= new NodeHtmlMarkdown({ ...NHM_OPTIONS, keepDataImages: true }, NHM_TRANSLATORS))
    : (withoutDataImages ??= new NodeHtmlMarkdown({ ...NHM_OPTIONS, keepDataImages: false }, NHM_TRANSLATORS));

/** Markdown for already-cleaned HTML (links and images are absolute by now). */
export function toMarkdown(html: string, keepDataImages: boolean): string {
  return tidyMarkdown(converterFor(keepDataImages).translate(html));
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
    const md = (tree ? renderTree(converter, tree) : converter.translate(blockHtml(block, resolve))).trim();
    if (md) parts.push(md);
  }
  return tidyMarkdown(parts.join('\n\n'));
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

  override appendResult(s: string, startPos?: number, spaceIfRepeatingChar?: boolean): void {
    if (!s && startPos === undefined) return;
    const result = this.result;
    let tail = this.tail ?? '';
    if (startPos !== undefined) {
      result.text = result.text.substr(0, startPos);
      tail = result.text.slice(-TAIL);
    }
    const piece = spaceIfRepeatingChar && tail.slice(-1) === s[0] ? ` ${s}` : s;
    result.text += piece;
    this.tail = tail = piece.length >= TAIL ? piece.slice(-TAIL) : (tail + piece).slice(-TAIL);
    trailingWhitespace(tail, result.trailingNewlineStats);
  }
}

/** getTrailingWhitespaceInfo reads this many characters. */
const TAIL = 10;

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
    const md = converter.translate(block).trim();
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
