// Stars in a page's text (`Insurance*`, `up to 24x ROI*`, `(* Disclosure: …)`) are escaped as
// the text is written, since a text piece cannot see the rest of its paragraph: a star there could
// pair with one further on and make emphasis. Once the whole markdown is written, a paragraph in
// which no star can open emphasis before one that can close it has no emphasis to make, and its
// stars are given back as written (CommonMark 0.31, "Emphasis and strong emphasis": a `*` run opens
// only if it is left-flanking and closes only if it is right-flanking, and emphasis needs an
// opener before a closer in the same paragraph).

import { backticksPair, CONTAINER, paragraphsOutsideFences, pastCodeSpan } from './markdown-lines.js';

/**
 * `\*` written `*` in every paragraph whose star runs (the escaped ones as they would read
 * unescaped, and the markdown's own) cannot pair: no run that can open emphasis comes before one
 * that can close it. Left escaped: stars in a paragraph that could pair, a run mixing escaped and
 * unescaped stars, and a run that opens a line's content (a list item's marker, a thematic break).
 * A paragraph whose backticks do not pair up on each line is left as it is (what is code there
 * cannot be told line by line).
 */
export function unescapeLiteralStars(md: string): string {
  if (!md.includes('\\*')) return md;
  const lines = md.split('\n');
  let changed = false;
  paragraphsOutsideFences(lines, (start, end) => {
    if (mendParagraph(lines, start, end)) changed = true;
  });
  return changed ? lines.join('\n') : md;
}

interface StarRun {
  line: number;
  /** Where the run starts on its line (its first backslash for an escaped run) and ends. */
  from: number;
  to: number;
  escaped: boolean;
}

/** Unescapes the literal stars of lines[start, end) when none of its star runs can pair. */
function mendParagraph(lines: string[], start: number, end: number): boolean {
  const runs: StarRun[] = [];
  for (let l = start; l < end; l++) {
    const line = lines[l]!;
    if (line.includes('`') && !backticksPair(line)) return false;
    if (!line.includes('*')) continue;
    for (let i = 0; i < line.length;) {
      const c = line[i];
      if (c === '`') {
        i = pastCodeSpan(line, i);
        continue;
      }
      if (c !== '*' && !(c === '\\' && line[i + 1] === '*')) {
        i += c === '\\' ? 2 : 1;
        continue;
      }
      let j = i;
      let escapedStars = 0;
      let plainStars = 0;
      for (;;) {
        if (line[j] === '*') {
          plainStars++;
          j++;
        } else if (line[j] === '\\' && line[j + 1] === '*') {
          escapedStars++;
          j += 2;
        } else break;
      }
      if (escapedStars && plainStars) return false;
      runs.push({ line: l, from: i, to: j, escaped: escapedStars > 0 });
      i = j;
    }
  }
  if (!runs.some((r) => r.escaped)) return false;
  // Any opener before any closer: the paragraph could hold emphasis, and stays as written. Read
  // by CommonMark 0.31's punctuation (symbols included) and by 0.30's (P only), so that a reader
  // of either finds none.
  for (const punctuation of [PUNCTUATION, PUNCTUATION_030]) {
    let openerSeen = false;
    for (const run of runs) {
      const line = lines[run.line]!;
      const before = charBefore(line, run.from);
      const after = charAt(line, run.to);
      if (openerSeen && flanking(before, after, punctuation)) return false;
      if (flanking(after, before, punctuation)) openerSeen = true;
    }
  }
  // Each line rebuilt once (a hostile line holds thousands of runs): cut at every `\*` in it,
  // each cut written back as it was or as a bare star.
  let changed = false;
  for (let r = 0; r < runs.length;) {
    const l = runs[r]!.line;
    const line = lines[l]!;
    const lineStart = CONTAINER.exec(line)![0].length;
    const bare = new Set<number>();
    for (; r < runs.length && runs[r]!.line === l; r++) {
      const run = runs[r]!;
      if (run.escaped && run.from !== lineStart) for (let at = run.from; at < run.to; at += 2) bare.add(at);
    }
    if (!bare.size) continue;
    const pieces = line.split('\\*');
    let out = pieces[0]!;
    let piece = 1;
    // The cuts split() made, in order: every backslash followed by a star (also one that ends an
    // escaped backslash, `\\*`; bare holds only the escapes of stars).
    for (let at = 0; at < line.length - 1; at++) {
      if (line.charCodeAt(at) !== 92 || line.charCodeAt(at + 1) !== 42) continue;
      out += (bare.has(at) ? '*' : '\\*') + pieces[piece++]!;
    }
    lines[l] = out;
    changed = true;
  }
  return changed;
}

/** CommonMark's Unicode whitespace (a line's ends count as whitespace). */
const WHITESPACE = /^[\s\p{Zs}]$/u;
/** CommonMark 0.31's Unicode punctuation: the P and S categories (ASCII punctuation among them). */
const PUNCTUATION = /^[\p{P}\p{S}]$/u;
/** CommonMark 0.30's: ASCII punctuation and the P categories. */
const PUNCTUATION_030 = /^[\p{P}!-/:-@[-`{-~]$/u;

/**
 * Whether a run is right-flanking, given the characters before and after it; with the two
 * swapped, whether it is left-flanking. Right-flanking: not preceded by whitespace, and not by
 * punctuation unless whitespace or punctuation follows. A `*` run closes emphasis only if it is
 * right-flanking and opens it only if it is left-flanking.
 */
const flanking = (before: string, after: string, punctuation: RegExp): boolean =>
  !WHITESPACE.test(before) && (!punctuation.test(before) || WHITESPACE.test(after) || punctuation.test(after));

/** The character (a whole code point) before `at`, or a line's end. */
function charBefore(line: string, at: number): string {
  if (at === 0) return '\n';
  const low = line.charCodeAt(at - 1);
  if (low >= 0xdc00 && low <= 0xdfff && at >= 2) {
    const high = line.charCodeAt(at - 2);
    if (high >= 0xd800 && high <= 0xdbff) return line.slice(at - 2, at);
  }
  return line[at - 1]!;
}

/** The character (a whole code point) at `at`, or a line's end. */
const charAt = (line: string, at: number): string =>
  at < line.length ? String.fromCodePoint(line.codePointAt(at)!) : '\n';
