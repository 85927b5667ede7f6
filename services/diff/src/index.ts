export type {
  ChangeCounts,
  ChangeEntry,
  ChangeKind,
  Coverage,
  FieldConfig,
  FieldValue,
  PageSummary,
  RunSummary,
  SelectorBreak,
  StopReason,
} from './compare/types.js';
export {
  classifyPages,
  compareFields,
  countEntries,
  urlKey,
  DEFAULT_COVERAGE_THRESHOLD,
} from './compare/page-classify.js';
export type { Classification, ClassifyOptions } from './compare/page-classify.js';
export { diffWords } from './compare/word-diff.js';
export type { WordDiff, WordDiffOptions, WordHunk } from './compare/word-diff.js';
export { tokenizeMarkdown } from './compare/markdown-tokens.js';
export type { MarkdownBlock, Token, TokenizedMarkdown } from './compare/markdown-tokens.js';
export { maskVolatile, volatileSpans } from './compare/volatile-patterns.js';
export { matchSequences, gapsBetween, MAX_COST_PER_SPLIT } from './compare/sequence-diff.js';
export type { Gap, MatchRun } from './compare/sequence-diff.js';
