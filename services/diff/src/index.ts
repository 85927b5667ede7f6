// The diff service: change records of project runs (work.diff.compare → change_record, then
// run.finished and page.changed), read over gRPC by the gateway. compare/ is the pure core.
export { buildApp, type DiffApp } from './app.js';
export { loadConfig, type Config } from './config.js';
export { compareRuns, contentHash } from './compare/compare-runs.js';
export type {
  ChangeRecord,
  CompareRunsInput,
  CompareRunsOptions,
  CompareRunsResult,
  PageBodies,
  PageLoader,
  TemplateChange,
} from './compare/compare-runs.js';
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
export { comparePageContent } from './compare/page-compare.js';
export type { ComparePageOptions, PageComparison } from './compare/page-compare.js';
export { DEFAULT_NOISE_OPTIONS, blockKey, filterNoise, recordComparison } from './compare/noise-filter.js';
export type {
  IgnoredBlockChange,
  NoiseContext,
  NoiseOptions,
  NoiseReason,
  NoiseVerdict,
} from './compare/noise-filter.js';
export { emptyNoiseState, noiseStateSchema, parseNoiseState } from './compare/noise-state.js';
export type { NoiseState, PageNoise } from './compare/noise-state.js';
export { blockSketch, DEFAULT_TEMPLATE_THRESHOLDS, TemplateIndex } from './compare/template-blocks.js';
export type { TemplateThresholds } from './compare/template-blocks.js';
export { hammingDistance, NEAR_DUPLICATE_BITS, simhash, SimhashIndex } from './compare/simhash.js';
export { compareMarkup, compareMarkupTrees } from './compare/markup-diff.js';
export type { MarkupChange, MarkupChangeKind, MarkupComparison, MarkupOptions } from './compare/markup-diff.js';
export { normalizeMarkup } from './compare/markup-tree.js';
export type { MarkupNode, NormalizeOptions } from './compare/markup-tree.js';
export {
  repointSelector,
  uniqueSelector,
  REPOINT_MARGIN,
  REPOINT_THRESHOLD,
  SIMILAR_VALUE,
} from './compare/selector-repoint.js';
export type { Repoint, RepointInput, RepointResult } from './compare/selector-repoint.js';
