import { describe, expect, it } from '@jest/globals';
import { classifyPages, countEntries, urlKey } from '../src/compare/page-classify.js';
import type { PageSummary, RunSummary } from '../src/compare/types.js';

const ok = (path: string, hash: string, extra: Partial<PageSummary> = {}): PageSummary => ({
  url: `https://site.test${path}`,
  status: 'done',
  verdict: 'ok',
  errorCode: 'OK',
  httpStatus: 200,
  contentHash: hash,
  words: 100,
  ...extra,
});
const blocked = (path: string, errorCode: PageSummary['errorCode'], httpStatus = 403): PageSummary => ({
  ...ok(path, ''),
  verdict: 'blocked',
  errorCode,
  httpStatus,
  contentHash: null,
});
const run = (runId: string, pages: PageSummary[], stop = 'exhausted', status = 'done'): RunSummary => ({
  runId,
  status,
  stop,
  pages,
});

const kinds = (result: ReturnType<typeof classifyPages>) =>
  Object.fromEntries(result.entries.map((e) => [new URL(e.url).pathname, e.kind]));

describe('classifyPages', () => {
  const baseline = run('run_1', [ok('/', 'h0'), ok('/a', 'ha'), ok('/b', 'hb'), ok('/c', 'hc'), ok('/d', 'hd')]);

  it('sorts pages into added, removed, modified and same', () => {
    const result = classifyPages(
      baseline,
      run('run_2', [
        ok('/', 'h0'),
        ok('/a', 'ha2'),
        ok('/b', 'hb'),
        blocked('/c', 'NOT_FOUND', 404),
        ok('/e', 'he', { words: 42 }),
      ]),
    );
    expect(kinds(result)).toEqual({
      '/': 'same',
      '/a': 'modified',
      '/b': 'same',
      '/c': 'removed',
      '/d': 'removed',
      '/e': 'added',
    });
    const byPath = Object.fromEntries(result.entries.map((e) => [new URL(e.url).pathname, e]));
    expect(byPath['/e']!.wordsAdded).toBe(42);
    expect(byPath['/c']!.wordsRemoved).toBe(100);
    expect(byPath['/d']!.reason).toBe('no longer linked or listed: the crawl did not find it');
    expect(countEntries(result.entries)).toMatchObject({ added: 1, removed: 2, modified: 1, same: 2 });
    expect(result.coverage).toMatchObject({ verdict: true, read: 3, expected: 5, share: 0.6 });
  });

  it('never calls blocked, robots, over-budget or skipped pages removed', () => {
    const result = classifyPages(
      baseline,
      run('run_2', [
        ok('/', 'h0'),
        ok('/a', 'ha'),
        blocked('/b', 'CAPTCHA'),
        { ...ok('/c', ''), verdict: 'robots', errorCode: null, httpStatus: null, contentHash: null },
        { ...blocked('/d', 'BUDGET_EXHAUSTED'), verdict: 'blocked' },
        { ...ok('/e', 'he'), verdict: 'skipped' },
      ]),
    );
    expect(kinds(result)).toEqual({
      '/': 'same',
      '/a': 'same',
      '/b': 'unverified',
      '/c': 'withheld',
      '/d': 'withheld',
      '/e': 'skipped',
    });
    expect(result.entries.find((e) => e.url.endsWith('/b'))!.reason).toBe(
      'CAPTCHA: a captcha widget stands before the content',
    );
    expect(countEntries(result.entries).removed).toBe(0);
  });

  it('reports no removals for a run that stopped at its limit: unreached pages are withheld', () => {
    const result = classifyPages(baseline, run('run_2', [ok('/', 'h0'), ok('/a', 'ha'), ok('/b', 'hb')], 'limit'));
    expect(kinds(result)).toEqual({ '/': 'same', '/a': 'same', '/b': 'same', '/c': 'withheld', '/d': 'withheld' });
    expect(result.entries.find((e) => e.url.endsWith('/c'))!.reason).toBe('not reached: the run stopped before it');
    for (const stop of ['budget', 'cancelled', 'error']) {
      expect(countEntries(classifyPages(baseline, run('run_2', [ok('/', 'h0')], stop)).entries).removed).toBe(0);
    }
  });

  it('says the run is no verdict when it read under half of the baseline, instead of mass removals', () => {
    // A maintenance page answered as a soft 404 everywhere but the home page.
    const result = classifyPages(
      baseline,
      run('run_2', [ok('/', 'h0'), ...['/a', '/b', '/c', '/d'].map((p) => blocked(p, 'NOT_FOUND', 200))]),
    );
    expect(result.coverage).toEqual({
      verdict: false,
      read: 1,
      expected: 5,
      share: 0.2,
      threshold: 0.5,
      reason: 'read only 1 of the 5 pages the baseline read (20%, under 50%); removals are not called',
    });
    expect(countEntries(result.entries)).toMatchObject({ removed: 0, unverified: 4, same: 1 });
    expect(result.entries.find((e) => e.url.endsWith('/a'))!.reason).toBe(
      'not found (soft 404); the run read too little of the site to call it removed',
    );
  });

  it('compares a re-crawl only on its listed pages', () => {
    const result = classifyPages(baseline, { ...run('run_3', [ok('/a', 'ha2')], 'exhausted'), recrawl: true });
    expect(kinds(result)).toEqual({ '/a': 'modified' });
    expect(result.coverage).toMatchObject({ verdict: true, read: 1, expected: 1 });
  });

  it('holds back judgement on a page that had no readable baseline', () => {
    const result = classifyPages(
      run('run_1', [ok('/', 'h0'), blocked('/a', 'BLOCKED')]),
      run('run_2', [ok('/', 'h0'), ok('/a', 'ha')]),
    );
    expect(result.entries.find((e) => e.url.endsWith('/a'))).toMatchObject({
      kind: 'unverified',
      reason: 'no readable baseline (BLOCKED: the site refused us (403, a challenge or block page)); compared next run',
    });
  });

  it('reports changed fields and a selector that stopped matching, without bodies', () => {
    const result = classifyPages(
      run('run_1', [ok('/p', 'h1', { fields: { price: '$19', title: 'Widget', sku: 'W-1' } })]),
      run('run_2', [ok('/p', 'h1', { fields: { price: null, title: 'Widget', sku: 'W-2' } })]),
      { fields: { price: '.price', title: 'h1', sku: { selector: '[itemprop=sku]' } } },
    );
    expect(result.entries).toEqual([
      expect.objectContaining({
        kind: 'modified',
        fields: ['price', 'sku'],
        selectorBreaks: [{ field: 'price', selector: '.price', repointed: null }],
      }),
    ]);
    expect(countEntries(result.entries)).toMatchObject({ modified: 1, fields: 2, selectorBreaks: 1 });
  });

  it('treats the spellings a crawl may keep for one URL as the same page', () => {
    expect(urlKey('HTTPS://Site.Test/a/#top')).toBe(urlKey('https://site.test/a'));
    expect(urlKey('https://site.test/')).toBe('https://site.test/');
    expect(urlKey('https://site.test/a?x=1')).not.toBe(urlKey('https://site.test/a'));
  });
});
