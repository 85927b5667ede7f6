import type { exportV1 } from '@tidemark/contracts';
import type { ExportService } from '../exports/export.service.js';

/** gRPC in: decode → export service → messages. */
export const exportRpc = (exports: ExportService) => ({
  catalog: async (): Promise<exportV1.CatalogResponse> => ({ json: JSON.stringify(exports.catalog()) }),
  stream: (req: exportV1.StreamRequest): AsyncIterable<exportV1.StreamResponse> =>
    exports.messages({
      workspaceId: req.workspaceId,
      projectId: req.projectId,
      runId: req.runId || null,
      dataset: req.dataset,
      format: req.format,
      urls: req.restricted ? req.urls : null,
    }),
});
