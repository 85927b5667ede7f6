/**
 * Whether a rule's path pattern matches a path (both normalized). `*` matches any run of
 * characters; a `$` that ends the pattern anchors it at the end of the path; anything else is
 * literal and a pattern without the anchor matches as a prefix. No regular expressions: the
 * two-pointer walk with one remembered `*` stays linear for ordinary patterns and cannot blow up
 * on hostile ones (at worst pattern × path steps, both bounded by the 500 KiB file cap).
 */
export const patternMatches = (pattern: string, path: string): boolean => {
  const anchored = pattern.endsWith('$');
  const pat = anchored ? pattern.slice(0, -1) : pattern;
  let p = 0;
  let s = 0;
  let starP = -1;
  let starS = 0;
  while (s < path.length) {
    if (p < pat.length && pat[p] === '*') {
      starP = p++;
      starS = s;
    } else if (p < pat.length && pat[p] === path[s]) {
      p++;
      s++;
    } else if (p === pat.length && !anchored) {
      return true;
    } else if (starP >= 0) {
      p = starP + 1;
      s = ++starS;
    } else {
      return false;
    }
  }
  while (p < pat.length && pat[p] === '*') p++;
  return p === pat.length;
};
