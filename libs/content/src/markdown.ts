import {
  NodeHtmlMarkdown,
  PostProcessResult,
  type NodeHtmlMarkdownOptions,
  type TranslatorCollection,
  type TranslatorConfig,
  type TranslatorConfigFactory,
  type TranslatorConfigObject,
} from 'node-html-markdown';
import { KEEP_ATTRS, UNWRAP, VOID } from './compact-html.js';

// Markdown by node-html-markdown (NHM): its options, its translators (every markdown rule:
// headings, lists, links, tables, code…), its escaping and its post-processing. Two parts of
// NHM's translate() are replaced, for speed only:
//
// - Its parse. translate() takes an HTML string and parses it again with node-html-parser; the
//   main content is already a linkedom tree, so the tree NHM walks is built from it directly,
//   shaped as node-html-parser would have shaped the compact serialisation the pipeline used to
//   feed it (only the attributes the markdown needs; <span>s and other inline wrappers unwrapped,
//   their text merged with the text around them; comments dropped).
// - Its walk (NHM 2.0's Visitor.visitNode, ported below line for line). NHM keeps the output in
//   one growing string and, after every append, reads its end (getTrailingWhitespaceInfo,
//   slice(-1)) and, for every element with a post-processing step (links, emphasis, list items,
//   cells), cuts its content out with substr. On a V8 rope each of those flattens the whole
//   output so far: quadratic, ~200 ms for a page with 90 KB of markdown. Here the output is a
//   list of chunks, and those reads touch only its end.
//
// test/markdown.spec.ts checks, on every fixture, that this gives what NHM's own translate()
// gives for the same content; the WCXB dev set (494 pages) was compared the same way.

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

export function converterFor(keepDataImages: boolean): NodeHtmlMarkdown {
  return keepDataImages
    ? (withDataImages ??= new NodeHtmlMarkdown({ ...BASE, keepDataImages: true }))
    : (withoutDataImages ??= new NodeHtmlMarkdown({ ...BASE, keepDataImages: false }));
}

