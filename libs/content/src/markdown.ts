import { NodeHtmlMarkdown, type NodeHtmlMarkdownOptions } from 'node-html-markdown';

const BASE: Partial<NodeHtmlMarkdownOptions> = {
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

// Translators are built once per option set; building them per page would cost more than a
// small page's whole conversion.
let withoutDataImages: NodeHtmlMarkdown | undefined;
let withDataImages: NodeHtmlMarkdown | undefined;

const converterFor = (keepDataImages: boolean) =>
  keepDataImages
    ? (withDataImages ??= new NodeHtmlMarkdown({ ...BASE, keepDataImages: true }))
    : (withoutDataImages ??= new NodeHtmlMarkdown({ ...BASE, keepDataImages: false }));

/** Markdown for already-cleaned HTML (links and images are absolute by now). */
export function toMarkdown(html: string, keepDataImages: boolean): string {
  return tidyMarkdown(converterFor(keepDataImages).translate(html));
}

/**
 * Markdown for HTML cut into top-level blocks (compactHtmlBlocks): each converted on its own and
 * joined by a blank line, which keeps node-html-markdown's cost linear in the page's length.
 */
export function blocksToMarkdown(blocks: string[], keepDataImages: boolean): string {
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
