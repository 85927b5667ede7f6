import { exportDatasetEnum, exportFormatEnum, exportV1 } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { ExportService } from '../exports/export.service.js';

/** A request's enum as the service's name; unspecified is '' (for a format: the dataset's default). */
const nameOf = <N extends string>(
  codec: { fromProto(value: number): N },
  value: number,
  field: string,
  enumName: string,
): N | '' => {
  if (value === 0) return '';
  try {
    return codec.fromProto(value);
  } catch {
    throw new ValidationError(`${field}: ${value} is not a ${enumName} this service knows`);
  }
};

/** gRPC in: decode → export service → messages. */
export const exportRpc = (exports: ExportService) => ({
  catalog: async () =>
    ({
      datasets: exports.catalog().map((d) => ({
        dataset: exportDatasetEnum.toProto(d.dataset),
        formats: d.formats.map((f) => exportFormatEnum.toProto(f)),
        defaultFormat: exportFormatEnum.toProto(d.defaultFormat),
        rows: d.rows,
        fields: d.fields,
      })),
    }) satisfies exportV1.CatalogResponse,
  stream: (req: exportV1.StreamRequest): AsyncIterable<exportV1.StreamResponse> =>
    exports.messages({
      workspaceId: req.workspaceId,
      projectId: req.projectId,
      runId: req.runId || null,
      dataset: nameOf(exportDatasetEnum, req.dataset, 'dataset', 'Dataset'),
      format: nameOf(exportFormatEnum, req.format, 'format', 'ExportFormat'),
      urls: req.restricted ? req.urls : null,
    }),
});
