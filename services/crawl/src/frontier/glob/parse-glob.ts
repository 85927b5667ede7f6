import type { Check, GlobNode } from './glob-nfa.js';

/**
 * A glob as a regular-expression tree, by picomatch 4's rules with `{ dot: true }` (the rules
 * crawl scopes have used since they were written: docs/decisions.md, "Globs"), for the syntax
 * a scope glob has: literal characters, `/`, `?`, `*`, `**`, `[...]` classes and `{a,b}`
 * alternatives (nested, with `/` inside). picomatch's parser is followed token by token, so its
 * particular answers stay (`/a/*` matches `/a/x/`; `/**` + `/x` needs a segment between; `*`
 * alone in a segment needs a character); test/glob.spec.ts compares the two on a large table.
 *
 * Where picomatch hands the text to the regex engine, Tidemark reads characters as themselves:
 * `(`, `)`, `|`, `+`, `@`, `!`, `"`, `$`, `^` and a backslash before a letter or digit are
 * literal (no groups, extglobs, quotes or regex escapes), `{1..3}` is the literal text (no
 * ranges), an unclosed `{` is a literal `{`, `[!a]` is negated like `[^a]`, and a class never
 * matches `/` nor its own bracketed text.
 */
export const parseGlob = (input: string): GlobNode => {
  const replaced = REPLACEMENTS[input] ?? input;
  const fast = replaced[0] === '*' || replaced[0] === '.' ? fastPath(replaced) : null;
  return fast ?? new GlobParser(replaced).parse();
};

const REPLACEMENTS: Record<string, string> = { '***': '*', '**/**': '**', '**/**/**': '**' };

// ---- building blocks (picomatch's constants as trees) ------------------------------------

const char = (c: string): GlobNode => ({ kind: 'char', code: c.charCodeAt(0) });
const text = (s: string): GlobNode[] =>
  Array.from({ length: s.length }, (_, i) => ({ kind: 'char', code: s.charCodeAt(i) }));
const check = (c: Check): GlobNode => ({ kind: 'check', check: c });
const seq = (...items: GlobNode[]): GlobNode => ({ kind: 'seq', items });
const alt = (...items: GlobNode[]): GlobNode => ({ kind: 'alt', items });
const NOT_SLASH: GlobNode = { kind: 'set', negated: true, ranges: [[0x2f, 0x2f]] };
/** STAR `[^/]*?`. */
const STAR: GlobNode = { kind: 'repeat', item: NOT_SLASH };
/** The globstar `(?:(?!(?:^|\/)\.{1,2}(?:\/|$)).)*?`: anything, no `.`/`..` segment. */
const GLOBSTAR: GlobNode = { kind: 'repeat', item: seq(check('no_dots_after_slash'), { kind: 'any' }) };
const SLASH = char('/');
const MAYBE_SLASH: GlobNode = { kind: 'optional', item: SLASH };

/**
 * parse.fastpaths: whole patterns picomatch writes out directly (`**`, `**` + `/*`, + `/*.*`,
 * + `/.*`, each optionally followed by `.ext`), always with an optional trailing slash.
 */
const fastPath = (input: string): GlobNode | null => {
  const create = (s: string): GlobNode[] | null => {
    const leading = (): GlobNode => ({ kind: 'optional', item: seq(check('no_dots_after_slash'), GLOBSTAR, SLASH) });
    switch (s) {
      case '**':
        return [check('no_dots_after_slash'), GLOBSTAR];
      case '**/*':
        return [leading(), check('no_dots_segment'), check('one_char'), STAR];
      case '**/*.*':
        return [leading(), check('no_dots_segment'), STAR, char('.'), check('one_char'), STAR];
      case '**/.*':
        return [leading(), char('.'), check('one_char'), STAR];
      default: {
        const m = /^(.*?)\.(\w+)$/.exec(s);
        if (!m) return null;
        const source = create(m[1]!);
        return source ? [...source, char('.'), ...text(m[2]!)] : null;
      }
    }
  };
  const source = create(input);
  return source ? seq(...source, MAYBE_SLASH) : null;
};

// ---- the token parser ---------------------------------------------------------------------

type TokenType = 'bos' | 'text' | 'slash' | 'dot' | 'qmark' | 'star' | 'globstar' | 'bracket' | 'brace' | 'comma';

/** Brace structure travels as markers in the token output until the tree is built. */
type Piece = GlobNode | { kind: 'open' } | { kind: 'bar' } | { kind: 'close' };

interface Token {
  type: TokenType;
  out: Piece[];
  prev?: Token;
  /** A run of three stars or more. */
  run?: boolean;
}

interface OpenBrace {
  token: Token;
  commas: Token[];
}

const SPECIAL = new Set(['\\', '[', ']', '{', '}', ',', '/', '.', '?', '*']);