/** Markdown for already-cleaned elements (links and images are absolute by now). */
export function toMarkdown(roots: Element[], keepDataImages: boolean): string {
  const converter = converterFor(keepDataImages);
  return tidyMarkdown(new Walk(converter).render(nhmTree(roots, converter.translators)));
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

// ---------------------------------------------------------------------------------------------
// The tree NHM walks: node-html-parser's, built from the linkedom elements.
//
// node-html-parser does not build the tree a browser would: an opening <div> closes an open
// <p> or <b>, an opening <li> an open <li>, a nested <a> ends the outer one, a closing </div>
// ends an open <a>, <p> or <i>, and what is left open at the end is folded into its parent.
// The tree is built with those same rules, fed with the tags and texts the compact
// serialisation (src/compact-html.ts) would have written, so NHM renders what it rendered.

class NhmText {
  readonly nodeType = 3;
  preserve = true;
  parentNode: NhmElement | null = null;
  constructor(readonly text: string) {}
  get isWhitespace(): boolean {
    return !/\S/.test(this.text);
  }
}

class NhmElement {
  readonly nodeType = 1;
  /** Upper case, as node-html-parser gives it; '' for the root. */
  readonly tagName: string;
  childNodes: NhmNode[] = [];
  parentNode: NhmElement | null = null;
  preserve = false;
  constructor(
    /** Lower case, null for the root. */
    readonly rawTagName: string | null,
    private readonly source: Element | null,
  ) {
    this.tagName = rawTagName ? rawTagName.toUpperCase() : '';
  }

  getAttribute(name: string): string | undefined {
    const src = this.source;
    if (!src || !KEEP_ATTRS[src.localName]?.includes(name)) return undefined;
    return src.getAttribute(name) ?? undefined;
  }

  get textContent(): string {
    let s = '';
    for (const c of this.childNodes) s += c.nodeType === 3 ? c.text : c.textContent;
    return s;
  }

  appendChild<T extends NhmNode>(node: T): T {
    const old = node.parentNode;
    if (old) old.removeChild(node);
    this.childNodes.push(node);
    node.parentNode = this;
    return node;
  }

  removeChild(node: NhmNode): void {
    this.childNodes = this.childNodes.filter((c) => c !== node);
  }
}

type NhmNode = NhmText | NhmElement;

// node-html-parser 6.1's rules (nodes/html.js), as NHM configures it.
const CLOSED_BY_OPENING: Record<string, ReadonlySet<string>> = {
  li: new Set(['li']),
  p: new Set(['p', 'div']),
  b: new Set(['div']),
  td: new Set(['td', 'th']),
  th: new Set(['td', 'th']),
  h1: new Set(['h1']),
  h2: new Set(['h2']),
  h3: new Set(['h3']),
  h4: new Set(['h4']),
  h5: new Set(['h5']),
  h6: new Set(['h6']),
};
const CLOSED_BY_CLOSING: Record<string, ReadonlySet<string>> = {
  li: new Set(['ul', 'ol']),
  a: new Set(['div']),
  b: new Set(['div']),
  i: new Set(['div']),
  p: new Set(['div']),
  td: new Set(['tr', 'table']),
  th: new Set(['tr', 'table']),
};
const PARSER_VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
/** Elements whose content node-html-parser skips (NHM's blockTextElements). */
const SKIPPED = new Set(['script', 'noscript', 'style']);
const TAG_NAME = /^[a-zA-Z][-.:0-9_a-zA-Z]*$/;
const CONTENTLESS = new Set(['BR', 'HR', 'IMG']);

class TreeBuilder {
  readonly root = new NhmElement(null, null);
  private stack: NhmElement[] = [this.root];
  private current = this.root;
  private text = '';
  private noNestedTagIndex: number | undefined;

  /** Emits what compactHtml writes for el. */
  element(el: Element): void {
    const tag = el.localName;
    if (UNWRAP.has(tag)) return this.children(el);
    if (!TAG_NAME.test(tag)) {
      // Not a tag name to node-html-parser (linkedom takes any letters): the tags read as text.
      this.text += `<${tag}>`;
      if (VOID.has(tag)) return;
      this.children(el);
      this.text += `</${tag}>`;
      return;
    }
    this.open(tag, el);
    if (VOID.has(tag)) return;
    if (!SKIPPED.has(tag)) this.children(el);
    this.close(tag);
  }

  private children(el: Element): void {
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3) this.text += (n as Text).data;
      else if (n.nodeType === 1) this.element(n as Element);
    }
  }

  private flushText(): void {
    if (this.text) this.current.appendChild(new NhmText(this.text));
    this.text = '';
  }

  private open(tag: string, el: Element): void {
    this.flushText();
    if (this.current.rawTagName && CLOSED_BY_OPENING[this.current.rawTagName]?.has(tag)) this.pop();
    if (tag === 'a') {
      if (this.noNestedTagIndex !== undefined) {
        this.stack.splice(this.noNestedTagIndex);
        this.current = this.stack[this.stack.length - 1]!;
      }
      this.noNestedTagIndex = this.stack.length;
    }
    this.current = this.current.appendChild(new NhmElement(tag, el));
    this.stack.push(this.current);
    // The parser skips a skipped element's content and then closes it.
    if (SKIPPED.has(tag)) return;
    if (PARSER_VOID.has(tag)) this.endTag(tag);
  }

  private close(tag: string): void {
    this.flushText();
    this.endTag(tag);
  }

  private endTag(tag: string): void {
    for (;;) {
      if (this.noNestedTagIndex !== undefined && tag === 'a') this.noNestedTagIndex = undefined;
      const cur = this.current;
      if (cur.rawTagName === tag) {
        this.pop();
        return;
      }
      if (cur.rawTagName && CLOSED_BY_CLOSING[cur.rawTagName]?.has(tag)) {
        this.pop();
        continue;
      }
      return;
    }
  }

  private pop(): void {
    this.stack.pop();
    this.current = this.stack[this.stack.length - 1]!;
  }

  /** node-html-parser's parse(): elements left open are folded into the element before them. */
  finish(): NhmElement {
    this.flushText();
    const { stack } = this;
    while (stack.length > 1) {
      const last = stack.pop()!;
      const oneBefore = stack[stack.length - 1]!;
      if (!last.parentNode?.parentNode) continue;
      oneBefore.removeChild(last);
      if (last.parentNode === oneBefore && last.tagName === oneBefore.tagName) {
        for (const child of last.childNodes) oneBefore.parentNode!.appendChild(child);
        stack.pop();
      } else {
        for (const child of last.childNodes) oneBefore.appendChild(child);
      }
    }
    return this.root;
  }
}

/**
 * node-html-parser's tree for the elements, marked as NHM's optimizeTree marks it: what has
 * something to render (text, <br>/<hr>/<img>, empty elements whose translator keeps them).
 */
function nhmTree(roots: Element[], translators: TranslatorCollection): NhmElement {
  const builder = new TreeBuilder();
  for (const r of roots) builder.element(r);
  const root = builder.finish();
  const mark = (node: NhmNode): boolean => {
    if (node.nodeType === 3) return true;
    let res = false;
    if (CONTENTLESS.has(node.tagName)) res = true;
    else if (!node.childNodes.length) {
      const t = node.tagName ? translators.get(node.tagName) : undefined;
      res = typeof t === 'function' || !!t?.preserveIfEmpty;
    } else for (const child of node.childNodes) res = mark(child) || res;
    return (node.preserve = res);
  };
  mark(root);
  return root;
}

