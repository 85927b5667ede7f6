// Longest-common-subsequence matching of two integer sequences: Myers' O(ND) algorithm in its
// linear-space form (E. Myers, "An O(ND) Difference Algorithm and Its Variations", 1986, §4b:
// find the middle snake of an optimal path, recurse on both sides). Words, blocks and lines are
// interned to integers first, so one implementation serves every diff of the service.

/** A run of equal items: a[a .. a+length) equals b[b .. b+length). */
export interface MatchRun {
  a: number;
  b: number;
  length: number;
}

/** A maximal stretch between two match runs: a[aStart..aEnd) was replaced by b[bStart..bEnd). */
export interface Gap {
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/**
 * Edit distance explored per middle-snake search before giving up on an exact answer. Myers is
 * O((N+M)·D); two unrelated 100 KB pages would have D in the tens of thousands. Past this cost
 * the region is split at words that occur once on each side (patience anchors) and each piece is
 * diffed exactly; with no anchor left it is reported as one replacement. Small edits to large
 * pages (D well under this) always get the minimal diff.
 */
export const MAX_COST_PER_SPLIT = 1024;

/**
 * Matches two sequences; returns the equal runs in order, adjacent runs merged. Their complement
 * is a shortest edit script unless a region cost more than `maxCost` (see MAX_COST_PER_SPLIT).
 */
export function matchSequences(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  maxCost: number = MAX_COST_PER_SPLIT,
): MatchRun[] {
  const matcher = new Matcher(a, b, Math.max(1, maxCost));
  matcher.diff(0, a.length, 0, b.length);
  return matcher.runs;
}

/** The stretches between match runs (what was removed from a and added in b). */
export function gapsBetween(runs: readonly MatchRun[], aLength: number, bLength: number): Gap[] {
  const gaps: Gap[] = [];
  let aPos = 0;
  let bPos = 0;
  for (const run of [...runs, { a: aLength, b: bLength, length: 0 }]) {
    if (run.a > aPos || run.b > bPos) gaps.push({ aStart: aPos, aEnd: run.a, bStart: bPos, bEnd: run.b });
    aPos = run.a + run.length;
    bPos = run.b + run.length;
  }
  return gaps;
}

/** Interns values so equal ones share an integer id (the sequences matchSequences works on). */
export class Interner<T> {
  private readonly ids = new Map<T, number>();
  id(value: T): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(value, id);
    }
    return id;
  }
  ids32(values: readonly T[]): Int32Array {
    const out = new Int32Array(values.length);
    for (let i = 0; i < values.length; i++) out[i] = this.id(values[i]!);
    return out;
  }
}

interface Snake {
  x: number;
  y: number;
  u: number;
  v: number;
}

class Matcher {
  readonly runs: MatchRun[] = [];
  private readonly forward: Int32Array;
  private readonly backward: Int32Array;
  private readonly offset: number;

  constructor(
    private readonly a: ArrayLike<number>,
    private readonly b: ArrayLike<number>,
    private readonly maxCost: number,
  ) {
    // Diagonals -d-1 .. d+1 are touched while d <= maxCost.
    this.offset = maxCost + 2;
    this.forward = new Int32Array(2 * this.offset + 1);
    this.backward = new Int32Array(2 * this.offset + 1);
  }

  diff(aLo: number, aHi: number, bLo: number, bHi: number): void {
    const { a, b } = this;
    let prefix = 0;
    while (aLo + prefix < aHi && bLo + prefix < bHi && a[aLo + prefix] === b[bLo + prefix]) prefix++;
    this.push(aLo, bLo, prefix);
    aLo += prefix;
    bLo += prefix;
    let suffix = 0;
    while (aHi - suffix > aLo && bHi - suffix > bLo && a[aHi - suffix - 1] === b[bHi - suffix - 1]) suffix++;
    aHi -= suffix;
    bHi -= suffix;

    if (aLo < aHi && bLo < bHi) {
      const snake = this.middleSnake(aLo, aHi, bLo, bHi);
      if (snake) {
        this.diff(aLo, snake.x, bLo, snake.y);
        this.push(snake.x, snake.y, snake.u - snake.x);
        this.diff(snake.u, aHi, snake.v, bHi);
      } else {
        this.anchored(aLo, aHi, bLo, bHi);
      }
    }
    this.push(aHi, bHi, suffix);
  }

