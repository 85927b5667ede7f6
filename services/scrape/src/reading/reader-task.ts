import type { RemovalOptions } from '@tidemark/content';
import type { LadderOptions } from '../ladder/options.js';
import type { Fetched } from '../ladder/http-rung.js';

/**
 * What a page-reading thread is asked: read a fetched page, match one selector in markup, or say
 * what the content filters (the caller's include and exclude selectors among them) take out.
 */
export type ReaderTask =
  | {
      kind: 'read';
      fetched: Fetched;
      tier: 'http' | 'browser';
      opts: LadderOptions;
      widget?: string;
    }
  | { kind: 'select'; markup: string; selector: string; url: string }
  | { kind: 'removals'; markup: string; options: RemovalOptions };
