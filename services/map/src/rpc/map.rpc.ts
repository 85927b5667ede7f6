import { randomUUID } from 'node:crypto';
import {
  mapJobStatusEnum,
  mapMethodEnum,
  mapSourceEnum,
  mapStopEnum,
  robotsRulesEnum,
  sitemapModeEnum,
  snapshotStatusEnum,
  type mapV1,
} from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type {
  DiscoveryService,
  FileCredits,
  FileError,
  MapEntry,
  RobotsSummary,
} from '../discovery/discovery.service.js';
import { parseMapInput, type MapJobService, type MapJobView, type MapRow } from '../jobs/map-job.service.js';
import type { FileSummary } from '../repositories/snapshot.repository.js';
import type { SnapshotJobView, SnapshotService, SnapshotView } from '../snapshots/snapshot.service.js';

const DISCOVER_TIMEOUT_MS = 60_000;
const MAX_DISCOVER_TIMEOUT_MS = 10 * 60_000;
const MAX_FEEDS = 100;
const MAX_PAGE = 1000;

/** null → absent (proto3 optional): the gateway's mappers turn absent back into null. */
const opt = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

/** A request's sitemap mode as its name; unspecified is the default (auto). */
const sitemapModeOf = (value: mapV1.SitemapMode): string | undefined => {
  if (value === 0) return undefined;
  try {
    return sitemapModeEnum.fromProto(value);
  } catch {
    throw new ValidationError(`sitemapMode: ${value} is not a SitemapMode this service knows`);
  }
};

const rowMessage = (r: MapRow): mapV1.MapRow => ({
  url: r.url,
  lastmod: opt(r.lastmod),
  changefreq: opt(r.changefreq),
  source: mapSourceEnum.toProto(r.source),
  file: r.file,
  section: r.section,
});

const robotsMessage = (r: RobotsSummary | null): mapV1.RobotsSummary | undefined =>
  r === null
    ? undefined
    : {
        url: r.url,
        status: opt(r.status),
        found: r.found,
        sitemaps: r.sitemaps,
        rules: robotsRulesEnum.toProto(r.rules),
        crawlDelay: opt(r.crawlDelay),
      };

const fileErrors = (errors: FileError[]): mapV1.FileError[] => errors.map((e) => ({ file: e.file, reason: e.reason }));

const mapJobMessage = (job: MapJobView): mapV1.MapJob => ({
  id: job.id,
  status: mapJobStatusEnum.toProto(job.status),
  progress: job.progress,
  creditsUsed: job.creditsUsed,
  counts: job.counts,
  rows: job.rows.map(rowMessage),
  nextPosition: opt(job.nextPosition),
  stop: job.stop === null ? undefined : mapStopEnum.toProto(job.stop),
  requestId: opt(job.requestId),
  error: opt(job.error),
  createdAt: job.createdAt,
  totals: job.totals,
  robots: robotsMessage(job.robots),
  method: job.method === null ? undefined : mapMethodEnum.toProto(job.method),
  errors: fileErrors(job.errors),
});

const snapshotJobMessage = (job: SnapshotJobView): mapV1.DiscoveryJob => ({
  id: job.id,
  status: mapJobStatusEnum.toProto(job.status),
  progress: job.progress,
  creditsUsed: job.creditsUsed,
});

const fileMessage = (f: FileSummary): mapV1.DiscoveryFile => ({
  file: f.file,
  source: mapSourceEnum.toProto(f.source),
  section: f.section,
  urls: f.urls,
  lastmodMin: opt(f.lastmod.min),
  lastmodMax: opt(f.lastmod.max),
});

const snapshotMessage = (s: SnapshotView): mapV1.DiscoverySnapshot => ({
  id: s.id,
  createdAt: s.createdAt,
  status: snapshotStatusEnum.toProto(s.summary.status),
  robots: robotsMessage(s.summary.robots),
  totals: opt(s.summary.totals),
  method: s.summary.method === null ? undefined : mapMethodEnum.toProto(s.summary.method),
  errors: fileErrors(s.summary.errors),
  files: s.summary.files.map(fileMessage),
  feeds: s.summary.feeds.map(fileMessage),
  finishedAt: new Date(s.summary.finishedAt),
  diff: s.diff
    ? {
        baselineSnapshotId: s.diff.baseline,
        filesAdded: s.diff.files.added,
        filesRemoved: s.diff.files.removed,
        urlsAdded: s.diff.urls.added,
        urlsRemoved: s.diff.urls.removed,
        urlsUpdated: s.diff.urls.updated,
      }
    : undefined,
});

