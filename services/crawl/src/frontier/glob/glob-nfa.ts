/**
 * A regular-expression tree for globs and the automaton that runs it, without backtracking.
 * The tree compiles to a Thompson NFA; a path is read once, left to right, with the set of live
 * NFA states (each state at most once per position), so a match costs O(states × path length)
 * whatever the pattern. Sets already met are kept as DFA states with their transitions (built
 * lazily, as RE2 does, and dropped when the cache is full), so an ordinary glob costs one table
 * look-up per character. Zero-width checks look at most four characters ahead; the transition
 * cache is keyed by what they can see (the next character and the classes of the three after).
 */

/** Zero-width checks picomatch's output uses (named after its constants). */
export type Check =
  /** `^`: at the start of the path. */
  | 'start'
  /** `$`: at the end of the path. */
  | 'end'
  /** ONE_CHAR `(?=.)`: a character follows (any but a line terminator). */
  | 'one_char'
  /** NO_DOTS_SLASH `(?!\.{1,2}(?:\/|$))`: no `.` or `..` segment starts here. */
  | 'no_dots_segment'
  /** NO_DOT_SLASH `(?!\.{0,1}(?:\/|$))`: nor an empty segment or a `.` one. */
  | 'no_dot_or_empty_segment'
  /** The globstar's step guard `(?!(?:^|\/)\.{1,2}(?:\/|$))`: no `.` or `..` segment here. */
  | 'no_dots_after_slash';

export type GlobNode =
  | { kind: 'char'; code: number }
  /** One character in (or, negated, not in) the inclusive code ranges. */
  | { kind: 'set'; negated: boolean; ranges: [number, number][] }
  /** Any character but a line terminator (a regex `.`). */
  | { kind: 'any' }
  | { kind: 'seq'; items: GlobNode[] }
  | { kind: 'alt'; items: GlobNode[] }
  /** Zero or more. */
  | { kind: 'repeat'; item: GlobNode }
  | { kind: 'optional'; item: GlobNode }
  | { kind: 'check'; check: Check };

/** What matching cost: NFA states visited, plus one per cached DFA step. */
export interface MatchCost {
  steps: number;
}

const enum Op {
  Char,
  Set,
  Any,
  Split,
  Jump,
  Check,
  Match,
}

const SLASH = 0x2f;
const DOT = 0x2e;
const isLineTerminator = (c: number) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;

/** `.` or `..` from `at`, then `/` or the end. */
const dotsSegmentAt = (s: string, at: number): boolean => {
  if (s.charCodeAt(at) !== DOT) return false;
  const next = at + 1;
  if (next === s.length || s.charCodeAt(next) === SLASH) return true;
  if (s.charCodeAt(next) !== DOT) return false;
  return next + 1 === s.length || s.charCodeAt(next + 1) === SLASH;
};

const CHECKS: Record<Check, (s: string, at: number) => boolean> = {
  start: (_s, at) => at === 0,
  end: (s, at) => at === s.length,
  one_char: (s, at) => at < s.length && !isLineTerminator(s.charCodeAt(at)),
  no_dots_segment: (s, at) => !dotsSegmentAt(s, at),
  no_dot_or_empty_segment: (s, at) =>
    !(
      at === s.length ||
      s.charCodeAt(at) === SLASH ||
      (s.charCodeAt(at) === DOT && (at + 1 === s.length || s.charCodeAt(at + 1) === SLASH))
    ),
  no_dots_after_slash: (s, at) =>
    !((at === 0 && dotsSegmentAt(s, at)) || (s.charCodeAt(at) === SLASH && dotsSegmentAt(s, at + 1))),
};

/** What a check can see of position `i`: the end, `/`, `.`, a line terminator, or another character. */
const classAt = (s: string, i: number): number => {
  if (i >= s.length) return 0;
  const c = s.charCodeAt(i);
  return c === SLASH ? 1 : c === DOT ? 2 : isLineTerminator(c) ? 3 : 4;
};
/** Everything the checks can tell about position `at` (start or not, four classes ahead): 0..1249. */
const contextAt = (s: string, at: number): number =>
  (at === 0 ? 625 : 0) + classAt(s, at) * 125 + classAt(s, at + 1) * 25 + classAt(s, at + 2) * 5 + classAt(s, at + 3);
const CONTEXTS = 1250;

/** A class as a bitmap of ASCII and a test for the rest. */
interface CharSet {
  ascii: Uint32Array;
  wide: (c: number) => boolean;
}

