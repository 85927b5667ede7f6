import { describe, expect, it } from '@jest/globals';
import { exportV1 } from '@tidemark/contracts';
import { exportCatalogSchema, exportCatalogToRest } from '../src/mappers/export-catalog.mapper.js';

const D = exportV1.Dataset;
const F = exportV1.ExportFormat;

const catalog: exportV1.CatalogResponse = {
  datasets: [
    {
      dataset: D.DATASET_PAGES,
      formats: [F.EXPORT_FORMAT_JSONL, F.EXPORT_FORMAT_CSV],
      defaultFormat: F.EXPORT_FORMAT_JSONL,
      rows: 'every page row of the run, by URL, without bodies',
      fields: ['url', 'status', 'httpStatus', 'verdict', 'errorCode'],
    },
    {
      dataset: D.DATASET_FIELDS,
      formats: [F.EXPORT_FORMAT_JSONL, F.EXPORT_FORMAT_CSV],
      defaultFormat: F.EXPORT_FORMAT_JSONL,
      rows: 'every page of the run with extracted fields, by URL',
      fields: ['url', '<one per field>'],
    },
    {
      dataset: D.DATASET_LLMS_FULL,
      formats: [F.EXPORT_FORMAT_TXT],
      defaultFormat: F.EXPORT_FORMAT_TXT,
      rows: 'llms-full.txt: the markdown of every usable page',
      fields: [],
    },
  ],
};

describe('exportCatalogToRest', () => {
  it('answers the catalog of the REST API, datasets and formats by their names', () => {
    const wire = exportV1.CatalogResponse.decode(exportV1.CatalogResponse.encode(catalog).finish());
    const body = exportCatalogToRest(wire);
    expect(body).toEqual({
      data: [
        {
          dataset: 'pages',
          formats: ['jsonl', 'csv'],
          defaultFormat: 'jsonl',
          rows: 'every page row of the run, by URL, without bodies',
          fields: ['url', 'status', 'httpStatus', 'verdict', 'errorCode'],
        },
        {
          dataset: 'fields',
          formats: ['jsonl', 'csv'],
          defaultFormat: 'jsonl',
          rows: 'every page of the run with extracted fields, by URL',
          fields: ['url', '<one per field>'],
        },
        {
          dataset: 'llms-full',
          formats: ['txt'],
          defaultFormat: 'txt',
          rows: 'llms-full.txt: the markdown of every usable page',
          fields: [],
        },
      ],
    });
    expect(exportCatalogSchema.parse(body)).toEqual(body);
  });

  it('refuses a dataset without its default format (the zero value is no format)', () => {
    expect(() =>
      exportCatalogToRest({ datasets: [{ ...catalog.datasets[0]!, defaultFormat: F.EXPORT_FORMAT_UNSPECIFIED }] }),
    ).toThrow(/unknown value 0/);
  });
});