const discoverEntry = (e: MapEntry): mapV1.DiscoverEntry => ({
  url: e.url,
  lastmod: e.lastmod ?? '',
  source: mapSourceEnum.toProto(e.source),
  file: e.file,
  blocked: e.blocked,
  changefreq: e.changefreq ?? '',
});

/** gRPC in: decode → job service, snapshots or discovery → the typed answer. */
export const mapRpc = (deps: {
  jobs: MapJobService;
  discovery: DiscoveryService;
  credits: (workspaceId: string, referencePrefix: string) => FileCredits;
  snapshots: SnapshotService;
}) => ({
  getDiscovery: async (req: mapV1.GetDiscoveryRequest) => {
    const { discovery, job } = await deps.snapshots.get(req.workspaceId, req.projectId);
    return {
      discovery: discovery ? snapshotMessage(discovery) : undefined,
      job: job ? snapshotJobMessage(job) : undefined,
    } satisfies mapV1.GetDiscoveryResponse;
  },
  startDiscovery: async (req: mapV1.StartDiscoveryRequest) =>
    ({
      job: snapshotJobMessage(await deps.snapshots.start(req.workspaceId, req.projectId)),
    }) satisfies mapV1.StartDiscoveryResponse,
  discoveryEntries: async (req: mapV1.DiscoveryEntriesRequest) => {
    const page = await deps.snapshots.entries(req.workspaceId, req.projectId, {
      ...(req.file ? { file: req.file } : {}),
      ...(req.prefix ? { prefix: req.prefix } : {}),
      ...(req.snapshotId ? { snapshotId: req.snapshotId } : {}),
      ...(req.q ? { q: req.q } : {}),
      cursor: Math.max(0, req.cursor),
      limit: Math.min(Math.max(req.limit || 50, 1), 1000),
    });
    return {
      snapshotId: page.snapshotId,
      rows: page.rows.map(rowMessage),
      nextCursor: opt(page.nextCursor),
      prefixes: page.prefixes,
    } satisfies mapV1.DiscoveryEntriesResponse;
  },
  mapNow: async (req: mapV1.MapNowRequest) => {
    const request = parseMapInput({ ...req, sitemapMode: sitemapModeOf(req.sitemapMode) });
    const job = await deps.jobs.start(req.workspaceId, request, req.requestId || null);
    const ended = await deps.jobs.waitForEnd(req.workspaceId, job.id, req.waitMs);
    const done = ended.status !== 'queued' && ended.status !== 'running';
    // A finished map answers with every row (at most its limit); one still running with none.
    const view = await deps.jobs.view(ended, 0, done ? request.limit : 0);
    return { done, job: mapJobMessage(view) } satisfies mapV1.MapNowResponse;
  },
  getMap: async (req: mapV1.GetMapRequest) => {
    const job = await deps.jobs.get(req.workspaceId, req.jobId);
    const limit = Math.min(Math.max(req.limit || MAX_PAGE, 1), MAX_PAGE);
    return {
      job: mapJobMessage(await deps.jobs.view(job, Math.max(0, req.after), limit)),
    } satisfies mapV1.GetMapResponse;
  },
  discover: async (req: mapV1.DiscoverRequest) => {
    const request = parseMapInput({
      url: req.url,
      limit: req.limit,
      sitemapMode: req.robotsOnly ? 'skip' : sitemapModeOf(req.sitemapMode),
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
      entries: entries.map(discoverEntry),
      robotsTxt: found.robotsTxt,
      robotsStatus: found.robots.status ?? 0,
      totals: found.totals,
      creditsUsed: found.creditsUsed,
      stop: mapStopEnum.toProto(found.stop),
      errors: fileErrors(found.errors),
      method: mapMethodEnum.toProto(found.method),
    } satisfies mapV1.DiscoverResponse;
  },
});
