// Plain text of a cleaned subtree: inline text joined with single spaces, blocks separated by
// blank lines, list items and table rows on lines of their own, <pre> kept as written.

import { unwrapped } from './compact-html.js';
import { firstChildOf, nextSiblingOf } from './linked-nodes.js';

const PARAGRAPH = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'pre',
  'table',
  'ul',
  'ol',
  'dl',
  'figure',
  'section',
  'article',
  'header',
  'footer',
  'main',
  'aside',
  'nav',
  'address',
  'hr',
  'details',
  'form',
  'fieldset',
]);
const LINE = new Set(['li', 'tr', 'dt', 'dd', 'div', 'caption', 'figcaption', 'summary', 'option', 'legend']);
const CELL = new Set(['td', 'th']);
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'title']);

// What an element is to the text, in one lookup.
const INLINE = 0;
const SKIPPED = 1;
const BREAK = 2;
const VERBATIM = 3;
const PARAGRAPH_BLOCK = 4;
const LINE_BLOCK = 5;
const CELL_BLOCK = 6;
const KIND = new Map<string, number>([
  ...[...CELL].map((tag): [string, number] => [tag, CELL_BLOCK]),
  ...[...LINE].map((tag): [string, number] => [tag, LINE_BLOCK]),
  ...[...PARAGRAPH].map((tag): [string, number] => [tag, PARAGRAPH_BLOCK]),
  ['img', SKIPPED],
  ['pre', VERBATIM],
  ['br', BREAK],
  ...[...SKIP].map((tag): [string, number] => [tag, SKIPPED]),
]);

const kindOf = (tag: string): number => KIND.get(tag) ?? INLINE;
/** Whether an element breaks the text's line where it stands (a block, a cell, a <br>, a <pre>). */
export const breaksLine = (tag: string): boolean => {
  const kind = kindOf(tag);
  return kind !== INLINE && kind !== SKIPPED;
};

interface TextNodeLike {
  nodeType: number;
  childNodes: ArrayLike<TextNodeLike>;
  textContent: string | null;
  localName?: string;
  tagName?: string;
}

/**
 * Whether the text toText writes of an element opens with a line break: a block, a cell, a <br>
 * or a <pre> comes before its first word ("<a><div>Careers</div></a>" after another link).
 */
export const opensWithBreak = (el: TextNodeLike): boolean => textEdge(el, false) === EDGE_BREAK;
/** Whether it ends with one: a block after its last word, even an empty one (an icon's <div>). */
export const closesWithBreak = (el: TextNodeLike): boolean => textEdge(el, true) === EDGE_BREAK;

const EDGE_NOTHING = 0;
const EDGE_WORD = 1;
const EDGE_BREAK = 2;
/** What an element's text meets first from its start (or its end): a word, a break, or nothing. */
function textEdge(el: TextNodeLike, fromEnd: boolean): number {
  const children = el.childNodes;
  const n = children.length;
  for (let k = 0; k < n; k++) {
    const c = children[fromEnd ? n - 1 - k : k]!;
    if (c.nodeType === 3) {
      if (NOT_BLANK.test(c.textContent!)) return EDGE_WORD;
      continue;
    }
    if (c.nodeType !== 1) continue;
    const kind = kindOf(c.localName ?? c.tagName!.toLowerCase());
    if (kind === SKIPPED) continue;
    if (kind !== INLINE) return EDGE_BREAK;
    const inner = textEdge(c, fromEnd);
    if (inner !== EDGE_NOTHING) return inner;
  }
  return EDGE_NOTHING;
}
const NOT_BLANK = /\S/;

/**
 * A run of whitespace other than one plain space (whitespace that is not a space, or two spaces):
 * what replace(/\s+/g, ' ') would change. One test is faster than reading the characters.
 */
export const COLLAPSIBLE = /[^\S ]| {2}/;

/** What \s matches (and String.prototype.trim strips), line terminators included. */
export const isSpace = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  (c > 127 &&
    (c === 0xa0 ||
      c === 0x1680 ||
      (c >= 0x2000 && c <= 0x200a) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0x202f ||
      c === 0x205f ||
      c === 0x3000 ||
      c === 0xfeff));

/** Elements the markdown writes nothing of their own for: their content stands where they are. */
const writesNothing = (tag: string): boolean => tag === 'wbr' || unwrapped(tag);

class TextBuilder {
  private out: string[] = [];
  private pending = 0; // 0 nothing, 1 line break, 2 blank line
  private needSpace = false;

  break(level: 1 | 2): void {
    if (this.out.length) this.pending = Math.max(this.pending, level);
    this.needSpace = false;
  }

