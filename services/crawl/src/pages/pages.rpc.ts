import { LINK_SETS, PAGE_FLAGS, type crawlPagesV1, type LinkSet, type PageFlag } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { PagesService } from './pages.service.js';

const json = (value: unknown): crawlPagesV1.PagesJson => ({ json: JSON.stringify(value) });

const flagOf = (raw: string): PageFlag | null => {
  if (!raw) return null;
  if (!(PAGE_FLAGS as readonly string[]).includes(raw))
    throw new ValidationError(`query.flag: one of ${PAGE_FLAGS.join(', ')}`, undefined, 400);
  return raw as PageFlag;
};

const kindOf = (raw: string): LinkSet => {
  if (!raw) return 'orphans';
  if (!(LINK_SETS as readonly string[]).includes(raw))
    throw new ValidationError(`query.kind: one of ${LINK_SETS.join(', ')}`, undefined, 400);
  return raw as LinkSet;
};

/** gRPC in: decode → pages service → JSON. */
export const pagesRpc = (pages: PagesService) => ({
  listPages: async (req: crawlPagesV1.ListPagesRequest) =>
    json(
      await pages.list(req.workspaceId, req.projectId, {
        runId: req.runId || null,
        verdicts: req.verdicts,
        flag: flagOf(req.flag),
        q: req.q,
        cursor: req.cursor || null,
        limit: req.limit,
        formats: req.formats,
      }),
    ),
  getPageContent: async (req: crawlPagesV1.PageContentRequest) =>
    json(await pages.content(req.workspaceId, req.projectId, req.runId || null, req.url, req.formats)),
  getPageScreenshot: async (req: crawlPagesV1.PageScreenshotRequest): Promise<crawlPagesV1.PageScreenshotResponse> => ({
    jpeg: await pages.screenshot(req.workspaceId, req.projectId, req.runId || null, req.url),
  }),
  listLinks: async (req: crawlPagesV1.ListLinksRequest) =>
    json(await pages.links(req.workspaceId, req.projectId, req.runId, kindOf(req.kind), req.cursor || null, req.limit)),
  searchPages: async (req: crawlPagesV1.SearchPagesRequest) =>
    json(await pages.search(req.workspaceId, req.projectId, req.runId || null, req.mode, req.q)),
  matchSelectors: async (req: crawlPagesV1.MatchSelectorsRequest) =>
    json(await pages.matchSelectors(req.workspaceId, req.projectId, req.runId || null, req.selectors)),
  removedContent: async (req: crawlPagesV1.RemovedContentRequest) =>
    json(await pages.removed(req.workspaceId, req.projectId, req.url, req.runId || null)),
  previewContent: async (req: crawlPagesV1.PreviewContentRequest) =>
    json(await pages.previewContent(req.workspaceId, req.projectId, req.url || null, req.draftJson)),
});
