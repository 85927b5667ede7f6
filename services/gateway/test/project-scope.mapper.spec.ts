import { describe, expect, it } from '@jest/globals';
import { crawlV1, mapV1 } from '@tidemark/contracts';
import {
  dryRunSchema,
  dryRunToRest,
  sourcesPreviewSchema,
  sourcesPreviewToRest,
  sourcesSchema,
  sourcesToRest,
} from '../src/mappers/project-scope.mapper.js';

const S = 'https://docs.example';
const sample = (...paths: string[]) => ({ count: paths.length, urls: paths.map((p) => `${S}${p}`) });

describe('project scope mapper', () => {
  it('answers a dry run with every verdict, null for a run there is not', () => {
    const sent: crawlV1.DryRunResponse = {
      known: 4,
      runs: { finished: 'run_1', running: undefined },
      verdicts: {
        in: sample('/', '/guide'),
        excluded: sample('/docs/a'),
        notIncluded: sample(),
        otherHost: sample(),
        tooDeep: sample('/a/b/c/d'),
      },
      dropped: sample('/docs/a'),
      added: sample(),
    };
    const wire = crawlV1.DryRunResponse.decode(crawlV1.DryRunResponse.encode(sent).finish());
    const body = dryRunToRest(wire);
    expect(body).toEqual({
      known: 4,
      runs: { finished: 'run_1', running: null },
      verdicts: {
        in: sample('/', '/guide'),
        excluded: sample('/docs/a'),
        not_included: sample(),
        other_host: sample(),
        too_deep: sample('/a/b/c/d'),
      },
      dropped: sample('/docs/a'),
      added: sample(),
    });
    expect(dryRunSchema.parse(body)).toEqual(body);
  });

  it('answers a sources preview with the draft’s keys and each listed URL’s verdict', () => {
    const sent: crawlV1.PreviewSourcesResponse = {
      runId: undefined,
      known: 12,
      sitemapUrls: 5,
      includePaths: [{ pattern: '/docs/**', ...sample('/docs/a', '/docs/b') }],
      excludePaths: [],
      sitemapInclude: [],
      sitemapExclude: [{ pattern: '/old/**', ...sample() }],
      feeds: [
        { feed: `${S}/feed.xml`, entries: 3, urls: [`${S}/news/1`] },
        { feed: `${S}/inside.xml`, entries: 0, urls: [], error: 'refused by the fetch guard: 10.0.0.1 is private' },
      ],
      urlList: [
        { url: `${S}/x`, scope: crawlV1.ScopeVerdict.SCOPE_VERDICT_IN, robotsAllowed: true, known: false },
        { url: 'nope', scope: crawlV1.ScopeVerdict.SCOPE_VERDICT_NOT_A_URL, robotsAllowed: undefined, known: false },
      ],
      creditsUsed: 1,
    };
    const wire = crawlV1.PreviewSourcesResponse.decode(crawlV1.PreviewSourcesResponse.encode(sent).finish());
    const body = sourcesPreviewToRest(wire);
    expect(body).toEqual({
      runId: null,
      known: 12,
      sitemapUrls: 5,
      include_paths: [{ pattern: '/docs/**', ...sample('/docs/a', '/docs/b') }],
      exclude_paths: [],
      sitemap_include: [],
      sitemap_exclude: [{ pattern: '/old/**', ...sample() }],
      feeds: [
        { feed: `${S}/feed.xml`, entries: 3, urls: [`${S}/news/1`], error: null },
        { feed: `${S}/inside.xml`, entries: 0, urls: [], error: 'refused by the fetch guard: 10.0.0.1 is private' },
      ],
      urlList: [
        { url: `${S}/x`, scope: 'in', robotsAllowed: true, known: false },
        { url: 'nope', scope: 'not a URL', robotsAllowed: null, known: false },
      ],
      creditsUsed: 1,
    });
    expect(sourcesPreviewSchema.parse(body)).toEqual(body);
  });

  it('answers a project’s sources', () => {
    const sent: crawlV1.GetSourcesResponse = {
      runId: 'run_1',
      seed: { url: `${S}/`, found: 1 },
      sitemap: { use: true, mode: mapV1.SitemapMode.SITEMAP_MODE_ONLY, include: ['/docs/**'], exclude: [], found: 40 },
      urlList: { urls: 2, found: 1 },
      feeds: { urls: [`${S}/feed.xml`], found: 3 },
      links: { found: 0 },
      patterns: { includePaths: [], excludePaths: ['/tmp/**'] },
    };
    const wire = crawlV1.GetSourcesResponse.decode(crawlV1.GetSourcesResponse.encode(sent).finish());
    const body = sourcesToRest(wire);
    expect(body).toEqual({
      runId: 'run_1',
      seed: { url: `${S}/`, found: 1 },
      sitemap: { use: true, mode: 'only', include: ['/docs/**'], exclude: [], found: 40 },
      urlList: { urls: 2, found: 1 },
      feeds: { urls: [`${S}/feed.xml`], found: 3 },
      links: { found: 0 },
      patterns: { include_paths: [], exclude_paths: ['/tmp/**'] },
    });
    expect(sourcesSchema.parse(body)).toEqual(body);
  });
});
