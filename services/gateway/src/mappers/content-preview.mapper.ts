// crawlPagesV1 (PagesService PreviewContent, RemovedContent), whose scrapeV1.ContentPreview and
// scrapeV1.Removals the scrape service composed → POST /projects/{id}/content/preview and GET
// /projects/{id}/pages/removed.
import {
  PAGE_ERROR_CODES,
  PAGE_VERDICTS,
  pageErrorCodeEnum,
  REMOVAL_REASONS,
  removalReasonEnum,
  verdictEnum,
  type crawlPagesV1,
  type PageErrorCode,
} from '@tidemark/contracts';
import { z } from 'zod';
import { nullable, required } from './proto-values.js';

export const contentPreviewSchema = z
  .object({
    runId: z.string().describe('the last finished run, whose stored page was read'),
    url: z.string(),
    verdict: z.enum(PAGE_VERDICTS),
    errorCode: z.enum(Object.keys(PAGE_ERROR_CODES) as [PageErrorCode, ...PageErrorCode[]]),
    signals: z.array(z.string()),
    words: z.number().int(),
    language: z.string().nullable().describe('ISO 639-1 when known'),
    markdown: z.string(),
    fields: z.record(z.string(), z.unknown()).describe('the field values under the config previewed'),
    fieldErrors: z.record(z.string(), z.string()).describe('fields whose selector could not be read, with the reason'),
  })
  .meta({ id: 'ContentPreview' });
export type ContentPreviewBody = z.output<typeof contentPreviewSchema>;

export const removedContentSchema = z
  .object({
    runId: z.string(),
    url: z.string(),
    counts: z
      .record(z.string(), z.number().int())
      .describe(`elements taken out per reason (${REMOVAL_REASONS.join(', ')})`),
    removed: z
      .array(
        z.object({
          why: z.enum(REMOVAL_REASONS),
          element: z.string().describe('the element as a short selector: tag, id and first classes'),
          words: z.number().int(),
          text: z.string().describe('the start of its text'),
        }),
      )
      .describe('in the order the pipeline takes them out; at most 500'),
  })
  .meta({ id: 'RemovedContent' });
export type RemovedContentBody = z.output<typeof removedContentSchema>;

export const contentPreviewToRest = (res: crawlPagesV1.PreviewContentResponse): ContentPreviewBody => {
  const p = required(res.preview, 'PreviewContentResponse.preview');
  return {
    runId: res.runId,
    url: p.url,
    verdict: verdictEnum.fromProto(p.verdict),
    errorCode: pageErrorCodeEnum.fromProto(p.errorCode),
    signals: p.signals,
    words: p.words,
    language: nullable(p.language),
    markdown: p.markdown,
    fields: p.fields ?? {},
    fieldErrors: { ...p.fieldErrors },
  };
};

export const removedContentToRest = (res: crawlPagesV1.RemovedContentResponse): RemovedContentBody => {
  const r = required(res.removals, 'RemovedContentResponse.removals');
  return {
    runId: res.runId,
    url: r.url,
    counts: { ...r.counts },
    removed: r.removed.map((e) => ({
      why: removalReasonEnum.fromProto(e.why),
      element: e.element,
      words: e.words,
      text: e.text,
    })),
  };
};
