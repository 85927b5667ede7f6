import { describe, expect, it } from '@jest/globals';
import { diffV1 } from '@tidemark/contracts';
import { compareRuns, contentHash } from '../src/compare/compare-runs.js';
import { compareMarkup } from '../src/compare/markup-diff.js';
import type { PageSummary } from '../src/compare/types.js';
import { diffWords } from '../src/compare/word-diff.js';
import type { StoredChange } from '../src/repositories/change.repository.js';
import { changeRecordMessage, markupDiffMessage, pageDiffMessage } from '../src/rpc/diff.rpc.js';

const SITE = 'https://quay.example';
const prose = (topic: string) =>
  Array.from({ length: 8 }, (_, i) => `The ${topic} guide, part ${i + 1}, covers moorings, tides and the quay.`).join(
    '\n\n',
  );
const pages = {
  before: {
    '/': `# Harbour\n\n${prose('home')}`,
    '/about': `# About\n\nThe harbour is run by the town council.\n\n${prose('about')}`,
    '/old': `# Old news\n\n${prose('old')}`,
  } as Record<string, string>,
  after: {
    '/': `# Harbour\n\n${prose('home')}`,
    '/about': `# About\n\nThe harbour is run by a trust of local boat owners.\n\n${prose('about')}`,
    '/new': `# New pier\n\n${prose('pier')}`,
  } as Record<string, string>,
};
const summary = (path: string, markdown: string): PageSummary => ({
  url: `${SITE}${path}`,
  status: 'done',
  verdict: 'ok',
  errorCode: 'OK',
  httpStatus: 200,
  contentHash: contentHash(markdown),
  words: markdown.split(/\s+/).length,
});

/** A real comparison of two runs, stored as the repository reads it back. */
const storedRecord = async (): Promise<StoredChange> => {
  const side = (which: 'before' | 'after', runId: string) => ({
    runId,
    status: 'done',
    stop: 'exhausted',
    pages: Object.entries(pages[which]).map(([path, md]) => summary(path, md)),
  });
  const { record } = await compareRuns({
    baseline: side('before', 'run_01'),
    current: side('after', 'run_02'),
    loadPage: async (url, s) => {
      const md = pages[s === 'baseline' ? 'before' : 'after'][new URL(url).pathname];
      return md === undefined ? null : { markdown: md };
    },
  });
  return {
    id: 'chg_1',
    workspaceId: 'ws_1',
    projectId: 'prj_1',
    runId: 'run_02',
    baselineRunId: record.baseline,
    counts: record.counts,
    coverage: record.coverage,
    templateChanges: record.templateChanges,
    digest: null,
    createdAt: new Date('2026-03-02T12:00:00Z'),
    entries: record.entries.map(({ url, kind, ...data }, i) => ({
      id: `che_${i}`,
      url,
      kind,
      data,
      reviewed: i === 0,
    })),
  };
};

const overTheWire = <T>(codec: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T }, m: T): T =>
  codec.decode(codec.encode(m).finish());

describe('the diff service’s answers as proto messages', () => {
  it('carries a compared record whole: kinds as enum values, nulls as absent fields', async () => {
    const stored = { ...(await storedRecord()), baselineRunId: 'run_01' };
    const message = overTheWire(diffV1.ChangeRecord, changeRecordMessage(stored));
    expect(message.counts).toEqual(stored.counts);
    expect(message.coverage).toEqual(stored.coverage);
    expect(message.createdAt).toEqual(stored.createdAt);
    expect(message.digest).toBeUndefined();
    const byPath = Object.fromEntries(message.entries.map((e) => [new URL(e.url).pathname, e]));
    expect(byPath['/about']).toMatchObject({
      kind: diffV1.ChangeKind.CHANGE_KIND_MODIFIED,
      wordsAdded: 6,
      wordsRemoved: 3,
      section: 'About',
    });
    expect(byPath['/new']!.kind).toBe(diffV1.ChangeKind.CHANGE_KIND_ADDED);
    expect(byPath['/old']).toMatchObject({ kind: diffV1.ChangeKind.CHANGE_KIND_REMOVED, section: undefined });
    expect(byPath['/old']!.reason).toEqual(expect.any(String));
    expect(message.entries.map((e) => e.reviewed)).toEqual(stored.entries.map((e) => e.reviewed));
  });

  it('answers a first run without a baseline and keeps a digest once written', async () => {
    const stored = await storedRecord();
    const digest = { summary: 'The harbour changed hands.', points: ['About: a trust'], significant: true };
    const message = overTheWire(diffV1.ChangeRecord, changeRecordMessage({ ...stored, baselineRunId: null, digest }));
    expect(message.baselineRunId).toBeUndefined();
    expect(message.digest).toEqual(digest);
  });

  it('reads a record stored before a count existed as 0', async () => {
    const stored = await storedRecord();
    const { volatileBlocks: _gone, ...older } = stored.counts;
    const message = changeRecordMessage({ ...stored, counts: older as typeof stored.counts });
    expect(overTheWire(diffV1.ChangeRecord, message).counts!.volatileBlocks).toBe(0);
  });

  it('carries the word diff and the markup comparison of one page', () => {
    const words = diffWords(pages.before['/about']!, pages.after['/about']!);
    const page = overTheWire(
      diffV1.PageDiff,
      pageDiffMessage({ url: `${SITE}/about`, runId: 'run_02', baseline: null, kind: 'modified', ...words }),
    );
    expect(page).toMatchObject({ kind: diffV1.ChangeKind.CHANGE_KIND_MODIFIED, section: 'About' });
    expect(page.baselineRunId).toBeUndefined();
    expect(page.hunks.map((h) => [h.removed, h.added])).toEqual(words.hunks.map((h) => [h.removed, h.added]));

    const markup = compareMarkup(
      '<main><p>run by the town council</p><a href="/x">Rates</a><span>x</span></main>',
      '<main><p>run by a trust</p><a href="/y">Rates</a><div>new</div></main>',
    );
    const message = overTheWire(
      diffV1.MarkupDiff,
      markupDiffMessage({ url: `${SITE}/about`, runId: 'run_02', baseline: 'run_01', ...markup }),
    );
    expect(message.changes.length).toBe(markup.changes.length);
    for (const [i, change] of markup.changes.entries()) {
      const sent = message.changes[i]!;
      expect([sent.path, sent.attr, sent.before ?? null, sent.after ?? null]).toEqual([
        change.path,
        change.attr,
        change.before,
        change.after,
      ]);
    }
    const K = diffV1.MarkupChangeKind;
    expect(message.changes.map((c) => c.kind)).toEqual([
      K.MARKUP_CHANGE_KIND_TEXT,
      K.MARKUP_CHANGE_KIND_ATTR,
      K.MARKUP_CHANGE_KIND_REMOVED,
      K.MARKUP_CHANGE_KIND_ADDED,
    ]);
  });
});
