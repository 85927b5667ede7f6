import { describe, expect, it } from '@jest/globals';
import { exportV1 } from '@tidemark/contracts';
import { CATALOG } from '../src/exports/catalog.js';
import { ExportService } from '../src/exports/export.service.js';
import type { RunExportRepository } from '../src/repositories/run-export.repository.js';
import { exportRpc } from '../src/rpc/export.rpc.js';

// Refusals happen before the repository is asked anything; one that asks would throw here.
const untouched = new Proxy({} as RunExportRepository, {
  get: (_t, name) => () => {
    throw new Error(`the repository was asked for ${String(name)}`);
  },
});
const rpc = exportRpc(new ExportService(untouched, { batchRows: 200, chunkBytes: 64 * 1024 }));

const firstOf = async (req: Partial<exportV1.StreamRequest>) => {
  for await (const m of rpc.stream(exportV1.StreamRequest.fromPartial({ workspaceId: 'ws_1', projectId: 'p', ...req })))
    return m;
  return null;
};

describe('the export service’s answers as proto messages', () => {
  it('sends the whole catalog with datasets and formats as enum values', async () => {
    const wire = exportV1.CatalogResponse.decode(exportV1.CatalogResponse.encode(await rpc.catalog()).finish());
    expect(wire.datasets).toHaveLength(CATALOG.length);
    expect(wire.datasets[6]).toEqual({
      dataset: exportV1.Dataset.DATASET_LLMS_FULL,
      formats: [exportV1.ExportFormat.EXPORT_FORMAT_TXT],
      defaultFormat: exportV1.ExportFormat.EXPORT_FORMAT_TXT,
      rows: CATALOG[6]!.rows,
      fields: [],
    });
    expect(wire.datasets[0]!.fields).toEqual(CATALOG[0]!.fields);
  });

  it('refuses a request without a dataset, with one it does not know, or a format the dataset lacks', async () => {
    await expect(firstOf({})).rejects.toMatchObject({ code: 'validation', message: /unknown dataset ""/ });
    await expect(firstOf({ dataset: 99 as exportV1.Dataset })).rejects.toMatchObject({
      code: 'validation',
      message: 'dataset: 99 is not a Dataset this service knows',
    });
    await expect(
      firstOf({ dataset: exportV1.Dataset.DATASET_LLMS, format: exportV1.ExportFormat.EXPORT_FORMAT_CSV }),
    ).rejects.toMatchObject({ code: 'validation', message: 'format: dataset llms comes as txt, not "csv"' });
  });
});
