import { describe, expect, it } from '@jest/globals';
import { diffV1 } from '@tidemark/contracts';
import { pageDiffSchema, pageDiffToRest } from '../src/mappers/page-diff.mapper.js';

const overTheWire = (diff: diffV1.PageDiff) =>
  diffV1.PageDiffResponse.decode(diffV1.PageDiffResponse.encode({ diff }).finish()).diff;

/** The price page of a harbour site: a price changed and a sentence was added under Pricing. */
const prices: diffV1.PageDiff = {
  url: 'https://harbour.example/a',
  runId: 'run_02',
  baselineRunId: 'run_01',
  kind: diffV1.ChangeKind.CHANGE_KIND_MODIFIED,
  wordsAdded: 9,
  wordsRemoved: 1,
  section: 'Pricing',
  sections: ['Pricing'],
  hunks: [
    {
      section: 'Pricing',
      removed: '$19',
      added: '$24',
      wordsRemoved: 1,
      wordsAdded: 1,
      contextBefore: 'A day mooring costs',
      contextAfter: 'at the visitor pontoon.',
    },
    {
      section: 'Pricing',
      removed: '',
      added: 'Showers are now free for every boat staying two nights.',
      wordsRemoved: 0,
      wordsAdded: 10,
      contextBefore: 'at the visitor pontoon.',
      contextAfter: 'The price harbour guide, part',
    },
    {
      section: undefined,
      removed: 'Updated 2026-11-20',
      added: 'Updated 2026-11-21',
      wordsRemoved: 1,
      wordsAdded: 1,
      contextBefore: '',
      contextAfter: 'The home harbour',
    },
  ],
};

describe('pageDiffToRest', () => {
  it('answers the word diff of the REST API', () => {
    const body = pageDiffToRest(overTheWire(prices));
    expect(body).toEqual({
      url: 'https://harbour.example/a',
      runId: 'run_02',
      baseline: 'run_01',
      kind: 'modified',
      wordsAdded: 9,
      wordsRemoved: 1,
      section: 'Pricing',
      sections: ['Pricing'],
      hunks: [
        {
          section: 'Pricing',
          removed: '$19',
          added: '$24',
          wordsRemoved: 1,
          wordsAdded: 1,
          contextBefore: 'A day mooring costs',
          contextAfter: 'at the visitor pontoon.',
        },
        {
          section: 'Pricing',
          removed: '',
          added: 'Showers are now free for every boat staying two nights.',
          wordsRemoved: 0,
          wordsAdded: 10,
          contextBefore: 'at the visitor pontoon.',
          contextAfter: 'The price harbour guide, part',
        },
        {
          section: null,
          removed: 'Updated 2026-11-20',
          added: 'Updated 2026-11-21',
          wordsRemoved: 1,
          wordsAdded: 1,
          contextBefore: '',
          contextAfter: 'The home harbour',
        },
      ],
    });
    expect(pageDiffSchema.parse(body)).toEqual(body);
  });

  it('answers a page new in this run: no baseline, no section, nothing removed', () => {
    const added = pageDiffToRest(
      overTheWire({
        ...prices,
        baselineRunId: undefined,
        kind: diffV1.ChangeKind.CHANGE_KIND_ADDED,
        section: undefined,
        sections: [],
        hunks: [],
      }),
    );
    expect(added).toMatchObject({ baseline: null, kind: 'added', section: null, sections: [], hunks: [] });
  });

  it('refuses a kind a page diff never has', () => {
    expect(() => pageDiffToRest({ ...prices, kind: diffV1.ChangeKind.CHANGE_KIND_WITHHELD })).toThrow(/withheld/);
    expect(() => pageDiffToRest(undefined)).toThrow('internal error');
  });
});
