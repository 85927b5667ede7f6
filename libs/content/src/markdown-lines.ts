// Reading finished markdown line by line, as the passes that give back what the writer escaped
// before it knew a piece's neighbours (literal-brackets.ts, literal-emphasis.ts) need: where a line's
// content starts, where fenced code runs, which backticks make code spans.

/** What opens a line before its content: indentation, quote and list item markers. */
export const CONTAINER = /^(?:\s|>|[-*+]\s|\d{1,9}[.)]\s)*/;
/** A fence, also inside a quote or opening a list item (`> ```js`, `- ~~~`). */
const FENCE = new RegExp(`${CONTAINER.source}(\`{3,}|~{3,})`);

/** A line that opens a list item or is an ATX heading: a block of its own from there. */
const BLOCK_START = /^(?:[ \t]|>)*(?:[-*+][ \t]|\d{1,9}[.)][ \t]|(#{1,6})(?:[ \t]|$))/;

/**
 * Calls `paragraph(start, end)` for each run of non-blank lines outside fenced code
 * (lines[start, end)), in order: the blocks whose inline content a reader parses as one. A list
 * item starts a run of its own and a heading is one (the writer escapes a marker its text opens a
 * line with, so one written bare is the markdown's own).
 */
export function paragraphsOutsideFences(lines: string[], paragraph: (start: number, end: number) => void): void {
  let fence: string | null = null;
  let start = -1;
  const flush = (end: number): void => {
    if (start >= 0) paragraph(start, end);
    start = -1;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const opener = FENCE.exec(line);
    if (fence) {
      if (opener && opener[1]!.startsWith(fence)) fence = null;
      continue;
    }
    if (opener) {
      flush(i);
      fence = opener[1]![0]!.repeat(opener[1]!.length);
      continue;
    }
    if (!line.trim()) {
      flush(i);
      continue;
    }
    const block = BLOCK_START.exec(line);
    if (block) flush(i);
    if (start < 0) start = i;
    if (block?.[1]) flush(i + 1);
  }
  flush(lines.length);
}

/** Whether every backtick run of the line closes on it (a run of the same length later). */
export function backticksPair(line: string): boolean {
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

/** Where the code span opening at `at` ends (on a line whose backtick runs all pair up). */
export function pastCodeSpan(line: string, at: number): number {
  const n = runLength(line, at);
  return closingRun(line, at + n, n) + n;
}

/**
 * Each line of `md` that `mayHold` picks, outside fenced code, written again by `mend`; a
 * paragraph whose backticks do not pair up on a line is left as it is from there (a code span may
 * run over its lines, and what is code there cannot be told line by line).
 */
export function mendLinesOutsideFences(
  md: string,
  mayHold: (line: string) => boolean,
  mend: (line: string) => string,
): string {
  const lines = md.split('\n');
  let changed = false;
  paragraphsOutsideFences(lines, (start, end) => {
    for (let i = start; i < end; i++) {
      const line = lines[i]!;
      if (line.includes('`') && !backticksPair(line)) return;
      if (!mayHold(line)) continue;
      const mended = mend(line);
      if (mended !== line) {
        lines[i] = mended;
        changed = true;
      }
    }
  });
  return changed ? lines.join('\n') : md;
}

/** The line without the characters at `positions` (ascending): the backslashes of escapes given back. */
export function withoutCharsAt(line: string, positions: number[]): string {
  if (!positions.length) return line;
  let out = '';
  let from = 0;
  for (const at of positions) {
    out += line.slice(from, at);
    from = at + 1;
  }
  return out + line.slice(from);
}
