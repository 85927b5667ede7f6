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

const WORD = /[\p{L}\p{N}_]+/gu;

export function countWords(text: string): number {
  let n = 0;
  WORD.lastIndex = 0;
  while (WORD.exec(text)) n++;
  return n;
}
