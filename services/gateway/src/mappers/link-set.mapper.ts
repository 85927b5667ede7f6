// crawlPagesV1.ListLinksResponse (PagesService ListLinks) → GET /projects/{id}/runs/{run}/links;
// its REST schema is linkSetSchema (libs/contracts/src/pages.ts).
import {
  foundViaEnum,
  linkSetEnum,
  pageErrorCodeEnum,
  pageV1,
  verdictEnum,
  type crawlPagesV1,
  type LinkEntry,
  type LinkSetPage,
} from '@tidemark/contracts';
import { nullable, required } from './proto-values.js';

const linkEntryToRest = (e: crawlPagesV1.LinkEntry): LinkEntry => ({
  url: e.url,
  depth: e.depth,
  foundVia: foundViaEnum.fromProto(e.foundVia),
  firstReferer: nullable(e.firstReferer),
  inSitemap: e.inSitemap,
  inLinks: e.inLinks,
  outLinks: nullable(e.outLinks),
  verdict: e.verdict === pageV1.Verdict.VERDICT_UNSPECIFIED ? null : verdictEnum.fromProto(e.verdict),
  errorCode:
    e.errorCode === pageV1.PageErrorCode.PAGE_ERROR_CODE_UNSPECIFIED ? null : pageErrorCodeEnum.fromProto(e.errorCode),
  httpStatus: nullable(e.httpStatus),
});

/** One set of a run's link graph; `nextLink` makes the ready-made URL of the following page. */
export const linkSetToRest = (
  res: crawlPagesV1.ListLinksResponse,
  nextLink: (cursor: string) => string | null,
): LinkSetPage => {
  const coverage = required(res.coverage, 'ListLinksResponse.coverage');
  return {
    runId: res.runId,
    kind: linkSetEnum.fromProto(res.kind),
    coverage: {
      verdict: coverage.verdict,
      reason: nullable(coverage.reason),
      stop: nullable(coverage.stop),
      read: coverage.read,
      unread: coverage.unread,
      sitemapUrls: coverage.sitemapUrls,
      unscanned: coverage.unscanned,
    },
    data: res.data.map(linkEntryToRest),
    next: res.cursor === undefined ? null : nextLink(res.cursor),
    cursor: nullable(res.cursor),
  };
};
