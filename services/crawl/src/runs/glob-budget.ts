import { setImmediate as nextTurn } from 'node:timers/promises';
import { ValidationError } from '@tidemark/errors';
import type { MatchCost } from '../frontier/glob/path-matcher.js';

/** Steps any request may spend, and steps per URL it judges (ordinary globs spend 30 to 200). */
const BASE_STEPS = 10_000_000;
const STEPS_PER_URL = 1_000;
/** URLs judged between turns for the rest of the process's work. */
const CHUNK = 500;

/**
 * The glob-matching work one request (a dry run, a sources preview) may spend over the URLs a
 * project knows. Each match is bounded by construction (glob/glob-nfa.ts); this bounds their
 * sum, so a draft of costly globs over many long URLs answers 422 instead of holding a core, and
 * the event loop gets a turn every CHUNK URLs meanwhile.
 */
export class GlobBudget {
  readonly cost: MatchCost = { steps: 0 };
  private readonly limit: number;
  private judged = 0;

  constructor(urls: number) {
    this.limit = BASE_STEPS + STEPS_PER_URL * urls;
  }

  /** Call once per URL judged: refuses as soon as the budget is spent. */
  async tick(): Promise<void> {
    this.check();
    this.judged += 1;
    if (this.judged % CHUNK === 0) await nextTurn();
  }

  check(): void {
    if (this.cost.steps > this.limit)
      throw new ValidationError(
        `body: these globs need more matching work than a request may spend (${this.limit.toLocaleString('en')} steps over these URLs); use fewer or simpler globs`,
      );
  }
}
