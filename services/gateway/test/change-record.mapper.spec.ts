import { describe, expect, it } from '@jest/globals';
import { diffV1 } from '@tidemark/contracts';
import { changeRecordSchema, changeRecordToRest, changeReviewToRest } from '../src/mappers/change-record.mapper.js';

/** As the gateway receives it: encoded by the diff service, decoded here. */
const overTheWire = (record: diffV1.ChangeRecord) =>
  diffV1.GetChangesResponse.decode(diffV1.GetChangesResponse.encode({ record }).finish()).record;

const SITE = 'https://quay.example';

/** The second run of a harbour site: an edit, a move, a blocked section, a broken price selector. */
const record: diffV1.ChangeRecord = {
  id: 'chg_01JD7Q',
  runId: 'run_02',
  baselineRunId: 'run_01',
  counts: {
    added: 1,
    removed: 0,
    modified: 1,
    same: 4,
    withheld: 0,
    unverified: 2,
    skipped: 0,
    fields: 0,
    selectorBreaks: 1,
    volatileBlocks: 7,
  },
  coverage: {
    verdict: true,
    read: 6,
    expected: 8,
    share: 0.75,
    threshold: 0.5,
    reason: 'read 6 of the 8 pages the baseline read (75%)',
  },
  templateChanges: [
    {
      section: undefined,
      before: 'Sail with Harbour Bank',
      after: 'Rent a kayak by the hour',
      pages: 6,
      urls: [`${SITE}/`, `${SITE}/about`],
    },
  ],
  digest: {
    summary: 'The harbour is now run by a trust of boat owners; a new pier post appeared.',
    points: ['About: run by a trust of local boat owners', 'Blog: the new pier opens'],
    significant: true,
  },
  createdAt: new Date('2026-03-02T12:02:00.123Z'),
  entries: [
    {
      id: 'che_1',
      url: `${SITE}/about`,
      kind: diffV1.ChangeKind.CHANGE_KIND_MODIFIED,
      reason: undefined,
      wordsAdded: 9,
      wordsRemoved: 3,
      section: 'About',
      volatile: false,
      volatileBlocks: 1,
      fields: [],
      selectorBreaks: [],
      movedTo: undefined,
      movedFrom: undefined,
      notify: true,
      reviewed: true,
    },
    {
      id: 'che_2',
      url: `${SITE}/blog/new`,
      kind: diffV1.ChangeKind.CHANGE_KIND_ADDED,
      reason: undefined,
      wordsAdded: 112,
      wordsRemoved: 0,
      section: undefined,
      volatile: false,
      volatileBlocks: 0,
      fields: [],
      selectorBreaks: [],
      movedTo: undefined,
      movedFrom: `${SITE}/blog/old`,
      notify: true,
      reviewed: false,
    },
    {
      id: 'che_3',
      url: `${SITE}/members/`,
      kind: diffV1.ChangeKind.CHANGE_KIND_UNVERIFIED,
      reason: 'blocked (403): compared next run',
      wordsAdded: 0,
      wordsRemoved: 0,
      section: undefined,
      volatile: false,
      volatileBlocks: 0,
      fields: [],
      selectorBreaks: [],
      movedTo: undefined,
      movedFrom: undefined,
      notify: false,
      reviewed: false,
    },
    {
      id: 'che_4',
      url: `${SITE}/rates`,
      kind: diffV1.ChangeKind.CHANGE_KIND_SAME,
      reason: undefined,
      wordsAdded: 0,
      wordsRemoved: 0,
      section: undefined,
      volatile: true,
      volatileBlocks: 2,
      fields: ['price', 'currency'],
      selectorBreaks: [
        {
          field: 'price',
          selector: '.meta .price',
          repointed: { selector: '.buy-box > span.amount', confidence: 0.82, value: '€25.00' },
        },
        { field: 'currency', selector: '.meta .currency', repointed: undefined },
      ],
      movedTo: undefined,
      movedFrom: undefined,
      notify: false,
      reviewed: false,
    },
  ],
};

