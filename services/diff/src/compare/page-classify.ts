// Which pages were added, removed, modified or unchanged between a baseline run and the current
// one, and which cannot be judged. A page that was not read (blocked, errored, skipped, withheld
// by robots.txt or the run's limits, or never reached because the run stopped early) is never
// "removed"; and when the run read too little of what the baseline read, removals are not
// called at all (coverage).

import { PAGE_ERROR_CODES } from '@tidemark/contracts';
import type { ChangeEntry, ChangeKind, Coverage, FieldConfig, FieldValue, PageSummary, RunSummary } from './types.js';
import { emptyCounts, fieldSelector, type ChangeCounts } from './types.js';

export interface ClassifyOptions {
  /** Least share of the baseline's read pages this run must read again for removals to be called. */
  coverageThreshold: number;
  /** The project's fields (config `fields`), to name the selector of a field that broke. */
  fields: Record<string, FieldConfig>;
}

/**
 * Half: below it the run more likely failed than the site lost half its pages (a maintenance
 * page served as a soft 404 everywhere, a login wall, a crawl cut short). Above it, a blocked
 * section is reported as unverified pages and real removals still show.
 */
export const DEFAULT_COVERAGE_THRESHOLD = 0.5;

/** Stops after which the run covered its whole scope: a URL it did not reach is gone. */
const COMPLETE_STOPS = new Set(['exhausted', 'depth']);
const READ_VERDICTS = new Set(['ok', 'thin', 'cached']);

export interface Classification {
  /** One entry per URL of either run, but those absent from both (missing or not found). */
  entries: ChangeEntry[];
  coverage: Coverage;
}

type Side =
  | { state: 'read'; page: PageSummary }
  | { state: 'absent' | 'withheld' | 'unverified' | 'skipped'; reason: string; page?: PageSummary };

/** Classifies every URL of both runs from their page summaries (no bodies needed). */
export function classifyPages(
  baseline: RunSummary | null,
  current: RunSummary,
  options: Partial<ClassifyOptions> = {},
): Classification {
  const threshold = options.coverageThreshold ?? DEFAULT_COVERAGE_THRESHOLD;
  const before = new Map<string, PageSummary>();
  for (const page of baseline?.pages ?? []) before.set(urlKey(page.url), page);
  const now = new Map<string, PageSummary>();
  for (const page of current.pages) now.set(urlKey(page.url), page);
  const complete = current.status === 'done' && current.stop !== null && COMPLETE_STOPS.has(current.stop);

  const entries: ChangeEntry[] = [];
  let expected = 0;
  let read = 0;
  const keys = [...now.keys(), ...[...before.keys()].filter((key) => !now.has(key))];
  for (const key of keys) {
    const old = sideOf(before.get(key));
    const cur = sideOf(now.get(key));
    const url = (now.get(key) ?? before.get(key))!.url;
    if (old.state === 'read' && (now.has(key) || !current.recrawl)) {
      expected++;
      if (cur.state === 'read') read++;
    }
    const entry = classifyOne(url, old, cur, {
      complete,
      recrawl: current.recrawl === true,
      missing: !now.has(key),
      fields: options.fields ?? {},
    });
    if (entry) entries.push(entry);
  }

  const share = expected ? read / expected : 1;
  const verdict = share >= threshold;
  const percent = `${Math.round(share * 100)}%`;
  const coverage: Coverage = {
    verdict,
    read,
    expected,
    share,
    threshold,
    reason: !baseline
      ? 'no baseline: every page read is new'
      : verdict
        ? `read ${read} of the ${expected} pages the baseline read (${percent})`
        : `read only ${read} of the ${expected} pages the baseline read (${percent}, under ${Math.round(threshold * 100)}%); removals are not called`,
  };
  if (!verdict) {
    for (const entry of entries) {
      if (entry.kind !== 'removed') continue;
      entry.kind = 'unverified';
      entry.reason = `${entry.reason}; the run read too little of the site to call it removed`;
      entry.wordsRemoved = 0;
    }
  }
  return { entries, coverage };
}

/** The counts of a set of entries. */
export function countEntries(entries: readonly ChangeEntry[]): ChangeCounts {
  const counts = emptyCounts();
  for (const entry of entries) {
    counts[entry.kind]++;
    counts.fields += entry.fields.length;
    counts.selectorBreaks += entry.selectorBreaks.length;
    counts.volatileBlocks += entry.volatileBlocks;
  }
  return counts;
}

/**
 * Field names whose values differ, and those whose selector stopped matching (a value before,
 * none now). Only fields present on both sides are compared: a field added to or dropped from
 * the config is not a change of the page.
 */
