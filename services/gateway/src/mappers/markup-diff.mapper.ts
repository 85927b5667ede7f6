// diffV1.MarkupDiff (DiffService.MarkupDiff) → GET /projects/{id}/changes/markup.
import { MARKUP_CHANGE_KINDS, markupChangeKindEnum, type diffV1 } from '@tidemark/contracts';
import { z } from 'zod';
import { nullable, required } from './proto-values.js';

const markupChangeSchema = z.object({
  path: z.string().describe('CSS selector of the element (the parent’s, for a text change)'),
  kind: z.enum(MARKUP_CHANGE_KINDS),
  attr: z.string().optional().describe('the attribute, for kind attr'),
  before: z.string().nullable().describe('text, or the opening tag of an element without text; at most 200 characters'),
  after: z.string().nullable(),
  volatile: z.boolean().describe('only volatile text changed (a timestamp, a counter): shown, not counted'),
});

export const markupDiffSchema = z
  .object({
    url: z.string(),
    runId: z.string(),
    baseline: z.string().nullable().describe('the run compared against; null for a first run'),
    changes: z.array(markupChangeSchema),
    truncated: z.boolean().describe('changes beyond the first 1,000 were dropped'),
  })
  .meta({ id: 'MarkupDiff' });
export type MarkupDiffBody = z.output<typeof markupDiffSchema>;

export const markupDiffToRest = (message: diffV1.MarkupDiff | undefined): MarkupDiffBody => {
  const diff = required(message, 'MarkupDiff');
  return {
    url: diff.url,
    runId: diff.runId,
    baseline: nullable(diff.baselineRunId),
    changes: diff.changes.map((c) => ({
      path: c.path,
      kind: markupChangeKindEnum.fromProto(c.kind),
      ...(c.attr !== undefined ? { attr: c.attr } : {}),
      before: nullable(c.before),
      after: nullable(c.after),
      volatile: c.volatile,
    })),
    truncated: diff.truncated,
  };
};
