import { jobEnvelopeToProto, pageRowToProto, scrapeRequestSchema, type scrapeV1 } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import { jobKind, type JobService } from '../jobs/job.service.js';
import type { ScrapeNow } from '../jobs/scrape-now.js';

/** The caller's request document: the schema in libs/contracts is the one description of it. */
const parseRequest = (document: Record<string, unknown> | undefined) => {
  const raw = document ?? {};
  const parsed = scrapeRequestSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ValidationError('scrape request does not match its schema', { issues: parsed.error.issues });
  }
  return { request: parsed.data, raw };
};

/** gRPC in: decode → job service (one URL now: ScrapeNow) → tidemark.page.v1 envelopes and rows. */
export const scrapeRpc = (jobs: JobService, now: ScrapeNow) => ({
  scrapeNow: async (req: scrapeV1.ScrapeNowRequest): Promise<scrapeV1.ScrapeNowResponse> => {
    const { request, raw } = parseRequest(req.request);
    const kind = jobKind(req.kind);
    const envelope = await now.run(
      req.workspaceId,
      req.url || request.url!,
      request,
      raw,
      req.requestId || null,
      kind,
      req.waitMs,
    );
    return {
      jobId: envelope.id,
      done: !['queued', 'running'].includes(envelope.status),
      envelope: jobEnvelopeToProto(envelope),
      credits: envelope.creditsUsed,
    };
  },
  startBatch: async (req: scrapeV1.StartBatchRequest): Promise<scrapeV1.StartBatchResponse> => {
    const { request, raw } = parseRequest(req.request);
    const { job, secret } = await jobs.start(req.workspaceId, req.urls, request, raw, req.requestId || null);
    return { envelope: jobEnvelopeToProto(await jobs.envelope(job, 0, 0)), webhookSecret: secret ?? '' };
  },
  getJob: async (req: scrapeV1.GetJobRequest): Promise<scrapeV1.GetJobResponse> => {
    const job = await jobs.get(req.workspaceId, req.jobId, jobKind(req.kind));
    return { envelope: jobEnvelopeToProto(await jobs.envelope(job, req.after, req.limit || 100)) };
  },
  listJobs: async (req: scrapeV1.ListJobsRequest): Promise<scrapeV1.ListJobsResponse> => {
    const rows = await jobs.list(req.workspaceId, req.before || undefined, req.limit || 25);
    return { jobs: await Promise.all(rows.map(async (j) => jobEnvelopeToProto(await jobs.envelope(j, 0, 0)))) };
  },
  getScreenshot: async (req: scrapeV1.GetScreenshotRequest): Promise<scrapeV1.GetScreenshotResponse> => ({
    jpeg: Buffer.from(await jobs.screenshot(req.workspaceId, req.jobId, req.position, jobKind(req.kind))),
  }),
  getPageRows: async (req: scrapeV1.GetPageRowsRequest): Promise<scrapeV1.GetPageRowsResponse> => {
    const { rows, positionsRead } = await jobs.rowsAt(req.workspaceId, req.jobId, req.positions, req.formats);
    return { rows: rows.map(({ position, row }) => ({ position, row: pageRowToProto(row) })), positionsRead };
  },
  cancelJob: async (req: scrapeV1.CancelJobRequest): Promise<scrapeV1.CancelJobResponse> => {
    const job = await jobs.cancel(req.workspaceId, req.jobId);
    return { envelope: jobEnvelopeToProto(await jobs.envelope(job, 0, 0)) };
  },
});
