import { describe, expect, it } from '@jest/globals';
import {
  crawlPagesV1,
  pageContentSchema,
  pageListSchema,
  pageRowToProto,
  pageSearchResultSchema,
  pageV1,
  type CrawlPageRow,
} from '@tidemark/contracts';
import {
  pageContentToRest,
  pageListToRest,
  searchResultToRest,
  selectorMatchesSchema,
  selectorMatchesToRest,
} from '../src/mappers/project-pages.mapper.js';

const row: CrawlPageRow = {
  url: 'https://docs.example/guide',
  status: 'done',
  httpStatus: 200,
  verdict: 'ok',
  errorCode: 'OK',
  shape: null,
  warnings: [],
  signals: ['nav'],
  method: 'http',
  tier: 'http',
  credits: 1,
  billedAs: 'http',
  climbedTo: null,
  words: 320,
  language: 'en',
  markdown: '# Guide',
  head: { title: 'Guide' },
  reason: null,
  widget: null,
  solved: null,
  exitBytes: 0,
  finalUrl: 'https://docs.example/guide',
  crawledAt: '2026-11-22T10:00:00.000Z',
  foundVia: 'link',
  firstReferer: 'https://docs.example/',
  inSitemap: false,
  inLinks: 4,
  orphan: false,
  unlisted: true,
  origin: 'https://docs.example',
  depth: 1,
};

const wire = <T>(type: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T }, message: T) =>
  type.decode(type.encode(message).finish());

describe('project pages mapper', () => {
  it('answers a page of crawl rows with the next link made from the cursor', () => {
    const res = wire(crawlPagesV1.ListPagesResponse, { runId: 'run_1', data: [pageRowToProto(row)], cursor: 'MTA' });
    const body = pageListToRest(res, (cursor) => `https://api.example/v1/projects/p/pages?cursor=${cursor}`);
    expect(body).toEqual({
      runId: 'run_1',
      data: [row],
      next: 'https://api.example/v1/projects/p/pages?cursor=MTA',
      cursor: 'MTA',
    });
    expect(pageListSchema.parse(body)).toEqual(body);
    const last = pageListToRest(wire(crawlPagesV1.ListPagesResponse, { runId: 'run_1', data: [] }), () => 'x');
    expect(last).toEqual({ runId: 'run_1', data: [], next: null, cursor: null });
  });

  it('answers one page with its versions, null where an earlier run had none', () => {
    const res = wire(crawlPagesV1.PageContentResponse, {
      page: pageRowToProto(row),
      runId: 'run_2',
      versions: [
        {
          runId: 'run_1',
          runStatus: pageV1.JobStatus.JOB_STATUS_DONE,
          crawledAt: '2026-11-21T10:00:00.000Z',
          verdict: pageV1.Verdict.VERDICT_THIN,
          words: 12,
        },
        {
          runId: 'run_0',
          runStatus: pageV1.JobStatus.JOB_STATUS_CANCELLED,
          crawledAt: undefined,
          verdict: pageV1.Verdict.VERDICT_UNSPECIFIED,
          words: undefined,
        },
      ],
    });
    const body = pageContentToRest(res);
    expect(body).toEqual({
      ...row,
      runId: 'run_2',
      versions: [
        { runId: 'run_1', runStatus: 'done', crawledAt: '2026-11-21T10:00:00.000Z', verdict: 'thin', words: 12 },
        { runId: 'run_0', runStatus: 'cancelled', crawledAt: null, verdict: null, words: null },
      ],
    });
    expect(pageContentSchema.parse(body)).toEqual(body);
  });

  it('answers a search and selector matches', () => {
    const search = searchResultToRest(
      wire(crawlPagesV1.SearchPagesResponse, {
        runId: 'run_1',
        mode: crawlPagesV1.SearchMode.SEARCH_MODE_SELECTOR,
        q: 'h1',
        counts: { pages: 3, scanned: 2, unscanned: 1, matched: 1 },
        matches: [{ url: row.url, count: 1, snippet: 'Guide', body: 'html' }],
        truncated: false,
      }),
    );
    expect(search).toEqual({
      runId: 'run_1',
      mode: 'selector',
      q: 'h1',
      counts: { pages: 3, scanned: 2, unscanned: 1, matched: 1 },
      matches: [{ url: row.url, count: 1, snippet: 'Guide', body: 'html' }],
      truncated: false,
    });
    expect(pageSearchResultSchema.parse(search)).toEqual(search);

    const matches = selectorMatchesToRest(
      wire(crawlPagesV1.MatchSelectorsResponse, {
        runId: 'run_1',
        selectors: [
          { selector: 'h1', pages: 2, nodes: 3, scanned: 2, unscanned: 1, examples: [{ url: row.url, count: 2 }] },
          { selector: '.none', pages: 0, nodes: 0, scanned: 2, unscanned: 1, examples: [] },
        ],
      }),
    );
    expect(matches).toEqual({
      runId: 'run_1',
      selectors: [
        { selector: 'h1', pages: 2, nodes: 3, scanned: 2, unscanned: 1, examples: [{ url: row.url, count: 2 }] },
        { selector: '.none', pages: 0, nodes: 0, scanned: 2, unscanned: 1, examples: [] },
      ],
    });
    expect(selectorMatchesSchema.parse(matches)).toEqual(matches);
  });
});
