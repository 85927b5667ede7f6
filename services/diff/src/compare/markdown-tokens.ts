// Markdown as the change record reads it: words in blocks under sections. Syntax is read lightly
// (headings, fences, quotes, list markers, table pipes, emphasis, links and images); what is
// left is the text a reader sees. Punctuation stays on its word ("$19.99", "end."), so a
// changed comma is a changed word, as a reader would count it.

import { LaneHasher } from './hash.js';
import { AD_SLOT, ROTATING_SECTION, volatileSpans } from './volatile-patterns.js';

export interface Token {
  /** As shown to the user. */
  text: string;
  /** What equality compares: the text, or ⟨kind⟩ for a volatile span ("5 minutes ago" → ⟨relative-time⟩). */
  key: string;
  /** Counts as a word: has a letter or digit and is not a link target. */
  word: boolean;
  /** A link or image target: compared, never counted as words. */
  link: boolean;
  /** Index of its block. */
  block: number;
}

export interface MarkdownBlock {
  /** Token range [start, end). */
  start: number;
  end: number;
  /** Text of the nearest heading at or before the block; null before the first heading. */
  section: string | null;
  /** Position among the blocks of its section (0 = the heading itself when there is one). */
  ordinal: number;
  heading: boolean;
  /** Fingerprint of the block's text, and of its text with volatile spans masked. */
  hash: string;
  maskedHash: string;
  /** Labelled as an ad, or under a heading of a rotating widget ("Trending now"). */
  adSlot: boolean;
  rotating: boolean;
}

export interface TokenizedMarkdown {
  tokens: Token[];
  blocks: MarkdownBlock[];
}

