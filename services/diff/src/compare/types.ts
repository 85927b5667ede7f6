// The vocabulary of a change record (spec: Change record, page.changed, run.finished).

import type { ChangeKindName, PageErrorCode, Verdict } from '@tidemark/contracts';

export type FieldValue = string | string[] | null;

/** A field as the project config names it (config `fields`): CSS, or XPath starting with / or (. */
export type FieldConfig = string | { selector: string; attr?: string; all?: boolean };

export const fieldSelector = (field: FieldConfig | undefined): string =>
  field === undefined ? '' : typeof field === 'string' ? field : field.selector;

/** What the comparison needs of one page row of a run. */
export interface PageSummary {
  url: string;
  /** Row status: queued, running, done, error (nothing answered), cancelled. */
  status?: string;
  verdict: Verdict | null;
  errorCode: PageErrorCode | null;
  httpStatus: number | null;
  /**
   * A fingerprint of the page's markdown (contentHash()); null when unknown. Equal hashes are
   * taken as an unchanged page without loading bodies; an unknown one is always compared.
   */
  contentHash: string | null;
  /** Words of the page (the row's `words`): what an added or removed page counts. */
  words?: number;
  /** Extracted field values (the row's `fields`). */
  fields?: Record<string, FieldValue>;
}

/** Crawl stop reasons (docs/decisions.md, Crawl). */
export type StopReason = 'exhausted' | 'limit' | 'depth' | 'budget' | 'credits_exhausted' | 'cancelled' | 'error';

export interface RunSummary {
  runId: string;
  /** Run status: queued, running, done, error, cancelled. */
  status: string;
  stop: StopReason | string | null;
  /** A re-crawl of listed pages: only its own URLs are compared; it never stands in for the site. */
  recrawl?: boolean;
  pages: PageSummary[];
}

/** CHANGE_KINDS of libs/contracts (the proto enum's names). */
export type ChangeKind = ChangeKindName;

export interface ChangeCounts {
  added: number;
  removed: number;
  modified: number;
  same: number;
  withheld: number;
  unverified: number;
  skipped: number;
  /** Field values that changed (one per page and field). */
  fields: number;
  /** Fields whose selector matched in the baseline and matches nothing now (one per page and field). */
  selectorBreaks: number;
  /** Block changes set aside as noise, over all pages. */
  volatileBlocks: number;
}

export interface Coverage {
  /** Whether the comparison is a verdict on the site; when false, removals are not called. */
  verdict: boolean;
  /** Baseline pages that were read (ok, thin, cached) and are read again in this run. */
  read: number;
  /** Baseline pages that were read: what this run had to read again. */
  expected: number;
  /** read / expected (1 when nothing was expected). */
  share: number;
  threshold: number;
  reason: string;
}

/** A field whose selector stopped matching, and what repointing made of it. */
export interface SelectorBreak {
  field: string;
  selector: string;
  /** The proposed selector, when one was found above the confidence threshold. */
  repointed: { selector: string; confidence: number; value: string } | null;
}

export interface ChangeEntry {
  url: string;
  kind: ChangeKind;
  /**
   * Why a page is withheld, unverified, removed or skipped (a sentence); on a compared page, what
   * of the project's selectors could not be applied (volatile_selectors, a field's repointing).
   */
  reason?: string;
  wordsAdded: number;
  wordsRemoved: number;
  /** The section with the most changed words. */
  section: string | null;
  /** The page changed, and all of it was noise (it is then `same`). */
  volatile: boolean;
  volatileBlocks: number;
  /** Names of fields whose value changed. */
  fields: string[];
  selectorBreaks: SelectorBreak[];
  /** A removed page whose content now lives at an added URL (simhash within 3 bits), or the reverse. */
  movedTo?: string;
  movedFrom?: string;
  /** Whether page.changed should be sent: added and removed always, modified once the edit reaches notify_min_words or a field changed. */
  notify: boolean;
}

export const emptyCounts = (): ChangeCounts => ({
  added: 0,
  removed: 0,
  modified: 0,
  same: 0,
  withheld: 0,
  unverified: 0,
  skipped: 0,
  fields: 0,
  selectorBreaks: 0,
  volatileBlocks: 0,
});
