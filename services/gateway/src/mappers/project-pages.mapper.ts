// crawlPagesV1 (PagesService ListPages, GetPageContent, SearchPages, MatchSelectors) → GET
// /projects/{id}/pages, /pages/content, POST /pages/search and /selectors/match. The rows are
// tidemark.page.v1 crawl rows, decoded by the shared codec (libs/contracts/src/page-rows.ts); the
// REST schemas of the first three are pageListSchema, pageContentSchema and pageSearchResultSchema
// there.
import {
  crawlPageRowFromProto,
  jobStatusEnum,
  searchModeEnum,
  verdictEnum,
  type crawlPagesV1,
  type PageContent,
  type PageList,
  type PageSearchResult,
  pageV1,
} from '@tidemark/contracts';
import { z } from 'zod';
import { nullable, required } from './proto-values.js';

export const selectorMatchesSchema = z
  .object({
    runId: z.string(),
    selectors: z
      .array(
        z.object({
          selector: z.string(),
          pages: z.number().int().describe('pages the selector matches'),
          nodes: z.number().int().describe('nodes it matches over those pages'),
          scanned: z.number().int().describe('pages with html to scan'),
          unscanned: z.number().int().describe('pages without it: counted, not guessed'),
          examples: z
            .array(z.object({ url: z.string(), count: z.number().int() }))
            .describe('the first pages it matches (at most 5), most nodes first'),
        }),
      )
      .describe('in the order asked'),
  })
  .meta({ id: 'SelectorMatches' });
export type SelectorMatchesBody = z.output<typeof selectorMatchesSchema>;

/** A page of a run's rows; `nextLink` makes the ready-made URL of the following page. */
export const pageListToRest = (
  res: crawlPagesV1.ListPagesResponse,
  nextLink: (cursor: string) => string | null,
): PageList => ({
  runId: res.runId,
  data: res.data.map(crawlPageRowFromProto),
  next: res.cursor === undefined ? null : nextLink(res.cursor),
  cursor: nullable(res.cursor),
});

export const pageContentToRest = (res: crawlPagesV1.PageContentResponse): PageContent => ({
  ...crawlPageRowFromProto(required(res.page, 'PageContentResponse.page')),
  runId: res.runId,
  versions: res.versions.map((v) => ({
    runId: v.runId,
    runStatus: jobStatusEnum.fromProto(v.runStatus),
    crawledAt: nullable(v.crawledAt),
    verdict: v.verdict === pageV1.Verdict.VERDICT_UNSPECIFIED ? null : verdictEnum.fromProto(v.verdict),
    words: nullable(v.words),
  })),
});

export const searchResultToRest = (res: crawlPagesV1.SearchPagesResponse): PageSearchResult => {
  const counts = required(res.counts, 'SearchPagesResponse.counts');
  return {
    runId: res.runId,
    mode: searchModeEnum.fromProto(res.mode),
    q: res.q,
    counts: { pages: counts.pages, scanned: counts.scanned, unscanned: counts.unscanned, matched: counts.matched },
    matches: res.matches.map((m) => ({ url: m.url, count: m.count, snippet: m.snippet, body: m.body })),
    truncated: res.truncated,
  };
};

export const selectorMatchesToRest = (res: crawlPagesV1.MatchSelectorsResponse): SelectorMatchesBody => ({
  runId: res.runId,
  selectors: res.selectors.map((s) => ({
    selector: s.selector,
    pages: s.pages,
    nodes: s.nodes,
    scanned: s.scanned,
    unscanned: s.unscanned,
    examples: s.examples.map((e) => ({ url: e.url, count: e.count })),
  })),
});
