// Reading finished markdown line by line, as the passes that give back what the writer escaped
// before it knew a piece's neighbours (literal-brackets.ts, literal-emphasis.ts) need: where a line's
// content starts, where fenced code runs, which backticks make code spans.

/** What opens a line before its content: indentation, quote and list item markers. */
export const CONTAINER = /^(?:\s|>|[-*+]\s|\d{1,9}[.)]\s)*/;
/** A fence, also inside a quote or opening a list item (`> ```js`, `- ~~~`). */
const FENCE = new RegExp(`${CONTAINER.source}(\`{3,}|~{3,})`);

/**
 * Calls `paragraph(start, end)` for each run of non-blank lines outside fenced code
 * (lines[start, end)), in order: the blocks whose inline content a reader parses as one.
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
    if (!line.trim()) flush(i);
    else if (start < 0) start = i;
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
