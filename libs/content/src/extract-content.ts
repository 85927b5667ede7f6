import { cleanDocument, safeSelectAll } from './clean.js';
import { scanPage } from './dom-walk.js';
import { contentBlocks } from './compact-html.js';
import { readFields } from './fields.js';
import { readHead } from './head.js';
import { detectLanguage } from './language.js';
import { collectLinks } from './links.js';
import { gluedTexts } from './main-content.js';
import { blocksToMarkdown, escapeMarkdownText } from './markdown.js';
import { cleaningHints, mainContentOf, pageHints, type PageHints } from './page-hints.js';
import { selfDescription } from './self-description.js';
import { countWords, toText } from './text.js';
import type { ContentOptions, ContentResult } from './types.js';
import { urlResolver, type UrlResolver } from './urls.js';

/**
 * The content pipeline of one page. Order matters: head data, links and fields read the page
 * as fetched; cleaning then mutates the document, and the main content is found in what is left.
 */
export function extractContent(doc: Document, opts: ContentOptions, rawHtml?: string): ContentResult {
  const want = new Set(opts.formats);
  const scan = scanPage(doc);
  const result: ContentResult = {
    head: readHead(doc, opts.url, opts.contentLanguage, scan),
    words: 0,
    language: null,
  };
  if (want.has('rawHtml')) result.rawHtml = rawHtml ?? doc.toString();
  if (want.has('links')) result.links = collectLinks(doc, opts.url, scan.links);
  if (opts.fields && Object.keys(opts.fields).length) {
    const { fields, fieldErrors } = readFields(doc, opts.fields, opts.url);
    result.fields = fields;
    if (Object.keys(fieldErrors).length) result.fieldErrors = fieldErrors;
  }

  const removeBase64Images = opts.removeBase64Images ?? true;
  // Clean HTML shows the document's links, so they are made absolute in it; otherwise only
  // those the markdown renders are, as it renders them. (Kept elements may lie where cleaning
  // does not go: the <head>, after </html>.)
  const resolveUrls = want.has('cleanHtml') || !!opts.includeTags?.length;
  const hints = pageHints(scan, result.head);
  cleanDocument(doc, {
    ...cleaningHints(hints),
    url: opts.url,
    removeBanners: opts.removeBanners ?? true,
    removeBase64Images,
    excludeTags: opts.excludeTags ?? [],
    stripAttributes: want.has('cleanHtml'),
    resolveUrls,
  });
  const roots = contentRoots(doc, opts, hints);
  let text = toText(roots);
  // A body with no text at all (a script renders it from data the HTML does not carry): the
  // page's own account of its content is the best there is.
  const summary = text ? null : selfDescription(result.head, opts.url);
  if (summary) {
    text = summary;
    result.declared = true;
  }
  if (want.has('markdown')) {
    result.markdown = summary
      ? escapeMarkdownText(summary)
      : markdownOrText(roots, text, !removeBase64Images, resolveUrls ? undefined : urlResolver(opts.url));
  }
  if (want.has('text')) result.text = text;
  if (want.has('cleanHtml')) {
    result.cleanHtml = roots
      .map((r) => r.outerHTML)
      .join('\n')
      .replace(/<!--[\s\S]*?-->/g, '');
  }
  result.words = countWords(text);
  result.language = detectLanguage(result.head.lang, text);
  return result;
}

/**
 * Serialising and node-html-markdown recurse once per nesting level; markup nested thousands
 * deep (unclosed tags) overflows the stack. The plain text is then the best markdown there is.
 */
function markdownOrText(roots: Element[], text: string, keepDataImages: boolean, resolve?: UrlResolver): string {
  try {
    return blocksToMarkdown(contentBlocks(roots), keepDataImages, resolve);
  } catch (err) {
    if (err instanceof RangeError) return text;
    throw err;
  }
}

/** The elements to render: the body, or the main content plus what includeTags asks to keep. */
function contentRoots(doc: Document, opts: ContentOptions, hints: PageHints): Element[] {
  const body = doc.body ?? doc.documentElement;
  if (!body) return [];
  if (!opts.onlyMainContent) {
    spaceGlued(body, gluedTexts(body, hints.names));
    return [body];
  }
  const keep = (opts.includeTags ?? []).flatMap((sel) => safeSelectAll(doc, sel));
  const { root, pruned, glued } = mainContentOf(body, hints);
  if (!root) return outermost(keep);
  const kept = keep.filter((el) => !isRendered(el, root, pruned));
  // What was between two pieces of content leaves a space: the links around a removed comment
  // were on lines of their own on the page, not one word.
  for (const el of pruned) {
    if (el.previousSibling && el.nextSibling) el.replaceWith(' ');
    else el.remove();
  }
  spaceGlued(root, glued);
  // Kept elements outside the main content follow it, in document order, without duplicates.
  return [root, ...outermost(kept).filter((el) => !el.contains(root))];
}

/**
 * Words the page's markup glues across inline boxes are rendered apart: a space before the
 * outermost element below `root` that the glued text opens (before a link, not inside its text).
 */
function spaceGlued(root: Element, glued: Text[]): void {
  for (const t of glued) {
    if (!root.contains(t)) continue;
    let at: ChildNode = t;
    while (at.parentElement && at.parentElement !== root && at.parentElement.firstChild === at) at = at.parentElement;
    at.before(' ');
  }
}

/** The elements not inside another of them, in their order. */
const outermost = (els: Element[]): Element[] =>
  els.filter((el, i) => !els.some((other, j) => j !== i && other.contains(el) && other !== el));

function isRendered(el: Element, root: Element, pruned: Set<Element>): boolean {
  if (!root.contains(el)) return false;
  for (let p: Element | null = el; p && p !== root; p = p.parentElement) {
    if (pruned.has(p)) return false;
  }
  return true;
}
