import { LINK_SETS, PAGE_FLAGS, type crawlPagesV1, type LinkSet, type PageFlag } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { PagesService } from './pages.service.js';

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

/** gRPC in: decode → pages service, which answers the generated messages. */
export const pagesRpc = (pages: PagesService) => ({
  listPages: (req: crawlPagesV1.ListPagesRequest): Promise<crawlPagesV1.ListPagesResponse> =>
    pages.list(req.workspaceId, req.projectId, {
      runId: req.runId || null,
      verdicts: req.verdicts,
      flag: flagOf(req.flag),
      q: req.q,
      cursor: req.cursor || null,
      limit: req.limit,
      formats: req.formats,
    }),
  getPageContent: (req: crawlPagesV1.PageContentRequest): Promise<crawlPagesV1.PageContentResponse> =>
    pages.content(req.workspaceId, req.projectId, req.runId || null, req.url, req.formats),
  getPageScreenshot: async (req: crawlPagesV1.PageScreenshotRequest): Promise<crawlPagesV1.PageScreenshotResponse> => ({
    jpeg: await pages.screenshot(req.workspaceId, req.projectId, req.runId || null, req.url),
  }),
  listLinks: (req: crawlPagesV1.ListLinksRequest): Promise<crawlPagesV1.ListLinksResponse> =>
    pages.links(req.workspaceId, req.projectId, req.runId, kindOf(req.kind), req.cursor || null, req.limit),
  searchPages: (req: crawlPagesV1.SearchPagesRequest): Promise<crawlPagesV1.SearchPagesResponse> =>
    pages.search(req.workspaceId, req.projectId, req.runId || null, req.mode, req.q),
  matchSelectors: (req: crawlPagesV1.MatchSelectorsRequest): Promise<crawlPagesV1.MatchSelectorsResponse> =>
    pages.matchSelectors(req.workspaceId, req.projectId, req.runId || null, req.selectors),
  removedContent: (req: crawlPagesV1.RemovedContentRequest): Promise<crawlPagesV1.RemovedContentResponse> =>
    pages.removed(req.workspaceId, req.projectId, req.url, req.runId || null),
  previewContent: (req: crawlPagesV1.PreviewContentRequest): Promise<crawlPagesV1.PreviewContentResponse> =>
    pages.previewContent(req.workspaceId, req.projectId, req.url || null, req.draft),
});
