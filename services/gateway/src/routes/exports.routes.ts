import type { Response } from 'express';
import {
  EXPORT_DATASETS,
  EXPORT_FORMATS,
  exportDatasetEnum,
  exportFormatEnum,
  httpUrl,
  exportV1,
} from '@tidemark/contracts';
import { InternalError } from '@tidemark/errors';
import type { RpcClient } from '@tidemark/rpc';
import { currentRequestId, type Logger } from '@tidemark/telemetry';
import { z } from 'zod';
import { idParam } from '../http/common.schemas.js';
import { forgetIdempotency } from '../http/idempotency.js';
import { defineRoute, type AuthContext, type Reply } from '../http/route.js';
import { exportCatalogSchema, exportCatalogToRest } from '../mappers/export-catalog.mapper.js';
import type { ProjectService } from '../services/project.service.js';

// Which format each dataset comes in is the export service's (GET /exports).
const MAX_URLS = 10_000;

const dataset = z
  .enum(EXPORT_DATASETS)
  .describe('pages, markdown, changes, fields, sitemap (jsonl, csv); llms, llms-full (txt)');
const format = z.enum(EXPORT_FORMATS).optional().describe('default: jsonl; txt for llms and llms-full');
const runId = z.string().min(1).max(100).optional().describe('default: the latest finished run');

const exportQuery = z.object({ dataset, format, run_id: runId });

const exportBody = z
  .strictObject({
    dataset,
    format,
    run_id: runId,
    urls: z
      .array(httpUrl)
      .min(1)
      .max(MAX_URLS)
      .describe('only rows of these URLs; a URL matches under either scheme, with or without a trailing slash'),
  })
  .meta({ id: 'ExportRequest' });

const FILE_DESCRIPTION =
  'the file, streamed as it is read: application/x-ndjson (jsonl), text/csv with a header row (RFC 4180; nested values as JSON), or text/plain (llms, llms-full); Content-Disposition names it, X-Run-Id says which run it is. A failure after the first bytes cuts the connection (the file is then incomplete, never silently short).';

/** Writes with backpressure: answers once the response takes more, false when the client left. */
const write = async (res: Response, data: Buffer): Promise<boolean> => {
  if (res.destroyed) return false;
  if (!res.write(data)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }
  return !res.destroyed;
};

/**
 * Dataset exports: the gateway checks the key may see the project, then pipes the export
 * service's stream to the response. An error before the first message is the usual envelope;
 * after it the status line is gone, so the connection is cut.
 */
export const exportRoutes = (
  exporter: RpcClient<exportV1.ExportServiceClient>,
  projects: ProjectService,
  logger: Logger,
) => {
  const stream = async (
    auth: AuthContext,
    res: Response,
    projectId: string,
    req: z.output<typeof exportQuery> & { urls?: string[] },
  ): Promise<Reply> => {
    await projects.get(auth, projectId);
    const call = exporter.stream('stream', {
      workspaceId: auth.workspaceId,
      projectId,
      runId: req.run_id ?? '',
      dataset: exportDatasetEnum.toProto(req.dataset),
      format: req.format
        ? exportFormatEnum.toProto(req.format)
        : exportV1.ExportFormat.EXPORT_FORMAT_UNSPECIFIED /* the dataset's default */,
      restricted: req.urls !== undefined,
      urls: req.urls ?? [],
    });
    const messages = call[Symbol.asyncIterator]();
    const first = await messages.next();
    const head = first.done ? undefined : first.value.head;
    if (!head) {
      call.cancel();
      throw new InternalError(new Error('the export stream began without its head'));
    }
    // A streamed file cannot be replayed: the export is a read, so the key keeps nothing and a
    // repeat exports again.
    await forgetIdempotency(res);

    let gone = false;
    res.once('close', () => {
      gone = !res.writableFinished;
      if (gone) call.cancel();
    });
    res.status(200);
    res.setHeader('Content-Type', head.contentType);
    res.setHeader('Content-Disposition', `attachment; filename="${head.filename}"`);
    res.setHeader('X-Run-Id', head.runId);
    res.setHeader('Cache-Control', 'no-store');
    try {
      let next = first;
      while (!next.done && !gone) {
        if (next.value.data.length && !(await write(res, next.value.data))) break;
        next = await messages.next();
      }
      if (!gone && !res.destroyed) res.end();
    } catch (err) {
      if (!gone) {
        logger.error({ err, requestId: currentRequestId(), projectId }, 'export failed after its first bytes');
        res.destroy();
      }
    } finally {
      await messages.return?.(undefined);
    }
    // Sent already; this reply only closes the route.
    return { status: 200 };
  };

  return [
    defineRoute({
      method: 'get',
      path: '/exports',
      tag: 'Exports',
      summary: 'What can be exported: each dataset with its formats, default format and fields',
      scope: 'read',
      responses: { 200: { description: 'the datasets', schema: exportCatalogSchema } },
      handler: async () => ({ status: 200, body: exportCatalogToRest(await exporter.call('catalog', {})) }),
    }),
    defineRoute({
      method: 'get',
      path: '/projects/:id/export',
      tag: 'Exports',
      summary: 'Stream a dataset of a run (the latest finished run by default) as a file',
      description:
        'Rows are read and sent as they go, never gathered first. A dataset given a format it does not come in answers 422.',
      scope: 'read',
      params: idParam,
      query: exportQuery,
      responses: { 200: { description: FILE_DESCRIPTION } },
      handler: ({ auth, params, query, res }) => stream(auth, res, params.id, query),
    }),
    defineRoute({
      method: 'post',
      path: '/projects/:id/export',
      tag: 'Exports',
      summary: 'Stream a dataset of a run restricted to the listed URLs (llms and llms-full too)',
      description:
        'A read: Idempotency-Key keeps nothing here (a streamed file cannot be replayed), so a repeat exports again.',
      scope: 'read',
      params: idParam,
      body: exportBody,
      responses: { 200: { description: FILE_DESCRIPTION } },
      handler: ({ auth, params, body, res }) => stream(auth, res, params.id, body),
    }),
  ];
};