const charSet = (negated: boolean, ranges: [number, number][]): CharSet => {
  const inRanges = (c: number) => ranges.some(([lo, hi]) => c >= lo && c <= hi);
  const ascii = new Uint32Array(4);
  for (let c = 0; c < 128; c++) if (inRanges(c) !== negated) ascii[c >> 5]! |= 1 << (c & 31);
  return { ascii, wide: (c) => inRanges(c) !== negated };
};

/** A set of live NFA states (the consuming ones), and whether the path may end here. */
interface LiveSet {
  pcs: Int32Array;
  accepts: boolean;
}

/** A live set kept in the cache, with the transitions met so far. */
interface DfaState extends LiveSet {
  /** key = character × CONTEXTS + the context after it. */
  next: Map<number, DfaState>;
}

const sameStates = (x: Int32Array, y: Int32Array): boolean => {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
};

/** New DFA states one path may add before the rest of it is read without the cache. */
const NEW_STATES_PER_PATH = 256;

/** The DFA cache is dropped (all at once) past this many NFA states and transitions held. */
const CACHE_STATES = 200_000;

/**
 * A compiled automaton. `ops[pc]` is the instruction; `a[pc]`/`b[pc]` its operands (a code, a
 * set's index, jump targets, a check's index).
 */
export class GlobProgram {
  private readonly ops: Uint8Array;
  private readonly a: Int32Array;
  private readonly b: Int32Array;
  private readonly sets: CharSet[] = [];
  private readonly checks: ((s: string, at: number) => boolean)[];
  /** Per NFA state, the closure it was last added in: each state enters a set once. */
  private readonly seen: Int32Array;
  private closure = 0;
  private readonly stack: Int32Array;
  private readonly scratch: Int32Array;
  /** DFA states by a hash of their NFA states; starting states by context. */
  private readonly interned = new Map<number, DfaState[]>();
  private cached: DfaState[] = [];
  private readonly starts = new Map<number, DfaState>();
  private held = 0;

  constructor(root: GlobNode) {
    const ops: number[] = [];
    const a: number[] = [];
    const b: number[] = [];
    const checkNames: Check[] = [];
    const emit = (op: Op, x = 0, y = 0) => {
      ops.push(op);
      a.push(x);
      b.push(y);
      return ops.length - 1;
    };
    const compile = (node: GlobNode): void => {
      switch (node.kind) {
        case 'char':
          emit(Op.Char, node.code);
          return;
        case 'set':
          this.sets.push(charSet(node.negated, node.ranges));
          emit(Op.Set, this.sets.length - 1);
          return;
        case 'any':
          emit(Op.Any);
          return;
        case 'check': {
          let i = checkNames.indexOf(node.check);
          if (i < 0) i = checkNames.push(node.check) - 1;
          emit(Op.Check, i);
          return;
        }
        case 'seq':
          for (const item of node.items) compile(item);
          return;
        case 'alt': {
          if (!node.items.length) return;
          const jumps: number[] = [];
          node.items.forEach((item, i) => {
            if (i === node.items.length - 1) {
              compile(item);
              return;
            }
            const split = emit(Op.Split);
            a[split] = split + 1;
            compile(item);
            jumps.push(emit(Op.Jump));
            b[split] = ops.length;
          });
          for (const j of jumps) a[j] = ops.length;
          return;
        }
        case 'repeat': {
          const split = emit(Op.Split);
          a[split] = split + 1;
          compile(node.item);
          emit(Op.Jump, split);
          b[split] = ops.length;
          return;
        }
        case 'optional': {
          const split = emit(Op.Split);
          a[split] = split + 1;
          compile(node.item);
          b[split] = ops.length;
          return;
        }
      }
    };
    compile(root);
    emit(Op.Match);
    this.ops = Uint8Array.from(ops);
    this.a = Int32Array.from(a);
    this.b = Int32Array.from(b);
    this.checks = checkNames.map((c) => CHECKS[c]);
    this.seen = new Int32Array(ops.length).fill(-1);
    this.stack = new Int32Array(ops.length * 2 + 2);
    this.scratch = new Int32Array(ops.length);
  }

  /** NFA states. A match costs at most (3 × size + 1) × (path length + 1) steps. */
  get size(): number {
    return this.ops.length;
  }

