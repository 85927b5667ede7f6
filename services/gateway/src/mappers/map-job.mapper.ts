// mapV1.MapJob (MapService.MapNow, MapService.GetMap) → POST /map, GET /map/{id}; its MapRow and
// RobotsSummary are also the discovery's (discovery.mapper.ts).
import {
  jobEnvelopeSchema,
  MAP_METHODS,
  MAP_SOURCES,
  MAP_STOPS,
  mapJobStatusEnum,
  mapMethodEnum,
  mapSourceEnum,
  mapStopEnum,
  mapTotals,
  ROBOTS_RULES,
  robotsRulesEnum,
  type mapV1,
} from '@tidemark/contracts';
import { z } from 'zod';
import { nullable, required } from './proto-values.js';

export const mapRowSchema = z
  .object({
    url: z.string(),
    lastmod: z.string().nullable().describe('as the file gave it (a feed item: ISO 8601)'),
    changefreq: z.string().nullable(),
    source: z.enum(MAP_SOURCES).describe('the kind of file that listed it'),
    file: z.string().describe('the sitemap or feed file that listed it'),
    section: z.string().describe('the first path segment ("/blog"), "/" for the root'),
  })
  .meta({ id: 'MapRow' });
export type MapRowBody = z.output<typeof mapRowSchema>;

export const robotsSchema = z
  .object({
    url: z.string(),
    status: z.number().int().nullable().describe('HTTP status after redirects; null when unreachable'),
    found: z.boolean().describe('a robots.txt was read (2xx)'),
    sitemaps: z.array(z.string()).describe('its Sitemap lines'),
    rules: z.enum(ROBOTS_RULES).describe('allow_all: 4xx, no rules; disallow_all: 5xx, 429 or unreachable (RFC 9309)'),
    crawlDelay: z.number().nullable(),
  })
  .meta({ id: 'MapRobots' });

export const mapTotalsSchema = mapTotals.describe(
  'files read (each 1 credit), URLs in the map, sitemap indexes among the files, listed URLs robots.txt disallows (counted, not listed)',
);
export const mapMethodSchema = z.enum(MAP_METHODS);
export const fileErrorsSchema = z
  .array(z.object({ file: z.string(), reason: z.string() }))
  .describe('files that could not be read (or not to the end), and why; the map goes on without them');

export const mapEnvelopeSchema = jobEnvelopeSchema
  .extend({
    data: z.array(mapRowSchema),
    stop: z
      .enum(MAP_STOPS)
      .nullable()
      .describe('completed (everything was read) or what cut the map short; error when it failed; null while it runs'),
    totals: mapTotalsSchema,
    robots: robotsSchema.nullable().describe('null until the map has read it'),
    method: mapMethodSchema.nullable().describe('how the sitemaps were found; null until the map ends'),
    errors: fileErrorsSchema,
  })
  .meta({ id: 'MapJob' });
export type MapEnvelope = z.output<typeof mapEnvelopeSchema>;

/** Row cursors are positions in the map, opaque to callers like every other cursor. */
export const mapRowCursor = z
  .string()
  .max(40)
  .transform((c, ctx) => {
    const m = /^maprow:(\d{1,7})$/.exec(Buffer.from(c, 'base64url').toString());
    if (!m) {
      ctx.addIssue({ code: 'custom', message: 'not a cursor this API gave out' });
      return z.NEVER;
    }
    return Number(m[1]);
  });
const encodeMapRowCursor = (position: number) => Buffer.from(`maprow:${position}`).toString('base64url');

export const mapRowToRest = (r: mapV1.MapRow): MapRowBody => ({
  url: r.url,
  lastmod: nullable(r.lastmod),
  changefreq: nullable(r.changefreq),
  source: mapSourceEnum.fromProto(r.source),
  file: r.file,
  section: r.section,
});

export const robotsToRest = (r: mapV1.RobotsSummary | undefined): z.output<typeof robotsSchema> | null =>
  r === undefined
    ? null
    : {
        url: r.url,
        status: nullable(r.status),
        found: r.found,
        sitemaps: r.sitemaps,
        rules: robotsRulesEnum.fromProto(r.rules),
        crawlDelay: nullable(r.crawlDelay),
      };

export const totalsToRest = (t: mapV1.MapTotals): z.output<typeof mapTotalsSchema> => ({
  files: t.files,
  urls: t.urls,
  indexes: t.indexes,
  blocked: t.blocked,
});

export const fileErrorsToRest = (errors: mapV1.FileError[]): z.output<typeof fileErrorsSchema> =>
  errors.map((e) => ({ file: e.file, reason: e.reason }));

/**
 * The job envelope of a map. `nextLink` makes the ready-made URL of the following page from its
 * cursor (GET /map/{id}); POST /map answers none.
 */
export const mapJobToRest = (
  message: mapV1.MapJob | undefined,
  nextLink: (cursor: string) => string | null = () => null,
): MapEnvelope => {
  const job = required(message, 'MapJob');
  const progress = required(job.progress, 'MapJob.progress');
  const cursor = job.nextPosition === undefined ? null : encodeMapRowCursor(job.nextPosition);
  return {
    id: job.id,
    kind: 'map',
    status: mapJobStatusEnum.fromProto(job.status),
    progress: { done: progress.done, total: progress.total, queued: progress.queued },
    creditsUsed: job.creditsUsed,
    counts: { ...job.counts },
    data: job.rows.map(mapRowToRest),
    next: cursor === null ? null : nextLink(cursor),
    cursor,
    stop: job.stop === undefined ? null : mapStopEnum.fromProto(job.stop),
    request_id: nullable(job.requestId),
    error: nullable(job.error),
    createdAt: required(job.createdAt, 'MapJob.created_at').toISOString(),
    totals: totalsToRest(required(job.totals, 'MapJob.totals')),
    robots: robotsToRest(job.robots),
    method: job.method === undefined ? null : mapMethodEnum.fromProto(job.method),
    errors: fileErrorsToRest(job.errors),
  };
};
