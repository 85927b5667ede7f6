// diffV1.PageDiff (DiffService.PageDiff) → GET /projects/{id}/changes/page.
import { changeKindEnum, type diffV1 } from '@tidemark/contracts';
import { z } from 'zod';
import { nullable, required } from './proto-values.js';

const wordHunkSchema = z.object({
  section: z.string().nullable().describe('the heading the hunk falls under'),
  removed: z.string(),
  added: z.string(),
  wordsRemoved: z.number().int(),
  wordsAdded: z.number().int(),
  contextBefore: z.string().describe('up to five unchanged tokens before it, from the new version'),
  contextAfter: z.string().describe('up to five unchanged tokens after it'),
});

export const pageDiffSchema = z
  .object({
    url: z.string(),
    runId: z.string(),
    baseline: z.string().nullable().describe('the run compared against; null for a first run'),
    kind: z.enum(['added', 'removed', 'modified', 'same']),
    wordsAdded: z.number().int(),
    wordsRemoved: z.number().int(),
    section: z.string().nullable().describe('the section with the most changed words'),
    sections: z.array(z.string()).describe('every section with changes, the most changed words first'),
    hunks: z.array(wordHunkSchema),
  })
  .meta({ id: 'PageDiff' });
export type PageDiffBody = z.output<typeof pageDiffSchema>;

const PAGE_DIFF_KINDS = new Set<string>(pageDiffSchema.shape.kind.options);

export const pageDiffToRest = (message: diffV1.PageDiff | undefined): PageDiffBody => {
  const diff = required(message, 'PageDiff');
  const kind = changeKindEnum.fromProto(diff.kind);
  if (!PAGE_DIFF_KINDS.has(kind)) throw new Error(`a page diff of kind ${kind}`);
  return {
    url: diff.url,
    runId: diff.runId,
    baseline: nullable(diff.baselineRunId),
    kind: kind as PageDiffBody['kind'],
    wordsAdded: diff.wordsAdded,
    wordsRemoved: diff.wordsRemoved,
    section: nullable(diff.section),
    sections: diff.sections,
    hunks: diff.hunks.map((h) => ({
      section: nullable(h.section),
      removed: h.removed,
      added: h.added,
      wordsRemoved: h.wordsRemoved,
      wordsAdded: h.wordsAdded,
      contextBefore: h.contextBefore,
      contextAfter: h.contextAfter,
    })),
  };
};
