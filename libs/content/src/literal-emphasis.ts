// Stars, underscores and tildes in a page's text (`Insurance*`, `up to 24x ROI*`, `(* Disclosure: …)`,
// `_Float16`, `x.com/handle_/status`, `~div`) are escaped as the text is written, since a text piece
// cannot see the rest of its paragraph: a delimiter there could pair with one further on and make
// emphasis. Once the whole markdown is written, a paragraph in which no run of that delimiter can
// open emphasis before one that can close it has no emphasis of it to make, and its escaped runs
// are given back as written (CommonMark 0.31, "Emphasis and strong emphasis": a `*` run opens only
// if it is left-flanking and closes only if it is right-flanking; a `_` run opens only if it is
// left-flanking and either not right-flanking or preceded by punctuation, and closes only if it is
// right-flanking and either not left-flanking or followed by punctuation; emphasis needs an opener
// before a closer of the same character in the same paragraph).

import { backticksPair, CONTAINER, paragraphsOutsideFences, pastCodeSpan } from './markdown-lines.js';

/**
 * `\*` written `*` in every paragraph whose star runs (the escaped ones as they would read
 * unescaped, and the markdown's own) cannot pair: no run that can open emphasis comes before one
 * that can close it. Left escaped: stars in a paragraph that could pair, a run mixing escaped and
 * unescaped stars, and a run that opens a line's content (a list item's marker, a thematic break).
 * A paragraph whose backticks do not pair up on each line is left as it is (what is code there
 * cannot be told line by line).
 */
export const unescapeLiteralStars = (md: string): string => unescapeLiteral(md, '*');

/** `\_` written `_` in every paragraph whose underscore runs cannot pair, as unescapeLiteralStars. */
export const unescapeLiteralUnderscores = (md: string): string => unescapeLiteral(md, '_');

/**
 * `\~` written `~` in every paragraph whose tilde runs cannot make a strikethrough, as
 * unescapeLiteralStars: GFM (micromark, cmark-gfm) strikes through between runs of one or two
 * tildes, an opener flanking as a star's does; a longer run is text. "~120 ms to ~15 ms" cannot;
 * "~div" in one text and "3~x" in the next, with a `~~` strikethrough between, could.
 */
export const unescapeLiteralTildes = (md: string): string => unescapeLiteral(md, '~');

type Delimiter = '*' | '_' | '~';

function unescapeLiteral(md: string, delimiter: Delimiter): string {
  if (!md.includes(`\\${delimiter}`)) return md;
  const lines = md.split('\n');
  let changed = false;
  paragraphsOutsideFences(lines, (start, end) => {
    if (mendParagraph(lines, start, end, delimiter)) changed = true;
  });
  return changed ? lines.join('\n') : md;
}

interface DelimiterRun {
  line: number;
  /** Where the run starts on its line (its first backslash for an escaped run) and ends. */
  from: number;
  to: number;
  escaped: boolean;
  /** How many delimiters it holds. */
  count: number;
}

/** Unescapes the literal delimiters of lines[start, end) when none of its runs of them can pair. */
function mendParagraph(lines: string[], start: number, end: number, delimiter: Delimiter): boolean {
  const escape = `\\${delimiter}`;
  const runs: DelimiterRun[] = [];
  for (let l = start; l < end; l++) {
    const line = lines[l]!;
    if (line.includes('`') && !backticksPair(line)) return false;
    if (!line.includes(delimiter)) continue;
    let noParen = false;
    let noAngle = false;
    for (let i = 0; i < line.length;) {
      const c = line[i];
      if (c === '`') {
        i = pastCodeSpan(line, i);
        continue;
      }
      // A link's destination and an autolink are no inline content ("…#:~:text=…", "/~user/").
      // Once a line has no closing character left, it is not looked for again (a hostile line's
      // thousands of openers read it once).
      if (
        (c === ']' && line[i + 1] === '(' && !noParen) ||
        (c === '<' && !noAngle && AUTOLINK_OPEN.test(line.slice(i, i + 40)))
      ) {
        const end = line.indexOf(c === ']' ? ')' : '>', i + 2);
        if (end > 0) {
          i = end + 1;
          continue;
        }
        if (c === ']') noParen = true;
        else noAngle = true;
      }
      if (c !== delimiter && !(c === '\\' && line[i + 1] === delimiter)) {
        i += c === '\\' ? 2 : 1;
        continue;
      }
      let j = i;
      let escapedOnes = 0;
      let plainOnes = 0;
      for (;;) {
        if (line[j] === delimiter) {
          plainOnes++;
          j++;
        } else if (line[j] === '\\' && line[j + 1] === delimiter) {
          escapedOnes++;
          j += 2;
        } else break;
      }
      if (escapedOnes && plainOnes) return false;
      runs.push({ line: l, from: i, to: j, escaped: escapedOnes > 0, count: escapedOnes + plainOnes });
      i = j;
    }
  }
  if (!runs.some((r) => r.escaped)) return false;
  // Any opener before any closer: the paragraph could hold emphasis, and stays as written. Read
  // by CommonMark 0.31's punctuation (symbols included), by 0.30's (P only) and as micromark reads
  // GFM, so that a reader of any finds none.
  for (const reading of READINGS) {
    let openerSeen = false;
    for (const run of runs) {
      if (delimiter === '~' && run.count > 2) continue;
      const line = lines[run.line]!;
      const before = charBefore(line, run.from);
      const after = charAt(line, run.to);
      if (openerSeen && canClose(delimiter, before, after, reading)) return false;
      if (canOpen(delimiter, before, after, reading)) openerSeen = true;
    }
  }
  // Each line rebuilt once (a hostile line holds thousands of runs): cut at every escaped
  // delimiter in it, each cut written back as it was or bare.
  let changed = false;
  for (let r = 0; r < runs.length;) {
    const l = runs[r]!.line;
    const line = lines[l]!;
    const lineStart = CONTAINER.exec(line)![0].length;
    const bare = new Set<number>();
    for (; r < runs.length && runs[r]!.line === l; r++) {
      const run = runs[r]!;
      if (run.escaped && (run.from !== lineStart || opensLineAsText(line, run, delimiter)))
        for (let at = run.from; at < run.to; at += 2) bare.add(at);
    }
    if (!bare.size) continue;
    const pieces = line.split(escape);
    let out = pieces[0]!;
    let piece = 1;
    // The cuts split() made, in order: every backslash followed by the delimiter (also one that
    // ends an escaped backslash, `\\*`; bare holds only the escapes of delimiters).
    const code = delimiter.charCodeAt(0);
    for (let at = 0; at < line.length - 1; at++) {
      if (line.charCodeAt(at) !== 92 || line.charCodeAt(at + 1) !== code) continue;
      out += (bare.has(at) ? delimiter : escape) + pieces[piece++]!;
    }
    lines[l] = out;
    changed = true;
  }
  return changed;
}

