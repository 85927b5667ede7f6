import {
  applyConfigPatch,
  configInputSchema,
  toConfigPatch,
  type ResolvedConfig,
  type scrapeV1,
} from '@tidemark/contracts';
import { ApiError, NotFoundError, ValidationError } from '@tidemark/errors';
import { readPage } from '../ladder/read-page.js';
import { storedBodies, type PageRepository } from '../repositories/page.repository.js';

/**
 * gRPC in: what the content filters make of one stored page under a config (the project's saved
 * one with unsaved changes on top). Reads the page's stored raw html; nothing is fetched.
 */
export const contentPreviewRpc = (pages: PageRepository) => ({
  previewContent: async (req: scrapeV1.PreviewContentRequest): Promise<scrapeV1.PreviewContentResponse> => {
    const [row] = await pages.atPositions(req.workspaceId, req.jobId, [req.position]);
    if (!row) throw new NotFoundError('page of this run');
    const html = storedBodies(row).html;
    if (!html)
      throw new ApiError(
        'conflict',
        'this page’s html was not stored: the preview needs it (STORE_HTML home keeps the home page’s, always keeps every page’s)',
      );
    let config: ResolvedConfig;
    try {
      const saved = JSON.parse(req.savedConfigJson || '{}') as ResolvedConfig;
      const draft = configInputSchema.safeParse(JSON.parse(req.draftJson || '{}'));
      if (!draft.success)
        throw new ValidationError('body.config does not match the config schema', { issues: draft.error.issues });
      config = applyConfigPatch(saved, toConfigPatch(draft.data));
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw new ValidationError(`body.config: ${(err as Error).message}`);
    }
    const data = row.data as { finalUrl?: string | null; httpStatus?: number | null };
    const reading = readPage(
      {
        html,
        status: data.httpStatus ?? row.httpStatus ?? 200,
        headers: {},
        contentType: 'text/html',
        finalUrl: data.finalUrl ?? row.url,
        redirects: [],
      },
      'http',
      { formats: ['markdown'], config, maxCreditsPerPage: null },
    );
    return {
      previewJson: JSON.stringify({
        url: row.url,
        verdict: reading.verdict.verdict,
        errorCode: reading.verdict.errorCode,
        signals: reading.verdict.signals,
        words: reading.content.words,
        language: reading.content.language,
        markdown: reading.content.markdown ?? '',
        fields: reading.content.fields ?? {},
        fieldErrors: reading.content.fieldErrors ?? {},
      }),
    };
  },
});
