import { describe, expect, it } from '@jest/globals';
import { crawlPagesV1, linkSetSchema, pageV1 } from '@tidemark/contracts';
import { InternalError } from '@tidemark/errors';
import { linkSetToRest } from '../src/mappers/link-set.mapper.js';

const overTheWire = (res: crawlPagesV1.ListLinksResponse) =>
  crawlPagesV1.ListLinksResponse.decode(crawlPagesV1.ListLinksResponse.encode(res).finish());

const sent: crawlPagesV1.ListLinksResponse = {
  runId: 'run_1',
  kind: crawlPagesV1.LinkSetKind.LINK_SET_KIND_DEAD_ENDS,
  coverage: {
    verdict: false,
    reason: '2 read pages kept no links to judge',
    stop: undefined,
    read: 10,
    unread: 1,
    sitemapUrls: 0,
    unscanned: 2,
  },
  data: [
    {
      url: 'https://docs.example/end',
      depth: 2,
      foundVia: pageV1.FoundVia.FOUND_VIA_LINK,
      firstReferer: 'https://docs.example/guide',
      inSitemap: false,
      inLinks: 1,
      outLinks: 0,
      verdict: pageV1.Verdict.VERDICT_OK,
      errorCode: pageV1.PageErrorCode.PAGE_ERROR_CODE_OK,
      httpStatus: 200,
    },
    {
      url: 'https://docs.example/lost',
      depth: 1,
      foundVia: pageV1.FoundVia.FOUND_VIA_SITEMAP,
      firstReferer: undefined,
      inSitemap: true,
      inLinks: 0,
      outLinks: undefined,
      verdict: pageV1.Verdict.VERDICT_UNSPECIFIED,
      errorCode: pageV1.PageErrorCode.PAGE_ERROR_CODE_UNSPECIFIED,
      httpStatus: undefined,
    },
  ],
  cursor: 'aHR0cHM6',
};

describe('linkSetToRest', () => {
  it('answers the link set with its coverage, null for what a URL has not got', () => {
    const body = linkSetToRest(overTheWire(sent), (cursor) => `https://api.example/next?cursor=${cursor}`);
    expect(body).toEqual({
      runId: 'run_1',
      kind: 'dead_ends',
      coverage: {
        verdict: false,
        reason: '2 read pages kept no links to judge',
        stop: null,
        read: 10,
        unread: 1,
        sitemapUrls: 0,
        unscanned: 2,
      },
      data: [
        {
          url: 'https://docs.example/end',
          depth: 2,
          foundVia: 'link',
          firstReferer: 'https://docs.example/guide',
          inSitemap: false,
          inLinks: 1,
          outLinks: 0,
          verdict: 'ok',
          errorCode: 'OK',
          httpStatus: 200,
        },
        {
          url: 'https://docs.example/lost',
          depth: 1,
          foundVia: 'sitemap',
          firstReferer: null,
          inSitemap: true,
          inLinks: 0,
          outLinks: null,
          verdict: null,
          errorCode: null,
          httpStatus: null,
        },
      ],
      next: 'https://api.example/next?cursor=aHR0cHM6',
      cursor: 'aHR0cHM6',
    });
    expect(linkSetSchema.parse(body)).toEqual(body);
  });

  it('refuses an answer without its coverage', () => {
    expect(() => linkSetToRest({ ...sent, coverage: undefined }, () => null)).toThrow(InternalError);
  });
});
