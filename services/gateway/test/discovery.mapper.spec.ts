import { describe, expect, it } from '@jest/globals';
import { mapV1 } from '@tidemark/contracts';
import {
  discoveryEntriesSchema,
  discoveryEntriesToRest,
  discoverySchema,
  discoveryStartToRest,
  discoveryToRest,
} from '../src/mappers/discovery.mapper.js';

const O = 'https://disc.example';
const S = mapV1.MapSource;

/** The second snapshot of a site: a sitemap file came, a URL went, one got a new lastmod. */
const stored: mapV1.GetDiscoveryResponse = {
  discovery: {
    id: 'dsn_02',
    createdAt: new Date('2026-02-02T08:00:00.000Z'),
    status: mapV1.SnapshotStatus.SNAPSHOT_STATUS_DONE,
    robots: {
      url: `${O}/robots.txt`,
      status: 200,
      found: true,
      sitemaps: [],
      rules: mapV1.RobotsRules.ROBOTS_RULES_PARSED,
      crawlDelay: undefined,
    },
    totals: { files: 3, urls: 4, indexes: 1, blocked: 0 },
    method: mapV1.MapMethod.MAP_METHOD_SITEMAP_XML,
    errors: [],
    files: [
      {
        file: `${O}/s1.xml`,
        source: S.MAP_SOURCE_SITEMAP,
        section: '/blog',
        urls: 3,
        lastmodMin: '2026-01-05',
        lastmodMax: '2026-02-01',
      },
      {
        file: `${O}/s2.xml`,
        source: S.MAP_SOURCE_SITEMAP,
        section: '/',
        urls: 1,
        lastmodMin: undefined,
        lastmodMax: undefined,
      },
    ],
    feeds: [],
    finishedAt: new Date('2026-02-02T08:00:03.250Z'),
    diff: {
      baselineSnapshotId: 'dsn_01',
      filesAdded: [`${O}/s2.xml`],
      filesRemoved: [],
      urlsAdded: { count: 1, urls: [`${O}/c`] },
      urlsRemoved: { count: 1, urls: [`${O}/b`] },
      urlsUpdated: { count: 1, urls: [`${O}/a`] },
    },
  },
  job: {
    id: 'job_03',
    status: mapV1.JobStatus.JOB_STATUS_RUNNING,
    progress: { done: 1, total: 3, queued: 2 },
    creditsUsed: 1,
  },
};

describe('discoveryToRest', () => {
  it('answers the stored sitemap tree with its diff and the snapshot running now', () => {
    const wire = mapV1.GetDiscoveryResponse.decode(mapV1.GetDiscoveryResponse.encode(stored).finish());
    const body = discoveryToRest(wire);
    expect(body).toEqual({
      discovery: {
        id: 'dsn_02',
        createdAt: '2026-02-02T08:00:00.000Z',
        status: 'done',
        robots: { url: `${O}/robots.txt`, status: 200, found: true, sitemaps: [], rules: 'parsed', crawlDelay: null },
        totals: { files: 3, urls: 4, indexes: 1, blocked: 0 },
        method: 'sitemap.xml',
        errors: [],
        files: [
          {
            file: `${O}/s1.xml`,
            source: 'sitemap',
            section: '/blog',
            urls: 3,
            lastmod: { min: '2026-01-05', max: '2026-02-01' },
          },
          { file: `${O}/s2.xml`, source: 'sitemap', section: '/', urls: 1, lastmod: { min: null, max: null } },
        ],
        feeds: [],
        finishedAt: '2026-02-02T08:00:03.250Z',
        diff: {
          baseline: 'dsn_01',
          files: { added: [`${O}/s2.xml`], removed: [] },
          urls: {
            added: { count: 1, urls: [`${O}/c`] },
            removed: { count: 1, urls: [`${O}/b`] },
            updated: { count: 1, urls: [`${O}/a`] },
          },
        },
      },
      job: { id: 'job_03', status: 'running', progress: { done: 1, total: 3, queued: 2 }, creditsUsed: 1 },
    });
    expect(discoverySchema.parse(body)).toEqual(body);
  });

  it('answers null before the first snapshot, and a first snapshot without a diff', () => {
    expect(discoveryToRest({ discovery: undefined, job: undefined })).toEqual({ discovery: null, job: null });
    const first = discoveryToRest({ discovery: { ...stored.discovery!, diff: undefined }, job: undefined });
    expect(first.discovery).toMatchObject({ diff: null });
  });

  it('answers a failed snapshot: no totals, robots or method', () => {
    const failed = discoveryToRest({
      discovery: {
        ...stored.discovery!,
        status: mapV1.SnapshotStatus.SNAPSHOT_STATUS_ERROR,
        robots: undefined,
        totals: undefined,
        method: undefined,
        files: [],
        diff: undefined,
      },
      job: undefined,
    });
    expect(failed.discovery).toMatchObject({ status: 'error', robots: null, totals: null, method: null, files: [] });
  });

  it('answers the started snapshot’s job', () => {
    expect(discoveryStartToRest({ job: { ...stored.job!, status: mapV1.JobStatus.JOB_STATUS_QUEUED } })).toEqual({
      job: { id: 'job_03', status: 'queued', progress: { done: 1, total: 3, queued: 2 }, creditsUsed: 1 },
    });
  });
});

describe('discoveryEntriesToRest', () => {
  it('answers a page of entries with the next page’s cursor and link, and the prefixes under it', () => {
    const page: mapV1.DiscoveryEntriesResponse = {
      snapshotId: 'dsn_02',
      rows: [
        {
          url: `${O}/blog/2026/one`,
          lastmod: '2026-01-05',
          changefreq: undefined,
          source: S.MAP_SOURCE_SITEMAP,
          file: `${O}/s1.xml`,
          section: '/blog',
        },
      ],
      nextCursor: 1,
      prefixes: [{ prefix: '/blog/2026', urls: 2 }],
    };
    const wire = mapV1.DiscoveryEntriesResponse.decode(mapV1.DiscoveryEntriesResponse.encode(page).finish());
    const body = discoveryEntriesToRest(wire, (c) => `/v1/projects/p/discovery/entries?cursor=${c}&limit=1`);
    expect(body).toEqual({
      snapshotId: 'dsn_02',
      data: [
        {
          url: `${O}/blog/2026/one`,
          lastmod: '2026-01-05',
          changefreq: null,
          source: 'sitemap',
          file: `${O}/s1.xml`,
          section: '/blog',
        },
      ],
      cursor: 1,
      next: '/v1/projects/p/discovery/entries?cursor=1&limit=1',
      prefixes: [{ prefix: '/blog/2026', urls: 2 }],
    });
    expect(discoveryEntriesSchema.parse(body)).toEqual(body);
    const last = discoveryEntriesToRest({ ...page, nextCursor: undefined }, () => 'never');
    expect([last.cursor, last.next]).toEqual([null, null]);
  });
});