  /**
   * The middle snake of an optimal edit path through a[aLo..aHi) × b[bLo..bHi), searched from
   * both ends at once; null when the edit cost exceeds maxCost. Called only on regions whose
   * first and last items differ, so the snake found never leaves a side as large as the whole.
   */
  private middleSnake(aLo: number, aHi: number, bLo: number, bHi: number): Snake | null {
    const { a, b, forward: vf, backward: vb, offset } = this;
    const n = aHi - aLo;
    const m = bHi - bLo;
    const delta = n - m;
    const odd = (delta & 1) !== 0;
    const limit = Math.min(Math.ceil((n + m) / 2), this.maxCost);
    vf[offset + 1] = 0;
    vb[offset + 1] = 0;
    for (let d = 0; d <= limit; d++) {
      for (let k = -d; k <= d; k += 2) {
        let x =
          k === -d || (k !== d && vf[offset + k - 1]! < vf[offset + k + 1]!)
            ? vf[offset + k + 1]!
            : vf[offset + k - 1]! + 1;
        let y = x - k;
        const x0 = x;
        const y0 = y;
        while (x < n && y < m && a[aLo + x] === b[bLo + y]) {
          x++;
          y++;
        }
        vf[offset + k] = x;
        // The backward search has made d-1 moves; it can only meet us on its diagonals.
        if (odd && k >= delta - (d - 1) && k <= delta + (d - 1) && x + vb[offset + delta - k]! >= n) {
          return { x: aLo + x0, y: bLo + y0, u: aLo + x, v: bLo + y };
        }
      }
      for (let k = -d; k <= d; k += 2) {
        // Backward coordinates count from the ends of both regions.
        let x =
          k === -d || (k !== d && vb[offset + k - 1]! < vb[offset + k + 1]!)
            ? vb[offset + k + 1]!
            : vb[offset + k - 1]! + 1;
        let y = x - k;
        const x0 = x;
        const y0 = y;
        while (x < n && y < m && a[aHi - x - 1] === b[bHi - y - 1]) {
          x++;
          y++;
        }
        vb[offset + k] = x;
        if (!odd && delta - k >= -d && delta - k <= d && x + vf[offset + delta - k]! >= n) {
          return { x: aHi - x, y: bHi - y, u: aHi - x0, v: bHi - y0 };
        }
      }
    }
    return null;
  }

  /**
   * Too costly for an exact answer: split at items unique to this region on both sides that
   * keep their relative order (the longest increasing run of their positions, as patience diff
   * does) and diff each piece; without such anchors the region is one replacement.
   */
  private anchored(aLo: number, aHi: number, bLo: number, bHi: number): void {
    const anchors = uniqueCommonAnchors(this.a, aLo, aHi, this.b, bLo, bHi);
    let aPos = aLo;
    let bPos = bLo;
    for (const [ai, bi] of anchors) {
      this.diff(aPos, ai, bPos, bi);
      this.push(ai, bi, 1);
      aPos = ai + 1;
      bPos = bi + 1;
    }
    if (anchors.length) this.diff(aPos, aHi, bPos, bHi);
  }

  private push(a: number, b: number, length: number): void {
    if (length <= 0) return;
    const last = this.runs.at(-1);
    if (last && last.a + last.length === a && last.b + last.length === b) last.length += length;
    else this.runs.push({ a, b, length });
  }
}

/** Pairs (i, j) of items occurring once in each range, in an order both sides agree on. */
function uniqueCommonAnchors(
  a: ArrayLike<number>,
  aLo: number,
  aHi: number,
  b: ArrayLike<number>,
  bLo: number,
  bHi: number,
): Array<[number, number]> {
  // value -> position in a (or -1 when repeated), then the matching position in b.
  const inA = new Map<number, number>();
  for (let i = aLo; i < aHi; i++) inA.set(a[i]!, inA.has(a[i]!) ? -1 : i);
  const inB = new Map<number, number>();
  for (let j = bLo; j < bHi; j++) {
    const i = inA.get(b[j]!);
    if (i !== undefined && i >= 0) inB.set(b[j]!, inB.has(b[j]!) ? -1 : j);
  }
  const pairs: Array<[number, number]> = [];
  for (const [value, j] of inB) if (j >= 0) pairs.push([inA.get(value)!, j]);
  pairs.sort((p, q) => p[0] - q[0]);
  return longestIncreasingByB(pairs);
}

/** Patience sorting: the longest subsequence of pairs whose b positions increase. */
function longestIncreasingByB(pairs: Array<[number, number]>): Array<[number, number]> {
  const tails: number[] = []; // index into pairs of the smallest tail of each length
  const previous = new Int32Array(pairs.length).fill(-1);
  for (let p = 0; p < pairs.length; p++) {
    const bPos = pairs[p]![1];
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]!]![1] < bPos) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[p] = tails[lo - 1]!;
    tails[lo] = p;
  }
  const out: Array<[number, number]> = [];
  for (let p = tails.at(-1) ?? -1; p >= 0; p = previous[p]!) out.push(pairs[p]!);
  return out.reverse();
}
