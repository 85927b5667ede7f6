import { describe, expect, it } from '@jest/globals';
import { diffV1 } from '@tidemark/contracts';
import { markupDiffSchema, markupDiffToRest } from '../src/mappers/markup-diff.mapper.js';

const overTheWire = (diff: diffV1.MarkupDiff) =>
  diffV1.MarkupDiffResponse.decode(diffV1.MarkupDiffResponse.encode({ diff }).finish()).diff;

const K = diffV1.MarkupChangeKind;

/** The about page: a paragraph rewritten, a box added, a class changed, a block moved, a timestamp. */
const about: diffV1.MarkupDiff = {
  url: 'https://quay.example/about',
  runId: 'run_02',
  baselineRunId: 'run_01',
  truncated: false,
  changes: [
    {
      path: 'main > p:nth-of-type(1)',
      kind: K.MARKUP_CHANGE_KIND_TEXT,
      attr: undefined,
      before: 'The harbour was built in 1901 and is run by the town council.',
      after: 'The harbour was built in 1901 and is run by a trust of local boat owners since the spring.',
      volatile: false,
    },
    {
      path: 'main > div.buy-box',
      kind: K.MARKUP_CHANGE_KIND_ADDED,
      attr: undefined,
      before: undefined,
      after: '€25.00 Book',
      volatile: false,
    },
    {
      path: 'main > aside',
      kind: K.MARKUP_CHANGE_KIND_ATTR,
      attr: 'class',
      before: 'ad',
      after: 'ad promo',
      volatile: false,
    },
    {
      path: 'main > ul',
      kind: K.MARKUP_CHANGE_KIND_MOVED,
      attr: undefined,
      before: 'main > ul',
      after: 'main > section > ul',
      volatile: false,
    },
    {
      path: 'main > div.meta',
      kind: K.MARKUP_CHANGE_KIND_REMOVED,
      attr: undefined,
      before: '<div class="meta">',
      after: undefined,
      volatile: false,
    },
    {
      path: 'main > p:nth-of-type(7)',
      kind: K.MARKUP_CHANGE_KIND_TEXT,
      attr: undefined,
      before: 'Last updated: 2026-03-01 11:01:00 UTC · 137 visitors online',
      after: 'Last updated: 2026-03-02 12:02:00 UTC · 174 visitors online',
      volatile: true,
    },
  ],
};

describe('markupDiffToRest', () => {
  it('answers the markup comparison of the REST API: attr only on attribute changes, null for a missing side', () => {
    const body = markupDiffToRest(overTheWire(about));
    expect(body).toEqual({
      url: 'https://quay.example/about',
      runId: 'run_02',
      baseline: 'run_01',
      truncated: false,
      changes: [
        {
          path: 'main > p:nth-of-type(1)',
          kind: 'text',
          before: 'The harbour was built in 1901 and is run by the town council.',
          after: 'The harbour was built in 1901 and is run by a trust of local boat owners since the spring.',
          volatile: false,
        },
        { path: 'main > div.buy-box', kind: 'added', before: null, after: '€25.00 Book', volatile: false },
        { path: 'main > aside', kind: 'attr', attr: 'class', before: 'ad', after: 'ad promo', volatile: false },
        { path: 'main > ul', kind: 'moved', before: 'main > ul', after: 'main > section > ul', volatile: false },
        { path: 'main > div.meta', kind: 'removed', before: '<div class="meta">', after: null, volatile: false },
        {
          path: 'main > p:nth-of-type(7)',
          kind: 'text',
          before: 'Last updated: 2026-03-01 11:01:00 UTC · 137 visitors online',
          after: 'Last updated: 2026-03-02 12:02:00 UTC · 174 visitors online',
          volatile: true,
        },
      ],
    });
    expect(markupDiffSchema.parse(body)).toEqual(body);
  });

  it('answers a truncated comparison of a first run', () => {
    expect(markupDiffToRest(overTheWire({ ...about, baselineRunId: undefined, truncated: true }))).toMatchObject({
      baseline: null,
      truncated: true,
    });
  });
});
