// Brackets in a page's text (`[1]`, `[citation needed]`, `[Updated]`) are escaped as the text is
// written, since a text piece cannot see what follows it: `[note]` then `(see)` would make a link.
// Once the whole markdown is written, what follows each pair is known, and a pair that no
// CommonMark or GFM reader could take for syntax is given back as written. The markdown never
// defines a link reference (a line opening with `[x]:` keeps its escapes), so a bracketed text is
// syntax only when it opens an inline link or image, is a task list's box, or a footnote.

/**
 * `\[x\]` written `[x]` wherever that reads as the same text: outside code (fences and code
 * spans), not followed by `(` or `[`, nor by `:` at a line's start, not after `!`, not holding a
 * bracket of its own, and not `[ ]`, `[x]`, `[X]` (a task box at an item's start) or `[^…]` (a
 * footnote).
 */
export function unescapeLiteralBrackets(md: string): string {
  if (!md.includes('\\[')) return md;
  const lines = md.split('\n');
  let fence: string | null = null;
  let changed = false;
  // A paragraph whose backticks do not pair up on each line is left as it is: a code span may
  // run over its lines, and what is code there cannot be told line by line.
  let unsure = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const opener = FENCE.exec(line);
    if (fence) {
      if (opener && opener[1]!.startsWith(fence)) fence = null;
      continue;
    }
    if (opener) {
      fence = opener[1]![0]!.repeat(opener[1]!.length);
      continue;
    }
    if (!line.trim()) {
      unsure = false;
      continue;
    }
    if (!unsure && line.includes('`') && !backticksPair(line)) unsure = true;
    if (unsure || !line.includes('\\[')) continue;
    const mended = mendLine(line);
    if (mended !== line) {
      lines[i] = mended;
      changed = true;
    }
  }
  return changed ? lines.join('\n') : md;
}

/** Whether every backtick run of the line closes on it (a run of the same length later). */
function backticksPair(line: string): boolean {
  for (let i = 0; i < line.length;) {
    if (line[i] === '\\') {
      i += 2;
      continue;
    }
    if (line[i] !== '`') {
      i++;
      continue;
    }
    const n = runLength(line, i);
    const close = closingRun(line, i + n, n);
    if (close < 0) return false;
    i = close + n;
  }
  return true;
}

const runLength = (line: string, at: number): number => {
  let n = 0;
  while (line[at + n] === '`') n++;
  return n;
};

/** Where a backtick run of exactly `n` starts at or after `from`, or -1. */
function closingRun(line: string, from: number, n: number): number {
  for (let i = from; i < line.length;) {
    if (line[i] !== '`') {
      i++;
      continue;
    }
    const m = runLength(line, i);
    if (m === n) return i;
    i += m;
  }
  return -1;
}

const TASK_BOX = /^[ xX]$/;
/** What opens a line before its content: indentation, quote and list item markers. */
const CONTAINER = /^(?:\s|>|[-*+]\s|\d{1,9}[.)]\s)*/;
/** A fence, also inside a quote or opening a list item (`> ```js`, `- ~~~`). */
const FENCE = /^(?:\s|>|[-*+]\s|\d{1,9}[.)]\s)*(`{3,}|~{3,})/;

function mendLine(line: string): string {
  const drop: number[] = [];
  let open = -1;
  for (let i = 0; i < line.length;) {
    const c = line[i];
    if (c === '`') {
      // A code span (every run pairs up on this line): its contents are literal.
      const n = runLength(line, i);
      i = closingRun(line, i + n, n) + n;
      open = -1;
      continue;
    }
    if (c === '[' || c === ']') {
      // Syntax of the markdown's own (a link): no escaped pair spans it.
      open = -1;
      i++;
      continue;
    }
    if (c !== '\\') {
      i++;
      continue;
    }
    const next = line[i + 1];
    if (next === '[') open = i;
    else if (next === ']' && open >= 0) {
      const inner = line.slice(open + 2, i);
      const after = line[i + 2];
      const literal =
        inner.length > 0 &&
        !TASK_BOX.test(inner) &&
        !inner.startsWith('^') &&
        line[open - 1] !== '!' &&
        after !== '(' &&
        after !== '[' &&
        // `[x]: …` defines a link only at a line's start (after a quote's or an item's marker).
        !(after === ':' && open === CONTAINER.exec(line)![0].length);
      if (literal) drop.push(open, i);
      open = -1;
    }
    i += 2;
  }
  if (!drop.length) return line;
  let out = '';
  let from = 0;
  for (const at of drop) {
    out += line.slice(from, at);
    from = at + 1;
  }
  return out + line.slice(from);
}