  /** Whether the whole of `s` matches; `cost.steps` grows by the work done. */
  matches(s: string, cost: MatchCost = { steps: 0 }): boolean {
    const startContext = contextAt(s, 0);
    let state = this.starts.get(startContext);
    if (!state) {
      state = this.intern(this.follow([0], 0, s, cost), cost);
      this.starts.set(startContext, state);
    }
    let built = 0;
    for (let at = 0; at < s.length; at++) {
      if (!state.pcs.length) return false;
      const c = s.charCodeAt(at);
      const key = c * CONTEXTS + contextAt(s, at + 1);
      let next = state.next.get(key);
      cost.steps += 1;
      if (!next) {
        // A path that keeps meeting new sets would only fill the cache: read the rest as an NFA.
        if (++built > NEW_STATES_PER_PATH) return this.simulate(state, at, s, cost);
        next = this.intern(this.step(state.pcs, c, at, s, cost), cost);
        state.next.set(key, next);
        this.held += 1;
      }
      state = next;
    }
    return state.accepts;
  }

  /** The rest of `s` from `at`, one NFA step a character, nothing cached. */
  private simulate(from: LiveSet, at: number, s: string, cost: MatchCost): boolean {
    let live = from;
    for (; at < s.length; at++) {
      if (!live.pcs.length) return false;
      live = this.step(live.pcs, s.charCodeAt(at), at, s, cost);
    }
    return live.accepts;
  }

  /** The NFA's step on `c` at `at`, then the closure at at + 1. */
  private step(pcs: Int32Array, c: number, at: number, s: string, cost: MatchCost): LiveSet {
    const { ops, a, sets } = this;
    const targets: number[] = [];
    for (const pc of pcs) {
      const op = ops[pc];
      const arg = a[pc]!;
      const takes =
        op === Op.Char
          ? arg === c
          : op === Op.Any
            ? !isLineTerminator(c)
            : c < 128
              ? (sets[arg]!.ascii[c >> 5]! & (1 << (c & 31))) !== 0
              : sets[arg]!.wide(c);
      if (takes) targets.push(pc + 1);
    }
    cost.steps += pcs.length;
    return this.follow(targets, at + 1, s, cost);
  }

  /**
   * The consuming NFA states reachable from `starts` at position `at` through jumps, splits and
   * the checks that hold there (each state visited once), in order, and whether Match is reached
   * at the end of the path.
   */
  private follow(starts: number[], at: number, s: string, cost: MatchCost): LiveSet {
    const { stack, seen, ops, a, b, checks, scratch } = this;
    const mark = ++this.closure;
    let count = 0;
    let accepts = false;
    let visits = 0;
    let top = 0;
    for (let i = starts.length - 1; i >= 0; i--) stack[top++] = starts[i]!;
    while (top > 0) {
      const pc = stack[--top]!;
      if (seen[pc] === mark) continue;
      seen[pc] = mark;
      visits += 1;
      switch (ops[pc]) {
        case Op.Jump:
          stack[top++] = a[pc]!;
          break;
        case Op.Split:
          stack[top++] = b[pc]!;
          stack[top++] = a[pc]!;
          break;
        case Op.Check:
          if (checks[a[pc]!]!(s, at)) stack[top++] = pc + 1;
          break;
        case Op.Match:
          if (at === s.length) accepts = true;
          break;
        default:
          scratch[count++] = pc;
      }
    }
    cost.steps += visits;
    return { pcs: scratch.slice(0, count), accepts };
  }

  /** The cached DFA state for a live set (states compared as sorted sets, found by a hash). */
  private intern(live: LiveSet, cost: MatchCost): DfaState {
    const pcs = live.pcs.sort();
    cost.steps += pcs.length;
    let hash = live.accepts ? 0x9e3779b9 : 0x85ebca6b;
    for (const pc of pcs) hash = Math.imul(hash ^ pc, 0x01000193);
    const bucket = this.interned.get(hash);
    const known = bucket?.find((d) => d.accepts === live.accepts && sameStates(d.pcs, pcs));
    if (known) return known;
    if (this.held + pcs.length > CACHE_STATES) {
      // Full: forget every cached state (those in use keep working; they are just not shared).
      for (const old of this.cached) old.next = new Map();
      this.cached = [];
      this.interned.clear();
      this.starts.clear();
      this.held = 0;
    }
    const state: DfaState = { pcs, accepts: live.accepts, next: new Map() };
    if (bucket) bucket.push(state);
    else this.interned.set(hash, [state]);
    this.cached.push(state);
    this.held += pcs.length;
    return state;
  }
}
