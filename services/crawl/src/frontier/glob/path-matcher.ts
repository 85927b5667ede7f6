import { GlobProgram, type GlobNode, type MatchCost } from './glob-nfa.js';
import { parseGlob } from './parse-glob.js';

export type { MatchCost } from './glob-nfa.js';

/**
 * Scope globs (include_paths, exclude_paths, sitemap_include, sitemap_exclude) compiled into one
 * automaton matched against a URL's path with its query. A glob without a leading `/` matches
 * anywhere (`**` + `/` is put in front); `/blog/**` also matches `/blog`. A path matches when any
 * glob does. Work per path is bounded by construction: at most (states + 1) × (length + 1)
 * steps, twice (the path as given and with a trailing slash), whatever the globs say.
 */
export class PathMatcher {
  private readonly program: GlobProgram;
  /** picomatch answers yes to a path spelled exactly like its glob before any regex is run. */
  private readonly literal: Set<string>;

  private constructor(globs: string[]) {
    const written = globs.map((g) => (g.startsWith('/') ? g : `**/${g}`));
    this.literal = new Set(written);
    const trees: GlobNode[] = written.map(parseGlob);
    this.program = new GlobProgram({ kind: 'alt', items: trees });
  }

  /** null for no globs (the caller's "no rule"). */
  static compile(globs: string[]): PathMatcher | null {
    return globs.length ? new PathMatcher(globs) : null;
  }

  /** States of the automaton: a path of n characters costs at most 2 × (size + 1) × (n + 2) steps. */
  get size(): number {
    return this.program.size;
  }

  matches(path: string, cost: MatchCost = { steps: 0 }): boolean {
    if (this.one(path, cost)) return true;
    // `/blog/**` should match `/blog` itself too: a section's index page belongs to it.
    return this.one(`${path.endsWith('/') ? path.slice(0, -1) : path}/`, cost);
  }

  private one(path: string, cost: MatchCost): boolean {
    if (path === '') return false;
    if (this.literal.has(path)) return true;
    return this.program.matches(path, cost);
  }
}
