import { describe, expect, it } from '@jest/globals';
import { tokenizeMarkdown } from '../src/compare/markdown-tokens.js';
import { emptyNoiseState, parseNoiseState, type PageNoise } from '../src/compare/noise-state.js';
import { comparePageContent, type PageComparison } from '../src/compare/page-compare.js';
import { maskVolatile } from '../src/compare/volatile-patterns.js';
import { blockSketch, TemplateIndex } from '../src/compare/template-blocks.js';

const article = (parts: { stamp?: string; quote?: string; body?: string; extra?: string }) =>
  [
    '# Harbour news',
    '',
    parts.stamp ?? 'Last updated: 2025-03-01 10:00:00 UTC',
    '',
    'The harbour opens at dawn and closes at dusk every day of the season.',
    '',
    parts.body ?? 'Boats must register with the harbour master before mooring.',
    '',
    `Quote of the day: ${parts.quote ?? 'Fair winds.'}`,
    '',
    parts.extra ?? 'Fees are listed at the office.',
  ].join('\n');

/** Compares a series of versions as consecutive runs, carrying the page's noise state along. */
function runSeries(versions: string[]): PageComparison[] {
  let noise: PageNoise | undefined;
  const results: PageComparison[] = [];
  for (let i = 1; i < versions.length; i++) {
    const result = comparePageContent(versions[i - 1]!, versions[i]!, { noise, run: i });
    // The state is stored as JSON between runs.
    noise = JSON.parse(JSON.stringify(result.noise)) as PageNoise;
    results.push(result);
  }
  return results;
}