// ---------------------------------------------------------------------------------------------
// NHM's visitor, with the output kept in chunks.

interface Meta {
  indentLevel?: number;
  listKind?: string;
  listItemNumber?: number;
  noEscape?: boolean;
  preserveWhitespace?: boolean;
  translators?: TranslatorConfigObject;
  tableMeta?: { node: NhmElement; caption?: string };
}

/** The output so far, as chunks; reads at its end cost what they read, not the whole. */
class Output {
  private chunks: string[] = [];
  length = 0;

  push(s: string): void {
    if (!s) return;
    this.chunks.push(s);
    this.length += s.length;
  }

  /** Keeps the first `pos` characters. */
  truncate(pos: number): void {
    const { chunks } = this;
    while (this.length > pos) {
      const last = chunks[chunks.length - 1]!;
      const excess = this.length - pos;
      if (last.length <= excess) {
        chunks.pop();
        this.length -= last.length;
      } else {
        chunks[chunks.length - 1] = last.slice(0, last.length - excess);
        this.length = pos;
      }
    }
  }

  /** Everything from `pos` on. */
  from(pos: number): string {
    const { chunks } = this;
    let start = this.length;
    let i = chunks.length;
    while (start > pos) start -= chunks[--i]!.length;
    const s = i === chunks.length - 1 ? chunks[i]! : chunks.slice(i).join('');
    return start === pos ? s : s.slice(pos - start);
  }

  /** The last `n` characters (fewer when the output is shorter). */
  tail(n: number): string {
    const { chunks } = this;
    let s = '';
    for (let i = chunks.length - 1; i >= 0 && s.length < n; i--) s = chunks[i]! + s;
    return s.length > n ? s.slice(-n) : s;
  }

  toString(): string {
    return this.chunks.join('');
  }
}

/** NHM's getTrailingWhitespaceInfo: whitespace and newlines among the last 10 characters. */
function trailingWhitespace(out: Output): { whitespace: number; newLines: number } {
  const s = out.tail(10);
  const res = { whitespace: 0, newLines: 0 };
  for (let i = s.length - 1; i >= 0; --i) {
    const c = s[i]!;
    if (!/\s/.test(c)) break;
    ++res.whitespace;
    if (c === '\r' || c === '\n') ++res.newLines;
  }
  return res;
}

const trimNewLines = (s: string): string => s.replace(/^\n+|\n+$/g, '');
const isTranslatorConfig = (v: unknown): v is TranslatorConfig => typeof v === 'object';

class Walk {
  private readonly out = new Output();
  private readonly options: NodeHtmlMarkdownOptions;
  // Read by NHM's translators through ctx.visitor.
  readonly nodeMetadata = new Map<NhmElement, Meta>();
  readonly urlDefinitions: string[] = [];

  constructor(readonly instance: NodeHtmlMarkdown) {
    this.options = instance.options;
  }

  addOrGetUrlDefinition(url: string): number {
    let id = this.urlDefinitions.findIndex((u) => u === url);
    if (id < 0) id = this.urlDefinitions.push(url) - 1;
    return id + 1;
  }

  /** NHM's getMarkdownForHtmlNodes. */
  render(root: NhmElement): string {
    this.visitNode(root, false, undefined);
    let result = this.out.toString();
    if (this.options.useLinkReferenceDefinitions) {
      if (/[^\r\n]/.test(result.slice(-1))) result += '\n';
      this.urlDefinitions.forEach((url, idx) => {
        result += `\n[${idx + 1}]: ${url}`;
      });
    }
    const { maxConsecutiveNewlines } = this.options;
    if (maxConsecutiveNewlines) {
      result = result.replace(
        new RegExp(String.raw`(?:\r?\n\s*)+((?:\r?\n\s*){${maxConsecutiveNewlines}})`, 'g'),
        '$1',
      );
    }
    result = trimNewLines(result);
    if (result.endsWith(' ') && !result.endsWith('  ')) result = result.trimEnd();
    return result;
  }

  private appendResult(s: string, startPos?: number, spaceIfRepeatingChar?: boolean): void {
    if (!s && startPos === undefined) return;
    const { out } = this;
    if (startPos !== undefined) out.truncate(startPos);
    if (spaceIfRepeatingChar && out.length && out.tail(1) === s[0]) out.push(' ');
    out.push(s);
  }

  private appendNewlines(count: number): void {
    const { newLines } = trailingWhitespace(this.out);
    this.appendResult('\n'.repeat(Math.max(0, count - newLines)));
  }