// Fences and headings at any indentation: the content service writes what a list item holds
// (a code block, a heading) indented to the item's content column, deeper in a nested item.
const FENCE = /^\s*(`{3,}|~{3,})/;
const HEADING = /^\s*(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const RULE = /^\s{0,3}(?:([-*_])\s*){3,}$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const QUOTE = /^\s*(?:>\s?)+/;
const LIST_MARKER = /^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/;
// [text](url "title") and ![alt](src); the text may hold one level of brackets (an image in a link).
const LINK = /(!?)\[((?:[^[\]]|\[[^[\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const AUTOLINK = /<((?:https?|mailto|ftp):[^>\s]+)>/g;
const ESCAPE = /\\([\\`*_{}[\]()#+\-.!|>~<])/g;
const ESCAPED = '\uE000';
const EMPHASIS_EDGES = new RegExp(`^[*_~\`]+|(?<!${ESCAPED})[*_~\`]+$`, 'g');
const WORDISH = /[\p{L}\p{N}]/u;
const CJK = /[\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff]/;
const CJK_SPLIT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

type Segment = { text: string } | { url: string };

const WORD = 1;
const PUNCTUATION = 2;
const NOT_PLAIN = 0;

/** WORD or PUNCTUATION for printable ASCII without emphasis marks at its edges; NOT_PLAIN otherwise. */
function asciiShape(raw: string): number {
  let alnum = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c >= 0x7f || c < 0x20) return NOT_PLAIN;
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) alnum = true;
  }
  const edges = `${raw[0]}${raw[raw.length - 1]}`;
  if (/[*_~`]/.test(edges) || raw.includes(ESCAPED)) return NOT_PLAIN;
  return alnum ? WORD : PUNCTUATION;
}

/** Tokens and blocks of a markdown document. */
export function tokenizeMarkdown(markdown: string): TokenizedMarkdown {
  const builder = new Builder();
  let fence: string | null = null;
  for (const line of markdown.split(/\r?\n/)) {
    if (fence !== null) {
      if (line.trimStart().startsWith(fence)) {
        fence = null;
        builder.closeBlock();
      } else {
        builder.addCode(line);
      }
      continue;
    }
    const fenceOpen = FENCE.exec(line);
    if (fenceOpen) {
      builder.closeBlock();
      builder.openBlock(false);
      fence = fenceOpen[1]!;
      continue;
    }
    if (!line.trim() || RULE.test(line)) {
      builder.closeBlock();
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      builder.closeBlock();
      const segments = inlineSegments(heading[2]!);
      builder.startSection(segmentText(segments));
      builder.openBlock(true);
      builder.addSegments(segments);
      builder.closeBlock();
      continue;
    }
    if (TABLE_DELIMITER.test(line) && line.includes('-')) continue;
    let rest = line.replace(QUOTE, '').replace(LIST_MARKER, '');
    if (rest.trimStart().startsWith('|')) rest = rest.replace(/(?<!\\)\|/g, ' ');
    builder.ensureBlock();
    builder.addSegments(inlineSegments(rest));
  }
  builder.closeBlock();
  return builder.finish();
}

/** Plain text of a token range, as shown in hunks and reports (link targets in angle brackets). */
export function tokensText(tokens: readonly Token[]): string {
  return tokens.map((t) => (t.link ? `<${t.text}>` : t.text)).join(' ');
}

class Builder {
  private readonly tokens: Token[] = [];
  private readonly blocks: MarkdownBlock[] = [];
  private open: MarkdownBlock | null = null;
  private section: string | null = null;
  private ordinal = 0;

  startSection(title: string): void {
    this.section = title;
    this.ordinal = 0;
  }

  openBlock(heading: boolean): void {
    this.open = {
      start: this.tokens.length,
      end: this.tokens.length,
      section: this.section,
      ordinal: this.ordinal++,
      heading,
      hash: '',
      maskedHash: '',
      adSlot: false,
      rotating: this.section !== null && ROTATING_SECTION.test(this.section),
    };
  }

  ensureBlock(): void {
    if (!this.open) this.openBlock(false);
  }

  closeBlock(): void {
    const block = this.open;
    this.open = null;
    if (!block) return;
    block.end = this.tokens.length;
    if (block.end === block.start) {
      this.ordinal--;
      return;
    }
    const index = this.blocks.length;
    const text = new LaneHasher();
    const keys = new LaneHasher();
    let masked = false;
    for (let i = block.start; i < block.end; i++) {
      const token = this.tokens[i]!;
      token.block = index;
      text.add(token.text).add(' ');
      keys.add(token.key).add(' ');
      masked ||= token.key !== token.text;
    }
    block.hash = text.fingerprint();
    block.maskedHash = masked ? keys.fingerprint() : block.hash;
    const opening = this.tokens
      .slice(block.start, Math.min(block.end, block.start + 3))
      .map((t) => t.text)
      .join(' ');
    block.adSlot = !block.heading && AD_SLOT.test(opening);
    this.blocks.push(block);
  }

  addCode(line: string): void {
    for (const word of line.split(/\s+/)) if (word) this.push(word, word, WORDISH.test(word));
  }

  addSegments(segments: Segment[]): void {
    for (const segment of segments) {
      if ('url' in segment) {
        if (segment.url) this.tokens.push({ text: segment.url, key: segment.url, word: false, link: true, block: -1 });
        continue;
      }
      let pos = 0;
      for (const span of volatileSpans(segment.text)) {
        this.addWords(segment.text.slice(pos, span.start));
        const shown = segment.text.slice(span.start, span.end).replace(/\s+/g, ' ').trim();
        this.push(shown, `⟨${span.kind}⟩`, true);
        pos = span.end;
      }
      this.addWords(segment.text.slice(pos));
    }
  }

  private addWords(text: string): void {
    for (const raw of text.split(/\s+/)) {
      if (!raw) continue;
      const shape = asciiShape(raw);
      if (shape !== NOT_PLAIN) {
        // The common case, plain ASCII without emphasis at its edges: no regex needed.
        this.push(raw, raw, shape === WORD);
        continue;
      }
      const word = raw.replace(EMPHASIS_EDGES, '').replaceAll(ESCAPED, '');
      if (!word) continue;
      if (CJK.test(word)) {
        // Scripts written without spaces: each character is a word of its own.
        for (const piece of word.match(CJK_SPLIT) ?? []) this.push(piece, piece, WORDISH.test(piece));
      } else {
        this.push(word, word, WORDISH.test(word));
      }
    }
  }

  private push(text: string, key: string, word: boolean): void {
    this.tokens.push({ text, key, word, link: false, block: -1 });
  }

  finish(): TokenizedMarkdown {
    return { tokens: this.tokens, blocks: this.blocks };
  }
}

/** Inline markdown as text and link targets; escapes are undone after emphasis is stripped. */
function inlineSegments(text: string): Segment[] {
  const escaped = text.includes('\\') ? text.replace(ESCAPE, `${ESCAPED}$1`) : text;
  const out: Segment[] = [];
  collectSegments(escaped, out);
  return out;
}

function collectSegments(text: string, out: Segment[]): void {
  if (!text.includes('](') && !text.includes('<')) {
    out.push({ text });
    return;
  }
  const pattern = new RegExp(`${LINK.source}|${AUTOLINK.source}`, 'g');
  let pos = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m.index > pos) out.push({ text: text.slice(pos, m.index) });
    if (m[4] !== undefined) {
      out.push({ url: m[4] });
    } else {
      collectSegments(m[2]!, out); // the link's text (an image's alt) is read like any text
      out.push({ url: m[3]! });
    }
    pos = m.index + m[0].length;
  }
  if (pos < text.length) out.push({ text: text.slice(pos) });
}

function segmentText(segments: Segment[]): string {
  return segments
    .map((s) => ('text' in s ? s.text : ''))
    .join('')
    .replace(/[*_~`]/g, '')
    .replaceAll(ESCAPED, '')
    .replace(/\s+/g, ' ')
    .trim();
}