export function compareFields(
  before: Record<string, FieldValue> | undefined,
  after: Record<string, FieldValue> | undefined,
): { changed: string[]; broken: string[] } {
  const changed: string[] = [];
  const broken: string[] = [];
  for (const name of Object.keys(after ?? {})) {
    if (!before || !(name in before)) continue;
    const old = before[name] ?? null;
    const now = after![name] ?? null;
    if (JSON.stringify(old) === JSON.stringify(now)) continue;
    changed.push(name);
    if (hasValue(old) && !hasValue(now)) broken.push(name);
  }
  return { changed, broken };
}

function classifyOne(
  url: string,
  old: Side,
  cur: Side,
  run: { complete: boolean; recrawl: boolean; missing: boolean; fields: Record<string, FieldConfig> },
): ChangeEntry | null {
  const entry = (kind: ChangeKind, reason?: string): ChangeEntry => ({
    url,
    kind,
    ...(reason !== undefined ? { reason } : {}),
    wordsAdded: 0,
    wordsRemoved: 0,
    section: null,
    volatile: false,
    volatileBlocks: 0,
    fields: [],
    selectorBreaks: [],
    notify: false,
  });

  if (cur.state === 'read') {
    if (old.state === 'absent' || old.state === 'skipped') {
      return { ...entry('added'), wordsAdded: cur.page.words ?? 0 };
    }
    if (old.state !== 'read') return entry('unverified', `no readable baseline (${old.reason}); compared next run`);
    const fields = compareFields(old.page.fields, cur.page.fields);
    const sameContent =
      old.page.contentHash !== null && old.page.contentHash === cur.page.contentHash && !fields.changed.length;
    return {
      ...entry(sameContent ? 'same' : 'modified'),
      fields: fields.changed,
      selectorBreaks: fields.broken.map((field) => ({
        field,
        selector: fieldSelector(run.fields[field]),
        repointed: null,
      })),
    };
  }
  if (cur.state !== 'absent') return entry(cur.state, cur.reason);
  // Not in this run, or not found: only a page that was read can have been removed.
  if (old.state !== 'read') return null;
  if (run.missing) {
    if (run.recrawl) return null;
    if (!run.complete) return entry('withheld', 'not reached: the run stopped before it');
    return {
      ...entry('removed', 'no longer linked or listed: the crawl did not find it'),
      wordsRemoved: old.page.words ?? 0,
    };
  }
  return { ...entry('removed', cur.reason), wordsRemoved: old.page.words ?? 0 };
}

function sideOf(page: PageSummary | undefined): Side {
  if (!page) return { state: 'absent', reason: 'not in the run' };
  if (page.status === 'queued' || page.status === 'running' || page.status === 'cancelled') {
    return { state: 'withheld', reason: 'not fetched before the run ended', page };
  }
  if (page.verdict !== null && READ_VERDICTS.has(page.verdict)) return { state: 'read', page };
  if (page.verdict === 'skipped')
    return { state: 'skipped', reason: 'under the word floor or outside the languages', page };
  if (page.verdict === 'robots') return { state: 'withheld', reason: 'robots.txt forbids it', page };
  if (page.errorCode === 'NOT_FOUND' || page.httpStatus === 404 || page.httpStatus === 410) {
    const status = page.httpStatus === 404 || page.httpStatus === 410 ? page.httpStatus : 'soft 404';
    return { state: 'absent', reason: `not found (${status})`, page };
  }
  if (page.errorCode === 'TIER_LIMIT' || page.errorCode === 'BUDGET_EXHAUSTED') {
    return { state: 'withheld', reason: PAGE_ERROR_CODES[page.errorCode], page };
  }
  const code = page.errorCode && page.errorCode !== 'OK' ? page.errorCode : null;
  return {
    state: 'unverified',
    reason: code
      ? `${code}: ${PAGE_ERROR_CODES[code]}`
      : `not read (${page.status === 'error' ? 'nothing answered' : (page.verdict ?? 'no verdict')})`,
    page,
  };
}

const hasValue = (value: FieldValue): boolean =>
  value !== null && (Array.isArray(value) ? value.length > 0 : value.trim().length > 0);

/** The same page under the spellings a crawl may keep: scheme and host case, fragment, trailing slash. */
export function urlKey(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    const path = parsed.pathname.length > 1 ? withoutTrailingSlashes(parsed.pathname) : parsed.pathname;
    return `${parsed.protocol}//${parsed.host}${path}${parsed.search}`;
  } catch {
    return url;
  }
}

/**
 * `s` without its trailing slashes. A loop, not `/\/+$/`: that regex retries every run of
 * slashes to its end, quadratic in a path of many slashes that a page can write.
 */
const withoutTrailingSlashes = (s: string): string => {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x2f) end -= 1;
  return s.slice(0, end);
};
