// What the diff service runs on its selector threads: work that evaluates a project's own
// selectors (`volatile_selectors`, a field's selector being repointed) over stored pages. A
// selector is the user's: linkedom's querySelectorAll of a nested `:has()` over a deep page can
// run for minutes, so it never runs on the event loop (docs/security.md, bounded patterns).

import { compareMarkup, type MarkupComparison, type MarkupOptions } from '../compare/markup-diff.js';
import { repointSelector, type RepointInput, type RepointResult } from '../compare/selector-repoint.js';
import { volatileTexts, type VolatileTexts } from '../compare/volatile-elements.js';

export type SelectorTask =
  | { kind: 'volatile'; html: string; selectors: string[] }
  | { kind: 'markup'; before: string; after: string; options: MarkupOptions }
  | { kind: 'repoint'; input: RepointInput; threshold: number };

export interface SelectorAnswers {
  volatile: VolatileTexts;
  markup: MarkupComparison;
  repoint: RepointResult;
}

/** Runs one task where it is called (the thread, or a test's event loop). */
export function runSelectorTask(task: SelectorTask): SelectorAnswers[SelectorTask['kind']] {
  switch (task.kind) {
    case 'volatile':
      return volatileTexts(task.html, task.selectors);
    case 'markup':
      return compareMarkup(task.before, task.after, task.options);
    case 'repoint':
      return repointSelector(task.input, task.threshold);
  }
}

/** Runs the project's selectors: on a thread within a budget (SelectorPool), or inline in tests. */
export interface SelectorRunner {
  run<K extends SelectorTask['kind']>(task: Extract<SelectorTask, { kind: K }>): Promise<SelectorAnswers[K]>;
}

/** On the caller's event loop, unbounded: for unit tests of the comparison. */
export const inlineSelectors: SelectorRunner = {
  run: async <K extends SelectorTask['kind']>(task: Extract<SelectorTask, { kind: K }>) =>
    runSelectorTask(task) as SelectorAnswers[K],
};
