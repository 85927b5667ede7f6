import { describe, expect, it } from '@jest/globals';
import { mapV1 } from '@tidemark/contracts';
import { mapEnvelopeSchema, mapJobToRest, mapRowCursor } from '../src/mappers/map-job.mapper.js';

const O = 'https://maps.example';
const overTheWire = (job: mapV1.MapJob) =>
  mapV1.GetMapResponse.decode(mapV1.GetMapResponse.encode({ job }).finish()).job;

/** A map of a site with a sitemap index, a gzip file and a feed, paged 2 rows at a time. */
const done: mapV1.MapJob = {
  id: 'job_01JD8M',
  status: mapV1.JobStatus.JOB_STATUS_DONE,
  progress: { done: 10, total: 10, queued: 0 },
  creditsUsed: 10,
  counts: { sitemap: 16, feed: 2, errors: 1 },
  rows: [
    {
      url: `${O}/about`,
      lastmod: '2024-11-02T10:00:00+00:00',
      changefreq: 'monthly',
      source: mapV1.MapSource.MAP_SOURCE_SITEMAP,
      file: `${O}/sitemaps/pages.xml`,
      section: '/about',
    },
    {
      url: `${O}/news/storm-warning`,
      lastmod: undefined,
      changefreq: undefined,
      source: mapV1.MapSource.MAP_SOURCE_FEED,
      file: `${O}/news/feed.xml`,
      section: '/news',
    },
  ],
  nextPosition: 2,
  stop: mapV1.MapStop.MAP_STOP_COMPLETED,
  requestId: 'req_7f3a',
  error: undefined,
  createdAt: new Date('2026-03-01T09:00:00.000Z'),
  totals: { files: 10, urls: 18, indexes: 3, blocked: 2 },
  robots: {
    url: `${O}/robots.txt`,
    status: 200,
    found: true,
    sitemaps: [`${O}/sitemap_index.xml`, `${O}/news/feed.xml`],
    rules: mapV1.RobotsRules.ROBOTS_RULES_PARSED,
    crawlDelay: 1.5,
  },
  method: mapV1.MapMethod.MAP_METHOD_ROBOTS,
  errors: [{ file: `${O}/sitemaps/broken.xml.gz`, reason: 'not gzip or xml: stopped after 12 bytes' }],
};

describe('mapJobToRest', () => {
  it('answers the job envelope of the REST API with map rows, cursor and next link', () => {
    const body = mapJobToRest(overTheWire(done), (cursor) => `https://api.example/v1/map/job_01JD8M?cursor=${cursor}`);
    const cursor = Buffer.from('maprow:2').toString('base64url');
    expect(body).toEqual({
      id: 'job_01JD8M',
      kind: 'map',
      status: 'done',
      progress: { done: 10, total: 10, queued: 0 },
      creditsUsed: 10,
      counts: { sitemap: 16, feed: 2, errors: 1 },
      data: [
        {
          url: `${O}/about`,
          lastmod: '2024-11-02T10:00:00+00:00',
          changefreq: 'monthly',
          source: 'sitemap',
          file: `${O}/sitemaps/pages.xml`,
          section: '/about',
        },
        {
          url: `${O}/news/storm-warning`,
          lastmod: null,
          changefreq: null,
          source: 'feed',
          file: `${O}/news/feed.xml`,
          section: '/news',
        },
      ],
      next: `https://api.example/v1/map/job_01JD8M?cursor=${cursor}`,
      cursor,
      stop: 'completed',
      request_id: 'req_7f3a',
      error: null,
      createdAt: '2026-03-01T09:00:00.000Z',
      totals: { files: 10, urls: 18, indexes: 3, blocked: 2 },
      robots: {
        url: `${O}/robots.txt`,
        status: 200,
        found: true,
        sitemaps: [`${O}/sitemap_index.xml`, `${O}/news/feed.xml`],
        rules: 'parsed',
        crawlDelay: 1.5,
      },
      method: 'robots',
      errors: [{ file: `${O}/sitemaps/broken.xml.gz`, reason: 'not gzip or xml: stopped after 12 bytes' }],
    });
    expect(mapEnvelopeSchema.parse(body)).toEqual(body);
    // The cursor it gives out is one the route reads back.
    expect(mapRowCursor.parse(body.cursor)).toBe(2);
  });

  it('answers a job still queued: no stop, robots, method or rows yet, nulls for each', () => {
    const queued = mapJobToRest(
      overTheWire({
        ...done,
        status: mapV1.JobStatus.JOB_STATUS_QUEUED,
        progress: { done: 0, total: 0, queued: 0 },
        counts: {},
        rows: [],
        nextPosition: undefined,
        stop: undefined,
        requestId: undefined,
        totals: { files: 0, urls: 0, indexes: 0, blocked: 0 },
        robots: undefined,
        method: undefined,
        errors: [],
      }),
    );
    expect(queued).toMatchObject({
      status: 'queued',
      counts: {},
      data: [],
      next: null,
      cursor: null,
      stop: null,
      request_id: null,
      robots: null,
      method: null,
    });
  });

  it('answers a failed map with its reason and an unreachable robots.txt', () => {
    const failed = mapJobToRest(
      overTheWire({
        ...done,
        status: mapV1.JobStatus.JOB_STATUS_ERROR,
        stop: mapV1.MapStop.MAP_STOP_ERROR,
        error: 'billing is unavailable',
        robots: {
          ...done.robots!,
          status: undefined,
          found: false,
          rules: mapV1.RobotsRules.ROBOTS_RULES_DISALLOW_ALL,
        },
      }),
    );
    expect(failed).toMatchObject({
      status: 'error',
      stop: 'error',
      error: 'billing is unavailable',
      robots: { status: null, found: false, rules: 'disallow_all' },
    });
    expect(() => mapJobToRest({ ...done, totals: undefined })).toThrow('internal error');
  });
});
