import { Dataset, ExportFormat } from './generated/tidemark/export/v1/export.js';
import { protoEnum } from './proto-enum.js';

/** The spec's datasets (spec: Exports). */
export const EXPORT_DATASETS = ['pages', 'markdown', 'changes', 'fields', 'sitemap', 'llms', 'llms-full'] as const;
export type ExportDataset = (typeof EXPORT_DATASETS)[number];
export const exportDatasetEnum = protoEnum(Dataset, 'DATASET', EXPORT_DATASETS);

export const EXPORT_FORMATS = ['jsonl', 'csv', 'txt'] as const;
export type ExportFormatName = (typeof EXPORT_FORMATS)[number];
export const exportFormatEnum = protoEnum(ExportFormat, 'EXPORT_FORMAT', EXPORT_FORMATS);
