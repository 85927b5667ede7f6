/**
 * Whether a rule's path pattern matches a path (both normalized). `*` matches any run of
 * characters; a `$` that ends the pattern anchors it at the end of the path; anything else is
 * literal and a pattern without the anchor matches as a prefix. No regular expressions: the
 * two-pointer walk with one remembered `*` stays linear for ordinary patterns and cannot blow up
 * on hostile ones (at worst pattern × path steps, both bounded by the 500 KiB file cap).
 */
export const patternMatches = (pattern: string, path: string): boolean => matchPattern(pattern, path).matches;

/** patternMatches with the steps its walk took: tests bound the work by it, not by a clock. */
export const matchPattern = (pattern: string, path: string): { matches: boolean; steps: number } => {
  const anchored = pattern.endsWith('$');
  const pat = anchored ? pattern.slice(0, -1) : pattern;
  let p = 0;
  let s = 0;
  let starP = -1;
  let starS = 0;
  let steps = 0;
  while (s < path.length) {
    steps++;
    if (p < pat.length && pat[p] === '*') {
      starP = p++;
      starS = s;
    } else if (p < pat.length && pat[p] === path[s]) {
      p++;
      s++;
    } else if (p === pat.length && !anchored) {
      return { matches: true, steps };
    } else if (starP >= 0) {
      p = starP + 1;
      s = ++starS;
    } else {
      return { matches: false, steps };
    }
  }
  while (p < pat.length && pat[p] === '*') {
    steps++;
    p++;
  }
  return { matches: p === pat.length, steps };
};
