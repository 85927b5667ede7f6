import type { diffV1 } from '@tidemark/contracts';
import type { ChangeService } from '../changes/change.service.js';

/** gRPC in: decode → change service → JSON. */
export const diffRpc = (changes: ChangeService) => ({
  getChanges: async (req: diffV1.GetChangesRequest): Promise<diffV1.JsonResponse> => ({
    json: JSON.stringify(await changes.get(req.workspaceId, req.projectId, req.runId || null)),
  }),
  reviewEntry: async (req: diffV1.ReviewEntryRequest): Promise<diffV1.JsonResponse> => ({
    json: JSON.stringify(await changes.review(req.workspaceId, req.projectId, req.entryId, req.reviewed)),
  }),
  pageDiff: async (req: diffV1.PageRef): Promise<diffV1.JsonResponse> => ({
    json: JSON.stringify(await changes.pageDiff(req.workspaceId, req.projectId, req.url, req.runId || null)),
  }),
  markupDiff: async (req: diffV1.PageRef): Promise<diffV1.JsonResponse> => ({
    json: JSON.stringify(await changes.markupDiff(req.workspaceId, req.projectId, req.url, req.runId || null)),
  }),
});