describe('changeRecordToRest', () => {
  it('answers the change record of the REST API, nulls where the message left a field out', () => {
    const body = changeRecordToRest(overTheWire(record));
    expect(body).toEqual({
      id: 'chg_01JD7Q',
      runId: 'run_02',
      baseline: 'run_01',
      counts: {
        added: 1,
        removed: 0,
        modified: 1,
        same: 4,
        withheld: 0,
        unverified: 2,
        skipped: 0,
        fields: 0,
        selectorBreaks: 1,
        volatileBlocks: 7,
      },
      coverage: {
        verdict: true,
        read: 6,
        expected: 8,
        share: 0.75,
        threshold: 0.5,
        reason: 'read 6 of the 8 pages the baseline read (75%)',
      },
      templateChanges: [
        {
          section: null,
          before: 'Sail with Harbour Bank',
          after: 'Rent a kayak by the hour',
          pages: 6,
          urls: [`${SITE}/`, `${SITE}/about`],
        },
      ],
      digest: {
        summary: 'The harbour is now run by a trust of boat owners; a new pier post appeared.',
        points: ['About: run by a trust of local boat owners', 'Blog: the new pier opens'],
        significant: true,
      },
      createdAt: '2026-03-02T12:02:00.123Z',
      entries: [
        {
          id: 'che_1',
          url: `${SITE}/about`,
          kind: 'modified',
          wordsAdded: 9,
          wordsRemoved: 3,
          section: 'About',
          volatile: false,
          volatileBlocks: 1,
          fields: [],
          selectorBreaks: [],
          notify: true,
          reviewed: true,
        },
        {
          id: 'che_2',
          url: `${SITE}/blog/new`,
          kind: 'added',
          wordsAdded: 112,
          wordsRemoved: 0,
          section: null,
          volatile: false,
          volatileBlocks: 0,
          fields: [],
          selectorBreaks: [],
          movedFrom: `${SITE}/blog/old`,
          notify: true,
          reviewed: false,
        },
        {
          id: 'che_3',
          url: `${SITE}/members/`,
          kind: 'unverified',
          reason: 'blocked (403): compared next run',
          wordsAdded: 0,
          wordsRemoved: 0,
          section: null,
          volatile: false,
          volatileBlocks: 0,
          fields: [],
          selectorBreaks: [],
          notify: false,
          reviewed: false,
        },
        {
          id: 'che_4',
          url: `${SITE}/rates`,
          kind: 'same',
          wordsAdded: 0,
          wordsRemoved: 0,
          section: null,
          volatile: true,
          volatileBlocks: 2,
          fields: ['price', 'currency'],
          selectorBreaks: [
            {
              field: 'price',
              selector: '.meta .price',
              repointed: { selector: '.buy-box > span.amount', confidence: 0.82, value: '€25.00' },
            },
            { field: 'currency', selector: '.meta .currency', repointed: null },
          ],
          notify: false,
          reviewed: false,
        },
      ],
    });
    // The documented schema takes it as it is (nothing stripped, nothing missing).
    expect(changeRecordSchema.parse(body)).toEqual(body);
  });

  it('answers a first run with null baseline and digest', () => {
    const first = changeRecordToRest(
      overTheWire({ ...record, baselineRunId: undefined, digest: undefined, templateChanges: [], entries: [] }),
    );
    expect(first).toMatchObject({ baseline: null, digest: null, templateChanges: [], entries: [] });
  });

  it('refuses an answer without the record or its coverage (a broken peer, not a guess)', () => {
    expect(() => changeRecordToRest(undefined)).toThrow('internal error');
    expect(() => changeRecordToRest(overTheWire({ ...record, coverage: undefined }))).toThrow('internal error');
    expect(() =>
      changeRecordToRest({ ...record, entries: [{ ...record.entries[0]!, kind: diffV1.ChangeKind.UNRECOGNIZED }] }),
    ).toThrow(/unknown value -1/);
  });
});

describe('changeReviewToRest', () => {
  it('answers the entry id and its flag', () => {
    const res = diffV1.ReviewEntryResponse.decode(
      diffV1.ReviewEntryResponse.encode({ entryId: 'che_1', reviewed: false }).finish(),
    );
    expect(changeReviewToRest(res)).toEqual({ id: 'che_1', reviewed: false });
  });
});