class GlobParser {
  private index = -1;
  private readonly tokens: Token[];
  private prev: Token;
  private readonly braces: OpenBrace[] = [];

  constructor(private readonly input: string) {
    const bos: Token = { type: 'bos', out: [] };
    this.tokens = [bos];
    this.prev = bos;
  }

  private eos = () => this.index === this.input.length - 1;
  private peek = (n = 1) => this.input[this.index + n];
  private advance = () => this.input[++this.index] ?? '';
  private remaining = () => this.input.slice(this.index + 1);

  private push(tok: Token): void {
    const prev = this.prev;
    if (prev.type === 'globstar') {
      // A globstar not followed by a slash (or the end of an alternative) is a star after all.
      const inBrace = this.braces.length > 0 && (tok.type === 'comma' || tok.type === 'brace');
      if (tok.type !== 'slash' && !inBrace) {
        prev.type = 'star';
        prev.out = [STAR];
      }
    }
    if (prev.type === 'text' && tok.type === 'text') {
      prev.out.push(...tok.out);
      return;
    }
    tok.prev = prev;
    this.tokens.push(tok);
    this.prev = tok;
  }

  parse(): GlobNode {
    while (!this.eos()) {
      const value = this.advance();
      if (value === '\\') this.escape();
      else if (value === '[') this.bracket();
      else if (value === '{') this.openBrace();
      else if (value === '}') this.closeBrace();
      else if (value === ',') this.comma();
      else if (value === '/') this.push({ type: 'slash', out: [SLASH] });
      else if (value === '.') {
        const segmentStart = this.prev.type === 'bos' || this.prev.type === 'slash' || this.braces.length > 0;
        this.push({ type: segmentStart ? 'dot' : 'text', out: [char('.')] });
      } else if (value === '?') this.push({ type: 'qmark', out: [NOT_SLASH] });
      else if (value === '*') this.star();
      else {
        let run = value;
        while (this.index + 1 < this.input.length && !SPECIAL.has(this.input[this.index + 1]!)) run += this.advance();
        this.push({ type: 'text', out: text(run) });
      }
    }
    // An unclosed brace is literal text (picomatch would never match at all).
    while (this.braces.length) this.literalBrace(this.braces.pop()!, null);
    if (this.prev.type === 'star' || this.prev.type === 'bracket') this.push({ type: 'text', out: [MAYBE_SLASH] });
    return build(this.tokens.flatMap((t) => t.out));
  }

  /** `\x`: x itself; before `/`, `.` or `;` the backslash is dropped and x read as usual. */
  private escape(): void {
    const next = this.peek();
    if (next === '/' || next === '.' || next === ';') return;
    if (next === undefined) {
      this.push({ type: 'text', out: [char('\\')] });
      return;
    }
    this.push({ type: 'text', out: [char(this.advance())] });
  }

  /**
   * `[...]`: one character of a class (ranges, `^` or `!` to negate, `\` escapes, `]` first is
   * a member). Without a closing `]` later, `[` is literal.
   */
  private bracket(): void {
    if (!this.remaining().includes(']')) {
      this.push({ type: 'bracket', out: [char('[')] });
      return;
    }
    const members: number[] = [];
    let negated = false;
    if (this.peek() === '^' || this.peek() === '!') {
      negated = true;
      this.advance();
    }
    let first = true;
    for (;;) {
      let c = this.advance();
      if (c === '') break;
      if (c === ']' && !first) break;
      first = false;
      if (c === '\\' && this.index + 1 < this.input.length) c = this.advance();
      members.push(c.charCodeAt(0));
    }
    const ranges: [number, number][] = [];
    for (let i = 0; i < members.length; i++) {
      if (members[i + 1] === 0x2d && i + 2 < members.length) {
        ranges.push([members[i]!, members[i + 2]!]);
        i += 2;
      } else ranges.push([members[i]!, members[i]!]);
    }
    // A class never matches "/" (picomatch's negated classes say so; its others could).
    const set: GlobNode = negated
      ? { kind: 'set', negated: true, ranges: [...ranges, [0x2f, 0x2f]] }
      : notSlashAnd(ranges);
    this.push({ type: 'bracket', out: [set] });
  }

  private openBrace(): void {
    const token: Token = { type: 'brace', out: [{ kind: 'open' }] };
    this.braces.push({ token, commas: [] });
    this.push(token);
  }

  private closeBrace(): void {
    const brace = this.braces.at(-1);
    if (!brace) {
      this.push({ type: 'text', out: [char('}')] });
      return;
    }
    // Pushed while the brace is still open: a globstar ending an alternative stays one.
    const token: Token = { type: 'brace', out: [{ kind: 'close' }] };
    this.push(token);
    this.braces.pop();
    if (!brace.commas.length) this.literalBrace(brace, token);
  }

