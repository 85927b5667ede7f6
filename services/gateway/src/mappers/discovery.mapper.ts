// mapV1.GetDiscoveryResponse (MapService.GetDiscovery) → GET /projects/{id}/discovery,
// mapV1.StartDiscoveryResponse (StartDiscovery) → POST /projects/{id}/discovery and
// mapV1.DiscoveryEntriesResponse (DiscoveryEntries) → GET /projects/{id}/discovery/entries.
import {
  JOB_STATUSES,
  MAP_SOURCES,
  mapJobStatusEnum,
  mapMethodEnum,
  mapSourceEnum,
  SNAPSHOT_STATUSES,
  snapshotStatusEnum,
  type mapV1,
} from '@tidemark/contracts';
import { z } from 'zod';
import {
  fileErrorsSchema,
  fileErrorsToRest,
  mapMethodSchema,
  mapRowSchema,
  mapRowToRest,
  mapTotalsSchema,
  robotsSchema,
  robotsToRest,
  totalsToRest,
} from './map-job.mapper.js';
import { nullable, required } from './proto-values.js';

const discoveryJobSchema = z
  .object({
    id: z.string().describe('the map job of the snapshot'),
    status: z.enum(JOB_STATUSES),
    progress: z.object({ done: z.number().int(), total: z.number().int(), queued: z.number().int() }),
    creditsUsed: z.number().int(),
  })
  .meta({ id: 'DiscoveryJob' });

const discoveryFileSchema = z.object({
  file: z.string(),
  source: z.enum(MAP_SOURCES),
  section: z.string().describe('the first path segment most of its URLs share ("/blog"; "/" for the root)'),
  urls: z.number().int(),
  lastmod: z
    .object({ min: z.string().nullable(), max: z.string().nullable() })
    .describe('the range of its URLs’ lastmod; null when none gave one'),
});

const urlChangesSchema = z.object({
  count: z.number().int(),
  urls: z.array(z.string()).describe('the first 100, in the order of the sitemap tree'),
});

const discoverySnapshotSchema = z
  .object({
    id: z.string(),
    createdAt: z.string(),
    status: z.enum(SNAPSHOT_STATUSES).describe('error: the snapshot’s map failed; files and feeds are then empty'),
    robots: robotsSchema.nullable(),
    totals: mapTotalsSchema.nullable(),
    method: mapMethodSchema.nullable().describe('how the sitemaps were found'),
    errors: fileErrorsSchema,
    files: z.array(discoveryFileSchema).describe('each sitemap file with its section, URL count and lastmod range'),
    feeds: z.array(discoveryFileSchema),
    finishedAt: z.string(),
    diff: z
      .object({
        baseline: z.string().describe('the snapshot compared against'),
        files: z.object({ added: z.array(z.string()), removed: z.array(z.string()) }),
        urls: z.object({
          added: urlChangesSchema,
          removed: urlChangesSchema,
          updated: urlChangesSchema.describe('URLs whose lastmod changed'),
        }),
      })
      .nullable()
      .describe('against the snapshot before; null for the first'),
  })
  .meta({ id: 'DiscoverySnapshot' });

export const discoverySchema = z
  .object({
    discovery: discoverySnapshotSchema.nullable().describe('null until the first snapshot has run'),
    job: discoveryJobSchema.nullable().describe('the snapshot running now, or null'),
  })
  .meta({ id: 'Discovery' });

export const discoveryStartSchema = z.object({ job: discoveryJobSchema });

export const discoveryEntriesSchema = z
  .object({
    snapshotId: z.string(),
    data: z.array(mapRowSchema),
    cursor: z.number().int().nullable(),
    next: z.string().nullable().describe('ready-made URL of the following page, or null when finished'),
    prefixes: z.array(z.object({ prefix: z.string(), urls: z.number().int() })),
  })
  .meta({ id: 'DiscoveryEntries' });

const jobToRest = (message: mapV1.DiscoveryJob | undefined): z.output<typeof discoveryJobSchema> => {
  const job = required(message, 'DiscoveryJob');
  const progress = required(job.progress, 'DiscoveryJob.progress');
  return {
    id: job.id,
    status: mapJobStatusEnum.fromProto(job.status),
    progress: { done: progress.done, total: progress.total, queued: progress.queued },
    creditsUsed: job.creditsUsed,
  };
};

const fileToRest = (f: mapV1.DiscoveryFile): z.output<typeof discoveryFileSchema> => ({
  file: f.file,
  source: mapSourceEnum.fromProto(f.source),
  section: f.section,
  urls: f.urls,
  lastmod: { min: nullable(f.lastmodMin), max: nullable(f.lastmodMax) },
});

const urlChangesToRest = (c: mapV1.UrlChanges | undefined) => {
  const changes = required(c, 'UrlChanges');
  return { count: changes.count, urls: changes.urls };
};

const snapshotToRest = (s: mapV1.DiscoverySnapshot): z.output<typeof discoverySnapshotSchema> => ({
  id: s.id,
  createdAt: required(s.createdAt, 'DiscoverySnapshot.created_at').toISOString(),
  status: snapshotStatusEnum.fromProto(s.status),
  robots: robotsToRest(s.robots),
  totals: s.totals ? totalsToRest(s.totals) : null,
  method: s.method === undefined ? null : mapMethodEnum.fromProto(s.method),
  errors: fileErrorsToRest(s.errors),
  files: s.files.map(fileToRest),
  feeds: s.feeds.map(fileToRest),
  finishedAt: required(s.finishedAt, 'DiscoverySnapshot.finished_at').toISOString(),
  diff: s.diff
    ? {
        baseline: s.diff.baselineSnapshotId,
        files: { added: s.diff.filesAdded, removed: s.diff.filesRemoved },
        urls: {
          added: urlChangesToRest(s.diff.urlsAdded),
          removed: urlChangesToRest(s.diff.urlsRemoved),
          updated: urlChangesToRest(s.diff.urlsUpdated),
        },
      }
    : null,
});

export const discoveryToRest = (res: mapV1.GetDiscoveryResponse): z.output<typeof discoverySchema> => ({
  discovery: res.discovery ? snapshotToRest(res.discovery) : null,
  job: res.job ? jobToRest(res.job) : null,
});

export const discoveryStartToRest = (res: mapV1.StartDiscoveryResponse): z.output<typeof discoveryStartSchema> => ({
  job: jobToRest(res.job),
});

/** `nextLink` makes the ready-made URL of the following page from its cursor. */
export const discoveryEntriesToRest = (
  res: mapV1.DiscoveryEntriesResponse,
  nextLink: (cursor: string) => string | null,
): z.output<typeof discoveryEntriesSchema> => ({
  snapshotId: res.snapshotId,
  data: res.rows.map(mapRowToRest),
  cursor: nullable(res.nextCursor),
  next: res.nextCursor === undefined ? null : nextLink(String(res.nextCursor)),
  prefixes: res.prefixes.map((p) => ({ prefix: p.prefix, urls: p.urls })),
});
