// A text that opens a line of the output as it is written has its line markers escaped (`1\.`,
// `\-`, `\+`, `\>`): read there they would start a list or a quote. What the writer adds around
// it afterwards can leave the escape inside a line: a heading's `### ` and a strong's `**` are
// put before their text once it is written, and inline runs are joined. Inside a line these
// characters are text, so once the whole markdown is written an escape that does not stand at
// the start of a line's content (after its quote and list markers) is given back as written:
// `### 1. Start`, `**2. How often**`, `| 3. step |`.

import { CONTAINER, mendLinesOutsideFences, pastCodeSpan, withoutCharsAt } from './markdown-lines.js';

/** Escapes the writer's line-start pass makes that this pass may give back. */
const MAY_HOLD = /\\[-+>.)]/;

/**
 * `1\.`, `1\)`, `\-`, `\+`, `\>` written bare where they do not open a line's content, outside
 * code (fences and code spans). Left alone: an escaped backslash before one (`\\-` is a
 * backslash and a dash), a number's marker whose digits do not start it (`2024\.` in a
 * longer number) and every other escape. A heading's `#`, a setext or thematic rule and a fence
 * keep their escapes wherever they are (a heading's closing `#`s would be read as its end).
 */
export function unescapeInlineLineMarkers(md: string): string {
  if (!MAY_HOLD.test(md)) return md;
  return mendLinesOutsideFences(md, (line) => MAY_HOLD.test(line), mendLine);
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

function mendLine(line: string): string {
  const contentStart = CONTAINER.exec(line)![0].length;
  /** Positions of the backslashes to drop. */
  const drop: number[] = [];
  for (let i = 0; i < line.length;) {
    const c = line[i];
    if (c === '`') {
      i = pastCodeSpan(line, i);
      continue;
    }
    if (c !== '\\') {
      i++;
      continue;
    }
    // An escape: this backslash and the character after it (an escaped backslash is skipped
    // whole, so the backslash reached here is never itself escaped).
    const next = line[i + 1];
    if (i > contentStart && (next === '-' || next === '+' || next === '>')) drop.push(i);
    else if (next === '.' || next === ')') {
      let digits = i;
      while (digits > 0 && isDigit(line[digits - 1])) digits--;
      // A list's number: 1 to 9 digits, nothing but them before the marker since the last
      // non-digit; given back when they do not open the line's content.
      if (digits < i && i - digits <= 9 && digits !== contentStart) drop.push(i);
    }
    i += 2;
  }
  return withoutCharsAt(line, drop);
}