  /** A brace without a comma (or never closed) is literal: its markers become characters. */
  private literalBrace(brace: OpenBrace, close: Token | null): void {
    brace.token.out = [char('{')];
    if (close) close.out = [char('}')];
    for (const comma of brace.commas) comma.out = [char(',')];
  }

  private comma(): void {
    const brace = this.braces.at(-1);
    if (brace) {
      const token: Token = { type: 'comma', out: [{ kind: 'bar' }] };
      brace.commas.push(token);
      this.push(token);
    } else this.push({ type: 'text', out: [char(',')] });
  }

  private star(): void {
    const prev = this.prev;
    if (prev.type === 'globstar' || prev.run) {
      // Three stars or more in a row are one star.
      prev.type = 'star';
      prev.out = [STAR];
      prev.run = true;
      return;
    }
    if (prev.type === 'star' && prev.prev) {
      this.secondStar(prev, prev.prev);
      return;
    }
    if (this.index === 0 || prev.type === 'slash' || prev.type === 'dot') {
      prev.out.push(check(prev.type === 'dot' ? 'no_dot_or_empty_segment' : 'no_dots_segment'));
      if (this.peek() !== '*') prev.out.push(check('one_char'));
    }
    this.push({ type: 'star', out: [STAR] });
  }

  /** The second star of `**`: a globstar when it makes a whole segment, else one star. */
  private secondStar(prev: Token, prior: Token): void {
    const isStart = prior.type === 'slash' || prior.type === 'bos';
    const before = prior.prev;
    const afterStar = before !== undefined && (before.type === 'star' || before.type === 'globstar');
    const inBrace = this.braces.length > 0 && (prior.type === 'comma' || prior.type === 'brace');
    if (!isStart && !inBrace) {
      this.push({ type: 'star', out: [] });
      return;
    }
    let rest = this.remaining();
    // `/**/**` is one globstar.
    while (rest.slice(0, 3) === '/**') {
      const after = this.input[this.index + 4];
      if (after && after !== '/') break;
      rest = rest.slice(3);
      this.index += 3;
    }
    const bos = this.tokens[0]!;
    if (prior.type === 'bos' && this.eos()) {
      prev.type = 'globstar';
      prev.out = [GLOBSTAR];
      bos.out = [];
      return;
    }
    if (prior.type === 'slash' && prior.prev?.type !== 'bos' && !afterStar && this.eos()) {
      // `/a/**`: `/a` itself, or `/a/` and anything.
      prev.type = 'globstar';
      prev.out = [alt(seq(...(prior.out as GlobNode[]), GLOBSTAR), check('end'))];
      prior.out = [];
      return;
    }
    if (prior.type === 'slash' && prior.prev?.type !== 'bos' && rest[0] === '/') {
      // `/a/**/b`: one slash, or a slash, anything and a slash.
      const orEnd = rest[1] !== undefined ? [check('end')] : [];
      prev.type = 'globstar';
      prev.out = [alt(seq(...(prior.out as GlobNode[]), GLOBSTAR, SLASH), SLASH, ...orEnd)];
      prior.out = [];
      this.advance();
      this.push({ type: 'slash', out: [] });
      return;
    }
    if (prior.type === 'bos' && rest[0] === '/') {
      // `**/b`: from the start, after any slash, or after anything and a slash.
      prev.type = 'globstar';
      prev.out = [alt(check('start'), SLASH, seq(GLOBSTAR, SLASH))];
      bos.out = [];
      this.advance();
      this.push({ type: 'slash', out: [] });
      return;
    }
    prev.type = 'globstar';
    prev.out = [GLOBSTAR];
  }
}

/** A positive class that never takes "/": its ranges with "/" cut out. */
const notSlashAnd = (ranges: [number, number][]): GlobNode => {
  const cut: [number, number][] = [];
  for (const [lo, hi] of ranges) {
    if (lo > hi) continue;
    if (lo <= 0x2f && hi >= 0x2f) {
      if (lo < 0x2f) cut.push([lo, 0x2e]);
      if (hi > 0x2f) cut.push([0x30, hi]);
    } else cut.push([lo, hi]);
  }
  return { kind: 'set', negated: false, ranges: cut };
};

/** Brace markers to alternatives. */
const build = (pieces: Piece[]): GlobNode => {
  const stack: GlobNode[][][] = [[[]]];
  for (const p of pieces) {
    const branches = stack.at(-1)!;
    if (p.kind === 'open') stack.push([[]]);
    else if (p.kind === 'bar') branches.push([]);
    else if (p.kind === 'close') {
      stack.pop();
      stack
        .at(-1)!
        .at(-1)!
        .push(alt(...branches.map((b) => seq(...b))));
    } else branches.at(-1)!.push(p);
  }
  return seq(...stack[0]![0]!);
};
