// Plain text of a cleaned subtree: inline text joined with single spaces, blocks separated by
// blank lines, list items and table rows on lines of their own, <pre> kept as written.

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

class TextBuilder {
  private out: string[] = [];
  private pending = 0; // 0 nothing, 1 line break, 2 blank line
  private needSpace = false;

  break(level: 1 | 2): void {
    if (this.out.length) this.pending = Math.max(this.pending, level);
    this.needSpace = false;
  }

  inline(raw: string): void {
    const collapsed = raw.replace(/\s+/g, ' ');
    if (collapsed === ' ' || collapsed === '') {
      if (collapsed === ' ' && this.out.length) this.needSpace = true;
      return;
    }
    const lead = collapsed.startsWith(' ');
    const text = collapsed.trim();
    this.flushBreak();
    if ((lead || this.needSpace) && this.out.length && !this.atLineStart()) this.out.push(' ');
    this.out.push(text);
    this.needSpace = collapsed.endsWith(' ');
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
  const visit = (el: Element): void => {
    const tag = el.localName;
    if (SKIP.has(tag)) return;
    if (tag === 'br') return b.break(1);
    if (tag === 'pre') {
      b.break(2);
      b.verbatim(el.textContent ?? '');
      return b.break(2);
    }
    if (tag === 'img') {
      return;
    }
    const level = PARAGRAPH.has(tag) ? 2 : LINE.has(tag) ? 1 : 0;
    if (level) b.break(level);
    if (CELL.has(tag)) b.cellGap();
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3) b.inline((n as Text).data);
      else if (n.nodeType === 1) visit(n as Element);
    }
    if (level) b.break(level);
    if (CELL.has(tag)) b.cellGap();
  };
  for (const root of roots) {
    visit(root);
    b.break(2);
  }
  return b.toString().trim();
}

/** Runs of [\p{L}\p{N}_] (the regex's count, read character by character). */
export function countWords(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let word: boolean;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        // A code point beyond the BMP: the regex (u flag) reads the pair as one character.
        word = WORD_CHAR.test(text.slice(i, i + 2));
        i++;
      } else word = false;
    } else {
      let known = wordChars[c]!;
      if (known === 0) wordChars[c] = known = WORD_CHAR.test(String.fromCharCode(c)) ? 1 : 2;
      word = known === 1;
    }
    if (word && !inWord) n++;
    inWord = word;
  }
  return n;
}

const WORD_CHAR = /^[\p{L}\p{N}_]$/u;
/** Per UTF-16 unit outside the surrogates: 0 not looked up yet, 1 a word character, 2 not. */
const wordChars = new Uint8Array(0x10000);
