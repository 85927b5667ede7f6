import { describe, expect, it } from '@jest/globals';
import { crawlPagesV1, pageV1, scrapeV1 } from '@tidemark/contracts';
import {
  contentPreviewSchema,
  contentPreviewToRest,
  removedContentSchema,
  removedContentToRest,
} from '../src/mappers/content-preview.mapper.js';

const url = 'https://shop.example/kettles/steel-2l';

describe('content preview mapper', () => {
  it('answers the preview the scrape service composed, with the open field values as they were', () => {
    const wire = crawlPagesV1.PreviewContentResponse.decode(
      crawlPagesV1.PreviewContentResponse.encode({
        runId: 'run_1',
        preview: {
          url,
          verdict: pageV1.Verdict.VERDICT_THIN,
          errorCode: pageV1.PageErrorCode.PAGE_ERROR_CODE_OK,
          signals: ['short'],
          words: 12,
          language: undefined,
          markdown: '# Steel kettle',
          fields: { price: '39.50', tags: ['steel', 'kitchen'], stock: null },
          fieldErrors: { broken: 'invalid CSS selector: a[[' },
        },
      }).finish(),
    );
    const body = contentPreviewToRest(wire);
    expect(body).toEqual({
      runId: 'run_1',
      url,
      verdict: 'thin',
      errorCode: 'OK',
      signals: ['short'],
      words: 12,
      language: null,
      markdown: '# Steel kettle',
      fields: { price: '39.50', tags: ['steel', 'kitchen'], stock: null },
      fieldErrors: { broken: 'invalid CSS selector: a[[' },
    });
    expect(contentPreviewSchema.parse(body)).toEqual(body);
    // A preview without fields configured answers empty objects, as it always did.
    const bare = contentPreviewToRest({
      runId: 'run_1',
      preview: { ...wire.preview!, fields: undefined, fieldErrors: {} },
    });
    expect(bare).toMatchObject({ fields: {}, fieldErrors: {} });
  });

  it('answers what the filters took out, each with its reason', () => {
    const wire = crawlPagesV1.RemovedContentResponse.decode(
      crawlPagesV1.RemovedContentResponse.encode({
        runId: 'run_1',
        removals: {
          url,
          counts: { banner: 1, 'outside main content': 1 },
          removed: [
            { why: scrapeV1.RemovalReason.REMOVAL_REASON_BANNER, element: 'div#cookies', words: 9, text: 'We use' },
            {
              why: scrapeV1.RemovalReason.REMOVAL_REASON_OUTSIDE_MAIN_CONTENT,
              element: 'aside.related',
              words: 30,
              text: 'Related kettles',
            },
          ],
        },
      }).finish(),
    );
    const body = removedContentToRest(wire);
    expect(body).toEqual({
      runId: 'run_1',
      url,
      counts: { banner: 1, 'outside main content': 1 },
      removed: [
        { why: 'banner', element: 'div#cookies', words: 9, text: 'We use' },
        { why: 'outside main content', element: 'aside.related', words: 30, text: 'Related kettles' },
      ],
    });
    expect(removedContentSchema.parse(body)).toEqual(body);
  });
});
