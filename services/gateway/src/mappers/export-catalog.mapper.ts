// exportV1.CatalogResponse (ExportService.Catalog) → GET /exports.
import {
  EXPORT_DATASETS,
  EXPORT_FORMATS,
  exportDatasetEnum,
  exportFormatEnum,
  type exportV1,
} from '@tidemark/contracts';
import { z } from 'zod';

export const exportCatalogSchema = z
  .object({
    data: z.array(
      z.object({
        dataset: z.enum(EXPORT_DATASETS),
        formats: z.array(z.enum(EXPORT_FORMATS)),
        defaultFormat: z.enum(EXPORT_FORMATS),
        rows: z.string().describe('which rows, in which order'),
        fields: z.array(z.string()).describe('the columns of jsonl objects and csv headers, in order'),
      }),
    ),
  })
  .meta({ id: 'ExportCatalog' });
export type ExportCatalogBody = z.output<typeof exportCatalogSchema>;

export const exportCatalogToRest = (catalog: exportV1.CatalogResponse): ExportCatalogBody => ({
  data: catalog.datasets.map((d) => ({
    dataset: exportDatasetEnum.fromProto(d.dataset),
    formats: d.formats.map((f) => exportFormatEnum.fromProto(f)),
    defaultFormat: exportFormatEnum.fromProto(d.defaultFormat),
    rows: d.rows,
    fields: d.fields,
  })),
});
