import type { LadderOptions } from '../ladder/options.js';
import type { Fetched } from '../ladder/http-rung.js';

/** What a page-reading thread is asked: read a fetched page, or match one selector in markup. */
export type ReaderTask =
  | {
      kind: 'read';
      fetched: Fetched;
      tier: 'http' | 'browser';
      opts: LadderOptions;
      widget?: string;
    }
  | { kind: 'select'; markup: string; selector: string; url: string };

export type ReaderReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };
