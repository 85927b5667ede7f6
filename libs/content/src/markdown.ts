import {
  NodeHtmlMarkdown,
  PostProcessResult,
  type NodeHtmlMarkdownOptions,
  type TranslatorConfigObject,
} from 'node-html-markdown';
import { getMarkdownForHtmlNodes } from 'node-html-markdown/dist/visitor.js';
import { blockHtml, type ContentBlock } from './compact-html.js';
import { blockTree } from './markdown-tree.js';

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

/**
 * NHM's list item, with one change: its last step ends every line that ends in spaces with a
 * markdown line break, through /(\S+?)[^\S\r\n]+$/gm, which retries the lazy word at each of
 * its characters: quadratic in the length of a word (a long URL in a link), and nested lists
 * run it again at each level. Matching only the word's last character does the same
 * replacement in linear time.
 */
export const NHM_TRANSLATORS: TranslatorConfigObject = {
  li: ({ options: { bulletMarker, indent }, indentLevel, listKind, listItemNumber }) => {
    const level = +(indentLevel || 0);
    const marker = listKind === 'OL' && listItemNumber !== undefined ? `${listItemNumber}. ` : `${bulletMarker} `;
    return {
      prefix: indent!.repeat(level) + marker,
      surroundingNewlines: 1,
      postprocess: ({ content }) =>
        !NOT_BLANK.test(content)
          ? PostProcessResult.RemoveNode
          : content
              .trim()
              .replace(/([^\r\n])(?:\r?\n)+(?!\s*[-*+]|\s*\d+\.|\s*\|)/g, `$1  \n${indent!.repeat(level)}`)
              .replace(/(\S)[^\S\r\n]+$/gm, '$1  '),
    };
  },
};

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
 * not cover goes through translate() as HTML.
 */
export function blocksToMarkdown(blocks: ContentBlock[], keepDataImages: boolean): string {
  const converter = converterFor(keepDataImages);
  const parts: string[] = [];
  for (const block of blocks) {
    const tree = blockTree(block);
    const md = (
      tree ? getMarkdownForHtmlNodes(converter, tree as never) : converter.translate(blockHtml(block))
    ).trim();
    if (md) parts.push(md);
  }
  return tidyMarkdown(parts.join('\n\n'));
}

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