/**
 * Whether an escaped run that opens a line's content would read as text there: not a list item's
 * marker (one star before a blank or the line's end), not a thematic break (a line of three or
 * more of the delimiter and blanks alone) and not a fence (three tildes or more). Footnote
 * marks `** Color may vary` open lines so.
 */
function opensLineAsText(line: string, run: DelimiterRun, delimiter: Delimiter): boolean {
  const count = (run.to - run.from) / 2;
  if (delimiter === '~') return count < 3;
  const rest = line.slice(run.to);
  if (delimiter === '*' && count === 1 && /^(?:[ \t]|$)/.test(rest)) return false;
  return (delimiter === '*' ? STAR_LINE_TEXT : UNDERSCORE_LINE_TEXT).test(rest);
}
/** A character that no thematic break of stars (or underscores) holds. */
const STAR_LINE_TEXT = /[^\s\\*]/;
const UNDERSCORE_LINE_TEXT = /[^\s\\_]/;

/** The opening of an autolink, `<scheme:`: the writer escapes a `<` its text holds before a letter. */
const AUTOLINK_OPEN = /^<[A-Za-z][A-Za-z0-9+.-]{1,31}:/;

/** CommonMark's Unicode whitespace (a line's ends count as whitespace). */
const WHITESPACE = /^[\s\p{Zs}]$/u;
/** CommonMark 0.31's Unicode punctuation: the P and S categories (ASCII punctuation among them). */
const PUNCTUATION = /^[\p{P}\p{S}]$/u;
/** CommonMark 0.30's: ASCII punctuation and the P categories. */
const PUNCTUATION_030 = /^[\p{P}!-/:-@[-`{-~]$/u;

interface Reading {
  punctuation: RegExp;
  /**
   * A character next to which a run flanks whatever else is around it: micromark (GFM) lets a run
   * followed by `~` open and one preceded by `~` close, so that `*~~a~~*` is emphasis; by
   * CommonMark alone `x*y~~*a` holds none, and micromark renders it `x<em>y~~</em>a`.
   */
  marker?: string;
}
const READINGS: Reading[] = [
  { punctuation: PUNCTUATION },
  { punctuation: PUNCTUATION_030 },
  { punctuation: PUNCTUATION, marker: '~' },
];

/**
 * Whether a run is right-flanking, given the characters before and after it; with the two
 * swapped, whether it is left-flanking. Right-flanking: not preceded by whitespace, and not by
 * punctuation unless whitespace or punctuation follows; or preceded by the reading's marker.
 */
const flanking = (before: string, after: string, { punctuation, marker }: Reading): boolean =>
  (!WHITESPACE.test(before) && (!punctuation.test(before) || WHITESPACE.test(after) || punctuation.test(after))) ||
  before === marker;

/** Whether a run of the delimiter can open emphasis (left-flanking; for `_` also see the header). */
const canOpen = (delimiter: Delimiter, before: string, after: string, reading: Reading): boolean =>
  flanking(after, before, reading) &&
  (delimiter !== '_' || !flanking(before, after, reading) || reading.punctuation.test(before));

/** Whether a run of the delimiter can close emphasis (right-flanking; for `_` also see the header). */
const canClose = (delimiter: Delimiter, before: string, after: string, reading: Reading): boolean =>
  flanking(before, after, reading) &&
  (delimiter !== '_' || !flanking(after, before, reading) || reading.punctuation.test(after));

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
