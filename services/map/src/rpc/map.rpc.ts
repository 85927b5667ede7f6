import { randomUUID } from 'node:crypto';
import type { mapV1 } from '@tidemark/contracts';
import type { DiscoveryService, FileCredits, MapEntry } from '../discovery/discovery.service.js';
import { parseMapInput, type MapJobService } from '../jobs/map-job.service.js';
import type { SnapshotService } from '../snapshots/snapshot.service.js';

const DISCOVER_TIMEOUT_MS = 60_000;
const MAX_DISCOVER_TIMEOUT_MS = 10 * 60_000;
const MAX_FEEDS = 100;
const MAX_PAGE = 1000;

/** gRPC in: decode → job service or discovery → answer. */
export const mapRpc = (deps: {
  jobs: MapJobService;
  discovery: DiscoveryService;
  credits: (workspaceId: string, referencePrefix: string) => FileCredits;
  snapshots: SnapshotService;
}) => ({
  getDiscovery: async (req: mapV1.ProjectDiscoveryRequest): Promise<mapV1.JsonAnswer> => ({
    json: JSON.stringify(await deps.snapshots.get(req.workspaceId, req.projectId)),
  }),
  startDiscovery: async (req: mapV1.ProjectDiscoveryRequest): Promise<mapV1.JsonAnswer> => ({
    json: JSON.stringify(await deps.snapshots.start(req.workspaceId, req.projectId)),
  }),
  discoveryEntries: async (req: mapV1.DiscoveryEntriesRequest): Promise<mapV1.JsonAnswer> => ({
    json: JSON.stringify(
      await deps.snapshots.entries(req.workspaceId, req.projectId, {
        ...(req.file ? { file: req.file } : {}),
        ...(req.prefix ? { prefix: req.prefix } : {}),
        ...(req.snapshotId ? { snapshotId: req.snapshotId } : {}),
        ...(req.q ? { q: req.q } : {}),
        cursor: Math.max(0, req.cursor),
        limit: Math.min(Math.max(req.limit || 50, 1), 1000),
      }),
    ),
  }),
  mapNow: async (req: mapV1.MapNowRequest): Promise<mapV1.MapNowResponse> => {
    const request = parseMapInput(req);
    const job = await deps.jobs.start(req.workspaceId, request, req.requestId || null);
    const ended = await deps.jobs.waitForEnd(req.workspaceId, job.id, req.waitMs);
    const done = ended.status !== 'queued' && ended.status !== 'running';
    // A finished map answers with every row (at most its limit); one still running with none.
    const envelope = await deps.jobs.envelope(ended, 0, done ? request.limit : 0);
    return { jobId: job.id, done, envelopeJson: JSON.stringify(envelope), credits: envelope.creditsUsed };
  },
  getMap: async (req: mapV1.GetMapRequest): Promise<mapV1.GetMapResponse> => {
    const job = await deps.jobs.get(req.workspaceId, req.jobId);
    const limit = Math.min(Math.max(req.limit || MAX_PAGE, 1), MAX_PAGE);
    return { envelopeJson: JSON.stringify(await deps.jobs.envelope(job, Math.max(0, req.after), limit)) };
  },
  discover: async (req: mapV1.DiscoverRequest): Promise<mapV1.DiscoverResponse> => {
    const request = parseMapInput({
      url: req.url,
      limit: req.limit,
      sitemapMode: req.robotsOnly ? 'skip' : req.sitemapMode,
    });
    const timeoutMs = Math.min(req.timeoutMs || DISCOVER_TIMEOUT_MS, MAX_DISCOVER_TIMEOUT_MS);
    const entries: MapEntry[] = [];
    const found = await deps.discovery.discover({
      url: request.url,
      mode: request.sitemapMode,
      limit: request.limit,
      search: null,
      feeds: req.robotsOnly ? [] : req.feeds.slice(0, MAX_FEEDS),
      homeFeeds: !req.robotsOnly,
      deadline: Date.now() + timeoutMs,
      includeBlocked: true,
      credits: deps.credits(req.workspaceId, req.billingReference || `discover:${randomUUID()}`),
      onEntries: async (batch) => void entries.push(...batch),
    });
    return {
      entries: entries.map((e) => ({
        url: e.url,
        lastmod: e.lastmod ?? '',
        source: e.source,
        file: e.file,
        blocked: e.blocked,
        changefreq: e.changefreq ?? '',
      })),
      robotsTxt: found.robotsTxt,
      robotsStatus: found.robots.status ?? 0,
      totalsJson: JSON.stringify(found.totals),
      creditsUsed: found.creditsUsed,
      stop: found.stop,
      errorsJson: JSON.stringify(found.errors),
      method: found.method,
    };
  },
});
