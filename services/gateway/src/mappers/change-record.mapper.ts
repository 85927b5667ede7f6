// diffV1.ChangeRecord (DiffService.GetChanges) → GET /projects/{id}/changes, and
// diffV1.ReviewEntryResponse (DiffService.ReviewEntry) → POST /projects/{id}/changes/{change}/review.
import { CHANGE_KINDS, changeKindEnum, digestSchema, type diffV1 } from '@tidemark/contracts';
import { z } from 'zod';
import { nullable, required } from './proto-values.js';

const changeCountsSchema = z.object({
  added: z.number().int(),
  removed: z.number().int(),
  modified: z.number().int(),
  same: z.number().int(),
  withheld: z.number().int(),
  unverified: z.number().int(),
  skipped: z.number().int(),
  fields: z.number().int().describe('field values that changed (one per page and field)'),
  selectorBreaks: z.number().int().describe('fields whose selector matched in the baseline and matches nothing now'),
  volatileBlocks: z.number().int().describe('block changes set aside as noise, over all pages'),
});

const coverageSchema = z
  .object({
    verdict: z.boolean(),
    read: z.number().int().describe('baseline pages that were read and are read again in this run'),
    expected: z.number().int().describe('baseline pages that were read: what this run had to read again'),
    share: z.number().describe('read / expected (1 when nothing was expected)'),
    threshold: z.number().describe('the share under which the comparison is no verdict'),
    reason: z.string(),
  })
  .describe('verdict false: the run read too little of the site to call removals');

const templateChangeSchema = z
  .object({
    section: z.string().nullable(),
    before: z.string().nullable(),
    after: z.string().nullable(),
    pages: z.number().int().describe('pages that carry it'),
    urls: z.array(z.string()).describe('the first few of them'),
  })
  .describe('a change to a template pagelet, reported once for every page that carries it');

const selectorBreakSchema = z.object({
  field: z.string(),
  selector: z.string(),
  repointed: z
    .object({ selector: z.string(), confidence: z.number(), value: z.string() })
    .nullable()
    .describe('where the same value now lives; null when no selector was found above the confidence threshold'),
});

export const changeEntrySchema = z
  .object({
    id: z.string(),
    url: z.string(),
    kind: z.enum(CHANGE_KINDS),
    reason: z.string().optional().describe('why a page is withheld, unverified, removed or skipped'),
    wordsAdded: z.number().int(),
    wordsRemoved: z.number().int(),
    section: z.string().nullable().describe('the section with the most changed words'),
    volatile: z.boolean().describe('the page changed, and all of it was noise (it is then same)'),
    volatileBlocks: z.number().int(),
    fields: z.array(z.string()).describe('names of fields whose value changed'),
    selectorBreaks: z.array(selectorBreakSchema),
    movedTo: z.string().optional().describe('a removed page whose content now lives at an added URL'),
    movedFrom: z.string().optional().describe('an added page whose content lived at a removed URL'),
    notify: z
      .boolean()
      .describe(
        'the change reaches notify_min_words (added and removed always): page.changed tells it, a first run none',
      ),
    reviewed: z.boolean(),
  })
  .meta({ id: 'ChangeEntry' });

export const changeRecordSchema = z
  .object({
    id: z.string(),
    runId: z.string(),
    baseline: z.string().nullable().describe('the run compared against; null for a first run'),
    counts: changeCountsSchema,
    coverage: coverageSchema,
    templateChanges: z.array(templateChangeSchema),
    digest: digestSchema.nullable().describe('the model-written digest (change_digest); null while there is none'),
    entries: z.array(changeEntrySchema).describe('every page that did not stay the same without noise, by URL'),
    createdAt: z.string(),
  })
  .meta({ id: 'ChangeRecord' });
export type ChangeRecordBody = z.output<typeof changeRecordSchema>;

export const changeReviewSchema = z.object({ id: z.string(), reviewed: z.boolean() }).meta({ id: 'ChangeReview' });

const changeEntryToRest = (e: diffV1.ChangeEntry): z.output<typeof changeEntrySchema> => ({
  id: e.id,
  url: e.url,
  kind: changeKindEnum.fromProto(e.kind),
  ...(e.reason !== undefined ? { reason: e.reason } : {}),
  wordsAdded: e.wordsAdded,
  wordsRemoved: e.wordsRemoved,
  section: nullable(e.section),
  volatile: e.volatile,
  volatileBlocks: e.volatileBlocks,
  fields: e.fields,
  selectorBreaks: e.selectorBreaks.map((b) => ({
    field: b.field,
    selector: b.selector,
    repointed: b.repointed
      ? { selector: b.repointed.selector, confidence: b.repointed.confidence, value: b.repointed.value }
      : null,
  })),
  ...(e.movedTo !== undefined ? { movedTo: e.movedTo } : {}),
  ...(e.movedFrom !== undefined ? { movedFrom: e.movedFrom } : {}),
  notify: e.notify,
  reviewed: e.reviewed,
});

export const changeRecordToRest = (record: diffV1.ChangeRecord | undefined): ChangeRecordBody => {
  const r = required(record, 'ChangeRecord');
  const counts = required(r.counts, 'ChangeRecord.counts');
  const coverage = required(r.coverage, 'ChangeRecord.coverage');
  return {
    id: r.id,
    runId: r.runId,
    baseline: nullable(r.baselineRunId),
    counts: {
      added: counts.added,
      removed: counts.removed,
      modified: counts.modified,
      same: counts.same,
      withheld: counts.withheld,
      unverified: counts.unverified,
      skipped: counts.skipped,
      fields: counts.fields,
      selectorBreaks: counts.selectorBreaks,
      volatileBlocks: counts.volatileBlocks,
    },
    coverage: {
      verdict: coverage.verdict,
      read: coverage.read,
      expected: coverage.expected,
      share: coverage.share,
      threshold: coverage.threshold,
      reason: coverage.reason,
    },
    templateChanges: r.templateChanges.map((t) => ({
      section: nullable(t.section),
      before: nullable(t.before),
      after: nullable(t.after),
      pages: t.pages,
      urls: t.urls,
    })),
    digest: r.digest ? { summary: r.digest.summary, points: r.digest.points, significant: r.digest.significant } : null,
    entries: r.entries.map(changeEntryToRest),
    createdAt: required(r.createdAt, 'ChangeRecord.created_at').toISOString(),
  };
};

export const changeReviewToRest = (res: diffV1.ReviewEntryResponse): z.output<typeof changeReviewSchema> => ({
  id: res.entryId,
  reviewed: res.reviewed,
});
