// crawlV1 (CrawlService DryRun, GetSources, PreviewSources) → POST /projects/{id}/dry-run, GET
// /projects/{id}/sources and POST /projects/{id}/sources/preview: what a project's scope and
// sources make of the URLs it knows. Nothing here is fetched but the feeds a preview reads.
import { SCOPE_VERDICTS, scopeVerdictEnum, SITEMAP_MODES, sitemapModeEnum, type crawlV1 } from '@tidemark/contracts';
import { z } from 'zod';
import { nullable, required } from './proto-values.js';

const urlSampleSchema = z.object({
  count: z.number().int(),
  urls: z.array(z.string()).describe('the first 10'),
});

export const dryRunSchema = z
  .object({
    known: z.number().int().describe('URLs the project knows: the last finished full run’s, and a running run’s'),
    runs: z.object({
      finished: z.string().nullable().describe('the last finished full run'),
      running: z.string().nullable().describe('a run queued or going now'),
    }),
    verdicts: z
      .object({
        in: urlSampleSchema,
        excluded: urlSampleSchema,
        not_included: urlSampleSchema,
        other_host: urlSampleSchema,
        too_deep: urlSampleSchema,
      })
      .describe('known URLs per verdict of the draft scope'),
    dropped: urlSampleSchema.describe('in under the saved scope, out under the draft'),
    added: urlSampleSchema.describe('out under the saved scope, in under the draft'),
  })
  .meta({ id: 'DryRun' });
export type DryRunBody = z.output<typeof dryRunSchema>;

const patternSampleSchema = z.array(
  z.object({ pattern: z.string(), count: z.number().int(), urls: z.array(z.string()).describe('the first 10') }),
);

export const sourcesPreviewSchema = z
  .object({
    runId: z.string().nullable().describe('the last finished full run; null when none'),
    known: z.number().int().describe('URLs the project knows'),
    sitemapUrls: z.number().int().describe('known URLs its sitemaps listed'),
    include_paths: patternSampleSchema.describe('over the known URLs'),
    exclude_paths: patternSampleSchema.describe('over the known URLs'),
    sitemap_include: patternSampleSchema.describe('over the known URLs its sitemaps listed'),
    sitemap_exclude: patternSampleSchema.describe('over the known URLs its sitemaps listed'),
    feeds: z
      .array(
        z.object({
          feed: z.string(),
          entries: z.number().int(),
          urls: z.array(z.string()).describe('the first 10'),
          error: z
            .string()
            .nullable()
            .describe(
              'why the feed could not be read (or only in part): "refused by the fetch guard: …", a status, a parse error; null when it was read',
            ),
        }),
      )
      .describe('each feed read now'),
    urlList: z
      .array(
        z.object({
          url: z.string(),
          scope: z.enum(SCOPE_VERDICTS),
          robotsAllowed: z.boolean().nullable().describe('null when robots.txt was not read or the URL is not one'),
          known: z.boolean().describe('already among the URLs the project knows'),
        }),
      )
      .describe('each url_list URL checked against the scope and robots.txt'),
    creditsUsed: z.number().int().describe('what reading the feeds cost (1 credit a file)'),
  })
  .meta({ id: 'SourcesPreview' });
export type SourcesPreviewBody = z.output<typeof sourcesPreviewSchema>;

export const sourcesSchema = z
  .object({
    runId: z.string().nullable().describe('the last finished full run, whose counts these are; null when none'),
    seed: z.object({ url: z.string(), found: z.number().int() }),
    sitemap: z.object({
      use: z.boolean(),
      mode: z.enum(SITEMAP_MODES),
      include: z.array(z.string()),
      exclude: z.array(z.string()),
      found: z.number().int(),
    }),
    urlList: z.object({ urls: z.number().int().describe('URLs listed'), found: z.number().int() }),
    feeds: z.object({ urls: z.array(z.string()), found: z.number().int() }),
    links: z.object({ found: z.number().int() }),
    patterns: z.object({ include_paths: z.array(z.string()), exclude_paths: z.array(z.string()) }),
  })
  .meta({ id: 'ProjectSources' });
export type SourcesBody = z.output<typeof sourcesSchema>;

const sampleToRest = (s: crawlV1.UrlSample | undefined, field: string) => {
  const sample = required(s, field);
  return { count: sample.count, urls: sample.urls };
};

export const dryRunToRest = (res: crawlV1.DryRunResponse): DryRunBody => {
  const runs = required(res.runs, 'DryRunResponse.runs');
  const v = required(res.verdicts, 'DryRunResponse.verdicts');
  return {
    known: res.known,
    runs: { finished: nullable(runs.finished), running: nullable(runs.running) },
    verdicts: {
      in: sampleToRest(v.in, 'verdicts.in'),
      excluded: sampleToRest(v.excluded, 'verdicts.excluded'),
      not_included: sampleToRest(v.notIncluded, 'verdicts.not_included'),
      other_host: sampleToRest(v.otherHost, 'verdicts.other_host'),
      too_deep: sampleToRest(v.tooDeep, 'verdicts.too_deep'),
    },
    dropped: sampleToRest(res.dropped, 'DryRunResponse.dropped'),
    added: sampleToRest(res.added, 'DryRunResponse.added'),
  };
};

const patternsToRest = (patterns: crawlV1.PatternSample[]) =>
  patterns.map((p) => ({ pattern: p.pattern, count: p.count, urls: p.urls }));

export const sourcesPreviewToRest = (res: crawlV1.PreviewSourcesResponse): SourcesPreviewBody => ({
  runId: nullable(res.runId),
  known: res.known,
  sitemapUrls: res.sitemapUrls,
  include_paths: patternsToRest(res.includePaths),
  exclude_paths: patternsToRest(res.excludePaths),
  sitemap_include: patternsToRest(res.sitemapInclude),
  sitemap_exclude: patternsToRest(res.sitemapExclude),
  feeds: res.feeds.map((f) => ({ feed: f.feed, entries: f.entries, urls: f.urls, error: nullable(f.error) })),
  urlList: res.urlList.map((u) => ({
    url: u.url,
    scope: scopeVerdictEnum.fromProto(u.scope),
    robotsAllowed: nullable(u.robotsAllowed),
    known: u.known,
  })),
  creditsUsed: res.creditsUsed,
});

export const sourcesToRest = (res: crawlV1.GetSourcesResponse): SourcesBody => {
  const seed = required(res.seed, 'GetSourcesResponse.seed');
  const sitemap = required(res.sitemap, 'GetSourcesResponse.sitemap');
  const urlList = required(res.urlList, 'GetSourcesResponse.url_list');
  const feeds = required(res.feeds, 'GetSourcesResponse.feeds');
  const links = required(res.links, 'GetSourcesResponse.links');
  const patterns = required(res.patterns, 'GetSourcesResponse.patterns');
  return {
    runId: nullable(res.runId),
    seed: { url: seed.url, found: seed.found },
    sitemap: {
      use: sitemap.use,
      mode: sitemapModeEnum.fromProto(sitemap.mode),
      include: sitemap.include,
      exclude: sitemap.exclude,
      found: sitemap.found,
    },
    urlList: { urls: urlList.urls, found: urlList.found },
    feeds: { urls: feeds.urls, found: feeds.found },
    links: { found: links.found },
    patterns: { include_paths: patterns.includePaths, exclude_paths: patterns.excludePaths },
  };
};