  private processText(text: string, metadata: Meta | undefined): string {
    let res = text;
    if (!metadata?.preserveWhitespace) res = res.replace(/\s+/g, ' ');
    if (metadata?.noEscape) return res;
    const { lineStartEscape, globalEscape, textReplace } = this.options;
    res = res.replace(globalEscape[0], globalEscape[1]).replace(lineStartEscape[0], lineStartEscape[1]);
    if (textReplace) for (const [pattern, r] of textReplace) res = res.replace(pattern, r);
    return res;
  }

  private visitNode(node: NhmNode, textOnly: boolean, metadata: Meta | undefined): void {
    const { out } = this;
    if (!node.preserve) return;

    if (node.nodeType === 3) {
      if (node.isWhitespace && !metadata?.preserveWhitespace) {
        if (!out.length || trailingWhitespace(out).whitespace > 0) return;
        return this.appendResult(' ');
      }
      // node-html-parser's `text || trimmedText`: the text is never empty here.
      const sourceText = node.text;
      let processedText = this.processText(sourceText, metadata);
      if (!metadata?.preserveWhitespace && processedText) {
        if (/^\n/.test(sourceText)) processedText = processedText.replace(/^ /, '');
        if (!/\s$/.test(sourceText)) processedText = processedText.replace(/ +$/, '');
      }
      return this.appendResult(processedText);
    }
    if (textOnly) return;

    const tagNameUpper = node.tagName;
    const translatorCfgOrFactory: TranslatorConfig | TranslatorConfigFactory | undefined = tagNameUpper
      ? metadata?.translators
        ? metadata.translators[tagNameUpper]
        : this.instance.translators.get(tagNameUpper)
      : undefined;

    switch (tagNameUpper) {
      case 'UL':
      case 'OL':
        metadata = {
          ...metadata,
          listItemNumber: 0,
          listKind: tagNameUpper,
          indentLevel: (metadata?.indentLevel ?? -1) + 1,
        };
        break;
      case 'LI':
        if (metadata?.listKind === 'OL') metadata.listItemNumber = (metadata.listItemNumber ?? 0) + 1;
        break;
      case 'PRE':
        metadata = { ...metadata, preserveWhitespace: true };
        break;
      case 'TABLE':
        metadata = { ...metadata, tableMeta: { node } };
    }
    if (metadata) this.nodeMetadata.set(node, metadata);

    if (!translatorCfgOrFactory) {
      for (const child of node.childNodes) this.visitNode(child, textOnly, metadata);
      return;
    }

    let cfg: TranslatorConfig;
    let ctx: Record<string, unknown> | undefined;
    if (!isTranslatorConfig(translatorCfgOrFactory)) {
      ctx = this.context(node, metadata, translatorCfgOrFactory.base);
      cfg = { ...translatorCfgOrFactory.base, ...translatorCfgOrFactory(ctx as never) };
    } else cfg = translatorCfgOrFactory;

    if (cfg.ignore) return;

    if (cfg.noEscape && !metadata?.noEscape) {
      metadata = { ...metadata, noEscape: cfg.noEscape };
      this.nodeMetadata.set(node, metadata);
    }
    if (cfg.childTranslators && cfg.childTranslators !== (metadata?.translators as unknown)) {
      metadata = { ...metadata, translators: cfg.childTranslators as unknown as TranslatorConfigObject };
      this.nodeMetadata.set(node, metadata);
    }

    const startPosOuter = out.length;
    if (cfg.surroundingNewlines) this.appendNewlines(+cfg.surroundingNewlines);
    if (cfg.prefix) this.appendResult(cfg.prefix);

    if (typeof cfg.content === 'string') this.appendResult(cfg.content, undefined, cfg.spaceIfRepeatingChar);
    else {
      const startPos = out.length;
      for (const child of node.childNodes) this.visitNode(child, cfg.recurse === false, metadata);
      if (cfg.postprocess) {
        const postRes = cfg.postprocess({
          ...(ctx ?? this.context(node, metadata)),
          content: out.from(startPos),
        } as never);
        if (postRes === PostProcessResult.RemoveNode) {
          if (node.tagName === 'LI' && metadata?.listItemNumber) --metadata.listItemNumber;
          return this.appendResult('', startPosOuter);
        }
        if (typeof postRes === 'string') this.appendResult(postRes, startPos, cfg.spaceIfRepeatingChar);
      }
    }

    if (cfg.postfix) this.appendResult(cfg.postfix);
    if (cfg.surroundingNewlines) this.appendNewlines(+cfg.surroundingNewlines);
  }

  /** NHM's createTranslatorContext. */
  private context(node: NhmElement, metadata: Meta | undefined, base?: TranslatorConfig): Record<string, unknown> {
    return {
      node,
      options: this.options,
      parent: node.parentNode,
      nodeMetadata: this.nodeMetadata,
      visitor: this,
      base,
      ...metadata,
    };
  }
}
