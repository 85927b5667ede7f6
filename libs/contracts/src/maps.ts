import {
  JobStatus,
  MapMethod,
  MapSource,
  MapStop,
  RobotsRules,
  SitemapMode,
  SnapshotStatus,
} from './generated/tidemark/map/v1/map.js';
import { protoEnum } from './proto-enum.js';
import { JOB_STATUSES } from './scrape.js';

// The map service's vocabulary (spec: Map row, POST /map, Discovery) and its proto enums.

export const SITEMAP_MODES = ['auto', 'only', 'skip'] as const;
export type SitemapModeName = (typeof SITEMAP_MODES)[number];
export const sitemapModeEnum = protoEnum(SitemapMode, 'SITEMAP_MODE', SITEMAP_MODES);

export type JobStatusName = (typeof JOB_STATUSES)[number];
export const mapJobStatusEnum = protoEnum(JobStatus, 'JOB_STATUS', JOB_STATUSES);

/** completed: everything was read; otherwise what cut the map short (error: the job failed). */
export const MAP_STOPS = ['completed', 'limit', 'credits_exhausted', 'max_files', 'timeout', 'error'] as const;
export type MapStopName = (typeof MAP_STOPS)[number];
export const mapStopEnum = protoEnum(MapStop, 'MAP_STOP', MAP_STOPS);

/** How the sitemaps were found. */
export const MAP_METHODS = ['robots', 'sitemap.xml', 'feeds', 'none'] as const;
export type MapMethodName = (typeof MAP_METHODS)[number];
export const mapMethodEnum = protoEnum(MapMethod, 'MAP_METHOD', MAP_METHODS);

/** The kind of file that listed a URL. */
export const MAP_SOURCES = ['sitemap', 'feed'] as const;
export type MapSourceName = (typeof MAP_SOURCES)[number];
export const mapSourceEnum = protoEnum(MapSource, 'MAP_SOURCE', MAP_SOURCES);

/** What robots.txt said (RFC 9309): parsed rules, allow_all (4xx), disallow_all (5xx, 429, unreachable). */
export const ROBOTS_RULES = ['parsed', 'allow_all', 'disallow_all'] as const;
export const robotsRulesEnum = protoEnum(RobotsRules, 'ROBOTS_RULES', ROBOTS_RULES);

export const SNAPSHOT_STATUSES = ['done', 'error'] as const;
export const snapshotStatusEnum = protoEnum(SnapshotStatus, 'SNAPSHOT_STATUS', SNAPSHOT_STATUSES);
