import {
  applyConfigPatch,
  configInputSchema,
  pageErrorCodeEnum,
  removalReasonEnum,
  toConfigPatch,
  verdictEnum,
  type ResolvedConfig,
  type scrapeV1,
} from '@tidemark/contracts';
import { ApiError, NotFoundError, ValidationError } from '@tidemark/errors';
import { ReadingFailed, type PageReaderPool } from '../reading/page-reader-pool.js';
import { storedBodies, type PageRepository } from '../repositories/page.repository.js';

/**
 * gRPC in: what the content filters make of one stored page under a config (the project's saved
 * one with unsaved changes on top). Reads the page's stored raw html; nothing is fetched.
 */
const storedHtml = async (pages: PageRepository, req: scrapeV1.PreviewContentRequest) => {
  const [row] = await pages.atPositions(req.workspaceId, req.jobId, [req.position]);
  if (!row) throw new NotFoundError('page of this run');
  const html = storedBodies(row).html;
  if (!html)
    throw new ApiError(
      'conflict',
      'this page’s html was not stored: it is needed here (STORE_HTML home keeps the home page’s, always keeps every page’s)',
    );
  return { row, html };
};

export const contentPreviewRpc = (pages: PageRepository, reader: PageReaderPool) => ({
  /** What the content filters take out of a stored page under the saved config. */
  explainRemovals: async (req: scrapeV1.PreviewContentRequest): Promise<scrapeV1.ExplainRemovalsResponse> => {
    const { row, html } = await storedHtml(pages, req);
    const config = applyConfigPatch((req.savedConfig ?? {}) as ResolvedConfig, {});
    const c = config.content;
    // On a reading thread within its budget: the selectors are the project's, the markup the web's
    // (nested :has() over a deep page is quadratic), and this event loop also heartbeats work.
    const removed = await reader
      .removals(html, {
        url: (row.data as { finalUrl?: string | null }).finalUrl ?? row.url,
        onlyMainContent: c.only_main_content,
        includeTags: c.include_tags,
        excludeTags: c.exclude_tags,
        removeBanners: c.remove_banners,
        removeBase64Images: c.remove_base64_images,
      })
      .catch((err: unknown) => {
        if (err instanceof ReadingFailed)
          throw new ValidationError(
            `config.content: ${err.message} on this page; use simpler include_tags and exclude_tags selectors`,
          );
        throw err;
      });
    const counts: Record<string, number> = {};
    for (const r of removed) counts[r.why] = (counts[r.why] ?? 0) + 1;
    return {
      removals: {
        url: row.url,
        counts,
        removed: removed
          .slice(0, 500)
          .map((r) => ({ why: removalReasonEnum.toProto(r.why), element: r.element, words: r.words, text: r.text })),
      },
    };
  },
  previewContent: async (req: scrapeV1.PreviewContentRequest): Promise<scrapeV1.PreviewContentResponse> => {
    const { row, html } = await storedHtml(pages, req);
    let config: ResolvedConfig;
    try {
      const saved = (req.savedConfig ?? {}) as ResolvedConfig;
      const draft = configInputSchema.safeParse(req.draft ?? {});
      if (!draft.success)
        throw new ValidationError('body.config does not match the config schema', { issues: draft.error.issues });
      config = applyConfigPatch(saved, toConfigPatch(draft.data));
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw new ValidationError(`body.config: ${(err as Error).message}`);
    }
    const data = row.data as { finalUrl?: string | null; httpStatus?: number | null };
    const reading = await reader
      .read(
        {
          html,
          status: data.httpStatus ?? row.httpStatus ?? 200,
          headers: {},
          contentType: 'text/html',
          finalUrl: data.finalUrl ?? row.url,
          redirects: [],
        },
        'http',
        { formats: ['markdown'], config, maxCreditsPerPage: null, respectRobots: false },
      )
      .catch((err: unknown) => {
        // The draft's selectors are the caller's: one that cannot be read in time is theirs to fix.
        if (err instanceof ReadingFailed) throw new ValidationError(`body.config: ${err.message} on this page`);
        throw err;
      });
    return {
      preview: {
        url: row.url,
        verdict: verdictEnum.toProto(reading.verdict.verdict),
        errorCode: pageErrorCodeEnum.toProto(reading.verdict.errorCode),
        signals: reading.verdict.signals,
        words: reading.content.words,
        language: reading.content.language ?? undefined,
        markdown: reading.content.markdown ?? '',
        fields: reading.content.fields ?? {},
        fieldErrors: reading.content.fieldErrors ?? {},
      },
    };
  },
});
