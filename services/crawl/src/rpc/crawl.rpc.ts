import {
  crawlKeepSchema,
  jobEnvelopeToProto,
  pageRowToProto,
  type CrawlEnvelope,
  type crawlV1,
} from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { CrawlService } from '../crawl/crawl.service.js';
import type { ProjectScopeService, ScopeDraft, SourcesDraft } from '../runs/project-scope.service.js';
import type { RunService } from '../runs/run.service.js';

const crawlEnvelopeToProto = ({ projectId, runId, ...job }: CrawlEnvelope): crawlV1.CrawlEnvelope => ({
  job: jobEnvelopeToProto(job),
  projectId,
  runId,
});

/** gRPC in: decode → crawl, run or scope service → the generated messages. */
export const crawlRpc = (crawls: CrawlService, runs: RunService, scopes: ProjectScopeService) => ({
  dryRun: (req: crawlV1.DryRunRequest): Promise<crawlV1.DryRunResponse> =>
    scopes.dryRun(req.workspaceId, req.projectId, (req.draft ?? {}) as ScopeDraft),
  previewSources: (req: crawlV1.DryRunRequest): Promise<crawlV1.PreviewSourcesResponse> =>
    scopes.previewSources(req.workspaceId, req.projectId, (req.draft ?? {}) as SourcesDraft),
  getSources: (req: crawlV1.ProjectRef): Promise<crawlV1.GetSourcesResponse> =>
    scopes.sources(req.workspaceId, req.projectId),
  startCrawl: async (req: crawlV1.StartCrawlRequest): Promise<crawlV1.StartCrawlResponse> => {
    const { envelope, secret } = await crawls.start(req.workspaceId, req.request ?? {}, req.requestId || null);
    return { envelope: crawlEnvelopeToProto(envelope), webhookSecret: secret ?? '' };
  },
  getCrawl: async (req: crawlV1.GetCrawlRequest): Promise<crawlV1.GetCrawlResponse> => {
    const job = await crawls.get(req.workspaceId, req.jobId);
    const envelope = await crawls.envelope(
      job,
      req.cursor || null,
      req.limit || 25,
      req.formatsGiven ? req.formats : null,
    );
    return { envelope: crawlEnvelopeToProto(envelope) };
  },
  getCrawlPage: async (req: crawlV1.GetCrawlPageRequest): Promise<crawlV1.GetCrawlPageResponse> => ({
    row: pageRowToProto(await crawls.page(req.workspaceId, req.jobId, req.url)),
  }),
  cancelCrawl: async (req: crawlV1.CancelCrawlRequest): Promise<crawlV1.CancelCrawlResponse> => {
    const job = await crawls.cancel(req.workspaceId, req.jobId);
    return { envelope: crawlEnvelopeToProto(await crawls.envelope(job, null, 0, [])) };
  },
  keepCrawl: async (req: crawlV1.KeepCrawlRequest): Promise<crawlV1.KeepCrawlResponse> => {
    // Checked again here: the gateway is one caller of this call, not its guard.
    const keep = crawlKeepSchema.safeParse({ name: req.name, schedule: req.schedule, retention: req.retention });
    if (!keep.success) throw new ValidationError('keep does not match its schema', { issues: keep.error.issues });
    const project = await crawls.keep(req.workspaceId, req.jobId, keep.data);
    return { projectId: project.id, name: project.name, schedule: project.schedule, retention: project.retention };
  },
  startRun: async (req: crawlV1.StartRunRequest): Promise<crawlV1.RunResponse> => ({
    run: await runs.start(req.workspaceId, req.projectId, req.trigger || 'manual'),
  }),
  listRuns: async (req: crawlV1.ListRunsRequest): Promise<crawlV1.ListRunsResponse> => {
    const { runs: list, next } = await runs.list(req.workspaceId, req.projectId, req.limit, req.cursor || null);
    return { runs: list, nextCursor: next ?? '' };
  },
  getRun: async (req: crawlV1.RunRef): Promise<crawlV1.RunResponse> => ({
    run: await runs.get(req.workspaceId, req.projectId, req.runId),
  }),
  recrawlRun: async (req: crawlV1.RecrawlRunRequest): Promise<crawlV1.RunResponse> => ({
    run: await runs.recrawl(req.workspaceId, req.projectId, req.urls),
  }),
  cancelRun: async (req: crawlV1.RunRef): Promise<crawlV1.RunResponse> => ({
    run: await runs.cancel(req.workspaceId, req.projectId, req.runId),
  }),
});