describe('comparePageContent: the noise filter', () => {
  it('treats a timestamp block that changes every run as volatile; the page is unchanged', () => {
    const [result] = runSeries([
      article({ stamp: 'Last updated: 2025-03-01 10:00:00 UTC' }),
      article({ stamp: 'Last updated: 2025-03-08 16:42:10 UTC' }),
    ]);
    expect(result).toMatchObject({ changed: false, volatile: true, volatileBlocks: 1, wordsAdded: 0, wordsRemoved: 0 });
    expect(result!.ignored).toEqual([
      {
        reason: 'pattern',
        section: 'Harbour news',
        before: 'Last updated: 2025-03-01 10:00:00 UTC',
        after: 'Last updated: 2025-03-08 16:42:10 UTC',
      },
    ]);
  });

  it('reports the real edit and sets the timestamp aside when both change', () => {
    const [result] = runSeries([
      article({}),
      article({ stamp: 'Last updated: 2025-03-08 16:42:10 UTC', body: 'Boats must register online before mooring.' }),
    ]);
    expect(result).toMatchObject({ changed: true, volatile: false, volatileBlocks: 1, wordsAdded: 1, wordsRemoved: 4 });
    expect(result!.hunks.map((h) => [h.removed, h.added])).toEqual([['with the harbour master', 'online']]);
  });

  it('counts a flapping A/B/A block as unchanged the second time A appears', () => {
    const [toB, backToA, toBAgain] = runSeries([
      article({ quote: 'Fair winds.' }),
      article({ quote: 'Mind the tide.' }),
      article({ quote: 'Fair winds.' }),
      article({ quote: 'Mind the tide.' }),
    ]);
    expect(toB).toMatchObject({ changed: true, wordsAdded: 3, wordsRemoved: 2 });
    expect(backToA).toMatchObject({ changed: false, volatile: true, volatileBlocks: 1 });
    expect(backToA!.ignored[0]!.reason).toBe('flapping');
    expect(toBAgain).toMatchObject({ changed: false, volatile: true });
  });

  it('reports a moved paragraph the same way with or without history (moving is not flapping)', () => {
    const before = '# P\n\nFirst paragraph here.\n\nSecond paragraph here.\n\nThird paragraph here.';
    const after = '# P\n\nSecond paragraph here.\n\nFirst paragraph here.\n\nThird paragraph here.';
    const fresh = comparePageContent(before, after);
    const withHistory = comparePageContent(before, after, { noise: comparePageContent(before, before).noise, run: 2 });
    expect(fresh.changed).toBe(true);
    expect(withHistory.hunks).toEqual(fresh.hunks);
    expect(withHistory.volatileBlocks).toBe(0);
  });

  it('learns a block that changes in every run while the rest holds still (third time in a row)', () => {
    const quotes = ['Fair winds.', 'Mind the tide.', 'Knots hold.', 'Gulls know.', 'Salt heals.'];
    const results = runSeries(quotes.map((quote) => article({ quote })));
    expect(results.map((r) => r.changed)).toEqual([true, true, false, false]);
    expect(results[2]!.ignored.map((i) => [i.reason, i.before, i.after])).toEqual([
      ['history', 'Quote of the day: Knots hold.', 'Quote of the day: Gulls know.'],
    ]);
  });

  it('does not learn a block as volatile when the rest of the page changed too', () => {
    const versions = [
      article({ quote: 'Fair winds.', extra: 'Fees are listed at the office.' }),
      article({ quote: 'Mind the tide.', extra: 'Fees went up in spring.' }),
      article({ quote: 'Knots hold.', extra: 'Fees are waived for rowers.' }),
      article({ quote: 'Gulls know.', extra: 'Fees are waived for rowers.' }),
    ];
    expect(runSeries(versions).map((r) => r.changed)).toEqual([true, true, true]);
  });

  it('needs consecutive runs: a run in which the page did not change breaks the streak', () => {
    const quotes = ['Fair winds.', 'Mind the tide.', 'Knots hold.'];
    let noise: PageNoise | undefined;
    const changed: boolean[] = [];
    // Runs 1, 3 and 5: the page did not change in runs 2 and 4, so the streak never forms.
    const runs = [1, 3, 5];
    const versions = [...quotes, 'Gulls know.'].map((quote) => article({ quote }));
    for (let i = 0; i < runs.length; i++) {
      const result = comparePageContent(versions[i]!, versions[i + 1]!, { noise, run: runs[i]! });
      noise = result.noise;
      changed.push(result.changed);
    }
    expect(changed).toEqual([true, true, true]);
  });

  it('sets aside ad slots and rotating widgets on their first change', () => {
    const before =
      '# Shop\n\nWidgets for sale.\n\nAdvertisement\nBuy ACME rockets today\n\n## Trending now\n\n- Red widget\n- Blue widget';
    const after =
      '# Shop\n\nWidgets for sale.\n\nAdvertisement\nVisit Harbour Bank\n\n## Trending now\n\n- Green widget\n- Blue widget';
    const result = comparePageContent(before, after);
    expect(result).toMatchObject({ changed: false, volatile: true, volatileBlocks: 2 });
    expect(result.ignored.map((i) => [i.reason, i.section])).toEqual([
      ['ad-slot', 'Shop'],
      ['rotating', 'Trending now'],
    ]);
  });

  it('leaves template pagelets shared by many pages of the run to a run-level report', () => {
    const footer = (year: string) => `Harbour Authority, Quay Street 1, open weekdays nine to five. Season ${year}.`;
    const pageOf = (name: string, year: string) => `# ${name}\n\nAll about the ${name} berth.\n\n${footer(year)}`;
    const baselineIndex = new TemplateIndex(10);
    const currentIndex = new TemplateIndex(10);
    for (const name of ['north', 'south', 'east', 'west']) {
      baselineIndex.addPage(tokenizeMarkdown(pageOf(name, 'opens in May')));
      currentIndex.addPage(tokenizeMarkdown(pageOf(name, 'opens in June')));
    }
    const result = comparePageContent(pageOf('north', 'opens in May'), pageOf('north', 'opens in June'), {
      templateBefore: (sketch) => baselineIndex.isTemplate(sketch),
      templateAfter: (sketch) => currentIndex.isTemplate(sketch),
    });
    expect(result).toMatchObject({ changed: false, volatileBlocks: 1 });
    expect(result.ignored[0]!.reason).toBe('template');
    // Three of ten pages is under the 25% share: not a template, a real change of each page.
    const few = new TemplateIndex(20);
    for (const name of ['north', 'south', 'east']) few.addPage(tokenizeMarkdown(pageOf(name, 'opens in June')));
    const sketch = blockSketch(
      tokenizeMarkdown(footer('opens in June')),
      tokenizeMarkdown(footer('opens in June')).blocks[0]!,
    );
    expect([few.pagesWith(sketch), few.isTemplate(sketch)]).toEqual([3, false]);
  });

  it('never lets history call most of a page volatile', () => {
    const page = (n: number) => ['# Live', `update ${n} alpha`, `update ${n} beta`, `update ${n} gamma`].join('\n\n');
    const results = runSeries([1, 2, 3, 4, 5].map((n) => page(n * 11)));
    expect(results.map((r) => r.changed)).toEqual([true, true, true, true]);
  });
});

describe('noise state', () => {
  it('keeps block fingerprints of the last five versions only', () => {
    const versions = Array.from({ length: 8 }, (_, i) => `# P\n\nversion number ${'x'.repeat(i + 1)}`);
    const results = runSeries(versions);
    const last = results.at(-1)!.noise;
    expect(last.v).toBe(7);
    expect(Math.min(...Object.values(last.seen))).toBe(3);
    expect(last.obs.map((o) => o.run)).toEqual([3, 4, 5, 6, 7]);
  });

  it('reads back what it stored and starts over from anything else', () => {
    const state = { ...emptyNoiseState(), run: 4, pages: { 'https://a.test/': { v: 2, seen: { abc: 2 }, obs: [] } } };
    expect(parseNoiseState(JSON.parse(JSON.stringify(state)))).toEqual(state);
    expect(parseNoiseState({ format: 9 })).toEqual(emptyNoiseState());
    expect(parseNoiseState(null)).toEqual(emptyNoiseState());
  });
});

describe('volatile counters', () => {
  it('masks audience counters, viewers included, and leaves other numbers', () => {
    for (const text of ['12,345 viewers', '1.2k views', '87 visitors', '3 people watching']) {
      expect(maskVolatile(`Live: ${text} now`)).not.toContain(text.split(' ')[0]);
    }
    expect(maskVolatile('A day mooring costs 25 euros')).toContain('25');
  });
});
