// Brackets in a page's text (`[1]`, `[citation needed]`, `[Updated]`) are escaped as the text is
// written, since a text piece cannot see what follows it: `[note]` then `(see)` would make a link.
// Once the whole markdown is written, what follows each pair is known, and a pair that no
// CommonMark or GFM reader could take for syntax is given back as written. The markdown never
// defines a link reference (a line opening with `[x]:` keeps its escapes), so a bracketed text is
// syntax only when it opens an inline link or image, is a task list's box, or a footnote.

import { CONTAINER, mendLinesOutsideFences, pastCodeSpan, withoutCharsAt } from './markdown-lines.js';

/**
 * `\[x\]` written `[x]` wherever that reads as the same text: outside code (fences and code
 * spans), not followed by `(` or `[`, nor by `:` at a line's start, not after `!`, not `[ ]`,
 * `[x]`, `[X]` (a task box at an item's start) or `[^…]` (a footnote), and holding whole links
 * only (CommonMark pairs a closing bracket with the nearest opener, and a link turns the
 * brackets before it into text, so `[see [the guide](…)]` shows its outer brackets as text).
 */
export function unescapeLiteralBrackets(md: string): string {
  if (!md.includes('\\[')) return md;
  return mendLinesOutsideFences(md, (line) => line.includes('\\['), mendLine);
}

const TASK_BOX = /^[ xX]$/;
function mendLine(line: string): string {
  const drop: number[] = [];
  // Escaped openers not yet closed, each with the depth of the markdown's own brackets (a
  // link's) where it stands and the lowest that depth fell to since. Only the innermost's low is
  // kept up to date; a closed pair hands its low to the one around it, so each character is
  // read once however many openers wait (a hostile page's thousands).
  const opens: { at: number; depth: number; low: number }[] = [];
  let depth = 0;
  for (let i = 0; i < line.length;) {
    const c = line[i];
    if (c === '`') {
      // A code span (every run pairs up on this line): its contents are literal.
      i = pastCodeSpan(line, i);
      continue;
    }
    if (c === '[') depth++;
    else if (c === ']') {
      depth--;
      const inner = opens[opens.length - 1];
      if (inner && depth < inner.low) inner.low = depth;
    }
    if (c !== '\\') {
      i++;
      continue;
    }
    const next = line[i + 1];
    if (next === '[') opens.push({ at: i, depth, low: depth });
    else if (next === ']' && opens.length) {
      const open = opens.pop()!;
      const outer = opens[opens.length - 1];
      if (outer && open.low < outer.low) outer.low = open.low;
      const inner = line.slice(open.at + 2, i);
      const after = line[i + 2];
      // A link's bracket that opened before the pair and closes inside it (low below the pair's
      // depth), or one that opens inside and closes after it: written as it is, the pair would
      // take that bracket for its own.
      const literal =
        open.low === open.depth &&
        depth === open.depth &&
        inner.length > 0 &&
        !TASK_BOX.test(inner) &&
        !inner.startsWith('^') &&
        line[open.at - 1] !== '!' &&
        after !== '(' &&
        after !== '[' &&
        // `[x]: …` defines a link only at a line's start (after a quote's or an item's marker).
        !(after === ':' && open.at === CONTAINER.exec(line)![0].length);
      if (literal) drop.push(open.at, i);
    }
    i += 2;
  }
  drop.sort((a, b) => a - b);
  return withoutCharsAt(line, drop);
}