  /** Text with each run of whitespace (\s) read as one space. */
  inline(raw: string): void {
    let start = 0;
    let end = raw.length;
    while (start < end && isSpace(raw.charCodeAt(start))) start++;
    if (start === end) {
      if (end > 0 && this.out.length) this.needSpace = true;
      return;
    }
    while (isSpace(raw.charCodeAt(end - 1))) end--;
    const text = start === 0 && end === raw.length ? raw : raw.slice(start, end);
    const plain = !COLLAPSIBLE.test(text);
    this.flushBreak();
    if ((start > 0 || this.needSpace) && this.out.length && !this.atLineStart()) this.out.push(' ');
    this.out.push(plain ? text : text.replace(/\s+/g, ' '));
    this.needSpace = end < raw.length;
  }

  verbatim(text: string): void {
    if (!text.trim()) return;
    this.flushBreak();
    this.out.push(text.replace(/^\n+|\s+$/g, ''));
    this.needSpace = false;
  }

  cellGap(): void {
    if (!this.atLineStart()) this.needSpace = true;
  }

  toString(): string {
    return this.out.join('');
  }

  private flushBreak(): void {
    if (this.pending && this.out.length) this.out.push(this.pending === 2 ? '\n\n' : '\n');
    this.pending = 0;
  }

  private atLineStart(): boolean {
    const last = this.out[this.out.length - 1];
    return last === undefined || last.endsWith('\n');
  }
}

export function toText(roots: Element[]): string {
  const b = new TextBuilder();
  // Two code spans with nothing written between them (but elements that write nothing of their
  // own: a <span>, a <wbr>) are two tokens ("U+00DF" "0x C3 9F"; rustdoc's `pub use x;` and the
  // `tokio_unstable` of the badge after it), as the markdown must write them (one backtick run
  // would merge them).
  let codeEnded = false;
  const visit = (el: Element): void => {
    const tag = el.localName;
    const code = tag === 'code';
    if (code) {
      if (codeEnded) b.cellGap();
    } else if (codeEnded && !writesNothing(tag)) codeEnded = false;
    const kind = KIND.get(tag) ?? INLINE;
    if (kind === SKIPPED) return;
    if (kind === BREAK) return b.break(1);
    if (kind === VERBATIM) {
      b.break(2);
      b.verbatim(preText(el));
      return b.break(2);
    }
    if (kind === LINE_BLOCK) b.break(1);
    else if (kind === PARAGRAPH_BLOCK) b.break(2);
    else if (kind === CELL_BLOCK) b.cellGap();
    for (let n = firstChildOf(el); n; n = nextSiblingOf(n)) {
      if (n.nodeType === 3) {
        b.inline((n as Text).data);
        codeEnded = false;
      } else if (n.nodeType === 1) visit(n as Element);
    }
    if (kind === LINE_BLOCK) b.break(1);
    else if (kind === PARAGRAPH_BLOCK) b.break(2);
    else if (kind === CELL_BLOCK) b.cellGap();
    if (code) codeEnded = true;
  };
  for (const root of roots) {
    visit(root);
    b.break(2);
  }
  return b.toString().trim();
}

/**
 * A <pre>'s text as written, its <br> line breaks included (textContent drops them: code pasted
 * into a CMS often breaks its lines that way), as the markdown's code block reads it.
 */
function preText(pre: Element): string {
  let s = '';
  const walk = (el: Element): void => {
    for (let n = firstChildOf(el); n; n = nextSiblingOf(n)) {
      if (n.nodeType === 3 || n.nodeType === 4) s += (n as Text).data;
      else if (n.nodeType === 1) {
        if ((n as Element).localName === 'br') s += '\n';
        else walk(n as Element);
      }
    }
  };
  walk(pre);
  return s;
}

/**
 * Runs of [\p{L}\p{N}_] (the regex's count, read character by character). A word's start is
 * counted by arithmetic, not a branch: whether a character opens a word changes every few
 * characters, and a branch on it was mispredicted that often (3.98 against 2.47 ns a character).
 */
export function countWords(text: string): number {
  let n = 0;
  /** 1 after a word character, else 0. */
  let prev = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    let word: number;
    if (c < 0xd800 || c > 0xdbff || i + 1 === length) {
      let known = wordChars[c]!;
      if (known === 0) wordChars[c] = known = WORD_CHAR.test(String.fromCharCode(c)) ? 1 : 2;
      word = known & 1;
    } else {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        // A code point beyond the BMP: the regex (u flag) reads the pair as one character.
        word = WORD_CHAR.test(text.slice(i, i + 2)) ? 1 : 0;
        i++;
      } else word = 0;
    }
    n += word & ~prev;
    prev = word;
  }
  return n;
}

const WORD_CHAR = /^[\p{L}\p{N}_]$/u;
/** Per UTF-16 unit outside the surrogates: 0 not looked up yet, 1 a word character, 2 not. */
const wordChars = new Uint8Array(0x10000);
