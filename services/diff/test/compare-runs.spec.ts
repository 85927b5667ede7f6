import { describe, expect, it } from '@jest/globals';
import { compareRuns, contentHash, type PageBodies } from '../src/compare/compare-runs.js';
import { parseHtml } from '../src/compare/dom-stability.js';
import type { NoiseState } from '../src/compare/noise-state.js';
import type { PageSummary, RunSummary } from '../src/compare/types.js';

/** One version of a small site: each page's markdown and clean HTML, and which pages are blocked. */
interface SiteVersion {
  pages: Record<string, { markdown: string; html: string; price?: string | null }>;
  blocked?: string[];
}

const ORIGIN = 'https://harbour.test';

/** Every page carries a timestamp, a visitor counter and a rotating ad: noise on every run. */
function page(title: string, body: string, run: number, extraHtml = ''): { markdown: string; html: string } {
  const ad = ['Sail with Harbour Bank', 'Fresh fish daily at the quay', 'Rent a kayak by the hour'][run % 3]!;
  const markdown = [
    `# ${title}`,
    '',
    body,
    '',
    `Last updated: 2025-03-0${run} 1${run}:0${run}:00 UTC · ${100 + run * 37} visitors online`,
    '',
    `Advertisement\n${ad}`,
  ].join('\n');
  const html = `<main><h1>${title}</h1><p>${body}</p>${extraHtml}<p>Last updated: 2025-03-0${run}</p></main>`;
  return { markdown, html };
}

function site(run: number): SiteVersion {
  const long = (topic: string) =>
    Array.from(
      { length: 12 },
      (_, i) => `${topic} note ${i}: the tide table, the berth list and the harbour rules for boat ${i}.`,
    ).join(' ');
  const pages: SiteVersion['pages'] = {
    '/': page('Harbour', 'Welcome to the harbour. Berths, fees and news.', run),
    '/about':
      run === 1
        ? page('About', 'The harbour was built in 1901 and is run by the town.', run)
        : page('About', 'The harbour was built in 1901 and is run by a trust of local boat owners.', run),
    '/blog/storm': page('Storm', 'The spring storm closed the quay for two days.', run),
    '/blog/regatta': page('Regatta', 'The summer regatta starts at the north pier.', run),
    // The price element moves out of .meta into a buy box (same value): its selector breaks.
    '/shop/mooring': {
      ...page(
        'Mooring',
        'Mooring for one night.',
        run,
        run === 1
          ? '<div class="meta"><span class="price">€25.00</span></div>'
          : '<div class="buy-box"><span class="amount" itemprop="price">€25.00</span><button>Book</button></div>',
      ),
      price: '€25.00',
    },
    '/shop/fuel': { ...page('Fuel', 'Diesel at the fuel dock.', run), price: null },
  };
  if (run === 1) pages['/notices/2024'] = page('Notices 2024', long('2024'), run);
  // Run 2 moves the notices page to a new address, and adds a page.
  if (run === 2) {
    pages['/notices/archive-2024'] = page('Notices 2024', long('2024'), run);
    pages['/events'] = page('Events', 'Boat blessing on May 1st.', run);
  }
  return { pages, blocked: run === 2 ? ['/blog/storm', '/blog/regatta'] : [] };
}

function summarize(runId: string, version: SiteVersion, stop = 'exhausted'): RunSummary {
  const pages: PageSummary[] = Object.entries(version.pages).map(([path, p]) => {
    const blocked = version.blocked?.includes(path);
    return {
      url: ORIGIN + path,
      status: 'done',
      verdict: blocked ? 'blocked' : 'ok',
      errorCode: blocked ? 'BLOCKED' : 'OK',
      httpStatus: blocked ? 403 : 200,
      contentHash: blocked ? null : contentHash(p.markdown),
      words: blocked ? 0 : p.markdown.split(/\s+/).length,
      ...(path.startsWith('/shop/') && !blocked
        ? { fields: { price: p.html.includes('class="price"') ? (p.price ?? null) : null } }
        : {}),
    };
  });
  return { runId, status: 'done', stop, pages };
}

function loader(versions: Record<'baseline' | 'current', SiteVersion>, loads: string[] = []) {
  return async (url: string, side: 'baseline' | 'current'): Promise<PageBodies | null> => {
    loads.push(`${side} ${url.slice(ORIGIN.length)}`);
    const version = versions[side];
    const path = url.slice(ORIGIN.length);
    if (version.blocked?.includes(path)) return null;
    return version.pages[path] ?? null;
  };
}

const byPath = <T extends { url: string }>(entries: T[]): Record<string, T> =>
  Object.fromEntries(entries.map((e) => [e.url.slice(ORIGIN.length), e]));

describe('compareRuns', () => {
  const options = { fields: { price: '.meta > .price' } };

  it('matches what the site changed: edits, additions, removals, noise, a blocked section and a moved field', async () => {
    const [one, two] = [site(1), site(2)];
    const { record, noise } = await compareRuns({
      baseline: summarize('run_1', one),
      current: summarize('run_2', two),
      loadPage: loader({ baseline: one, current: two }),
      options,
    });
    expect(record.baseline).toBe('run_1');
    expect(record.coverage).toMatchObject({ verdict: true, read: 4, expected: 7 });
    // The notices page moved (removed + added); /events is new; the blog is blocked, not removed.
    expect(record.counts).toEqual({
      added: 2,
      removed: 1,
      modified: 1,
      same: 3,
      withheld: 0,
      unverified: 2,
      skipped: 0,
      fields: 0,
      selectorBreaks: 1,
      // The rotating ad and the timestamp line, on each of the four pages compared.
      volatileBlocks: 8,
    });
    const entries = byPath(record.entries);
    expect(entries['/about']).toMatchObject({
      kind: 'modified',
      wordsAdded: 6,
      wordsRemoved: 2,
      section: 'About',
      volatile: false,
      volatileBlocks: 2,
      notify: true,
    });
    expect(entries['/blog/storm']).toMatchObject({ kind: 'unverified', notify: false });
    expect(entries['/notices/2024']).toMatchObject({ kind: 'removed', movedTo: `${ORIGIN}/notices/archive-2024` });
    expect(entries['/notices/archive-2024']).toMatchObject({ kind: 'added', movedFrom: `${ORIGIN}/notices/2024` });
    expect(entries['/shop/mooring']).toMatchObject({
      kind: 'same',
      fields: [],
      selectorBreaks: [
        {
          field: 'price',
          selector: '.meta > .price',
          repointed: { selector: expect.any(String), confidence: expect.any(Number), value: '€25.00' },
        },
      ],
    });
    const proposed = entries['/shop/mooring']!.selectorBreaks[0]!.repointed!.selector;
    const matched = parseHtml(two.pages['/shop/mooring']!.html).querySelectorAll(proposed);
    expect(Array.from(matched).map((el) => [el.className, el.textContent])).toEqual([['amount', '€25.00']]);
    // Pages unchanged but for noise are listed as volatile; the home page is one of them.
    expect(entries['/']).toMatchObject({ kind: 'same', volatile: true, volatileBlocks: 2, notify: false });
    expect(Object.keys(noise.pages).sort()).toEqual(
      ['/', '/about', '/shop/fuel', '/shop/mooring'].map((p) => ORIGIN + p).sort(),
    );
    expect(noise.run).toBe(1);
  });

  it('loads no bodies for pages whose fingerprint did not change (a timestamp alone does not change it)', async () => {
    const quiet = (run: number): SiteVersion => ({
      pages: {
        '/': { markdown: `# Harbour\n\nWelcome.\n\nLast updated: 2025-03-0${run} 10:0${run}:00 UTC`, html: '<p>x</p>' },
        '/a': { markdown: run === 1 ? '# A\n\nOld text.' : '# A\n\nNew text.', html: '<p>a</p>' },
      },
    });
    const loads: string[] = [];
    const { record } = await compareRuns({
      baseline: summarize('run_1', quiet(1)),
      current: summarize('run_2', quiet(2)),
      loadPage: loader({ baseline: quiet(1), current: quiet(2) }, loads),
    });
    expect(loads.sort()).toEqual(['baseline /a', 'current /a']);
    expect(record.counts).toMatchObject({ modified: 1, same: 1 });
    expect(record.entries.map((e) => e.url)).toEqual([`${ORIGIN}/a`]);
  });

  it('reports no removals for a run that stopped at its limit', async () => {
    const [one, two] = [site(1), site(2)];
    const cut = summarize('run_2', two, 'limit');
    cut.pages = cut.pages.filter((p) => !p.url.includes('/shop/') && !p.url.includes('/notices/'));
    const { record } = await compareRuns({
      baseline: summarize('run_1', one),
      current: cut,
      loadPage: loader({ baseline: one, current: two }),
      options,
    });
    expect(record.counts.removed).toBe(0);
    expect(record.counts.withheld).toBe(3);
    expect(record.entries.filter((e) => e.kind === 'withheld').map((e) => e.reason)).toEqual([
      'not reached: the run stopped before it',
      'not reached: the run stopped before it',
      'not reached: the run stopped before it',
    ]);
  });

  it('carries the noise state across runs: a block flapping back is not a change', async () => {
    const version = (quote: string): SiteVersion => ({
      pages: { '/': { markdown: `# Harbour\n\nWelcome to the harbour.\n\nQuote of the day: ${quote}`, html: '' } },
    });
    const [a, b] = [version('Fair winds.'), version('Mind the tide.')];
    let noise: NoiseState | undefined;
    const kinds: string[] = [];
    for (const [before, after, id] of [
      [a, b, 'run_2'],
      [b, a, 'run_3'],
    ] as const) {
      const result = await compareRuns({
        baseline: summarize('prev', before),
        current: summarize(id, after),
        loadPage: loader({ baseline: before, current: after }),
        noise: JSON.parse(JSON.stringify(noise ?? null)),
      });
      noise = result.noise;
      kinds.push(result.record.counts.modified ? 'modified' : 'same');
    }
    expect(kinds).toEqual(['modified', 'same']);
    expect(noise!.run).toBe(2);
  });

  it('reports a change to a template block once for the run, not as a modification of every page', async () => {
    const footer = (season: string) =>
      `Harbour Authority, Quay Street 1. Office hours ${season}, weekdays nine to five.`;
    const version = (season: string): SiteVersion => ({
      pages: Object.fromEntries(
        ['north', 'south', 'east', 'west', 'pier'].map((name) => [
          `/${name}`,
          {
            markdown: `# ${name}\n\nThe ${name} berth takes boats up to twelve metres.\n\n${footer(season)}`,
            html: '',
          },
        ]),
      ),
    });
    const [summer, winter] = [version('in summer'), version('in winter')];
    const { record } = await compareRuns({
      baseline: summarize('run_1', summer),
      current: summarize('run_2', winter),
      loadPage: loader({ baseline: summer, current: winter }),
    });
    expect(record.counts).toMatchObject({ modified: 0, same: 5, volatileBlocks: 5 });
    expect(record.templateChanges).toEqual([
      {
        section: 'north',
        before: footer('in summer'),
        after: footer('in winter'),
        pages: 5,
        urls: ['north', 'south', 'east', 'west', 'pier'].map((n) => `${ORIGIN}/${n}`),
      },
    ]);
  });

  it('gates notification of a modified page on notify_min_words', async () => {
    const version = (text: string): SiteVersion => ({ pages: { '/': { markdown: `# H\n\n${text}`, html: '' } } });
    const [a, b] = [version('Open daily from six.'), version('Open daily from seven.')];
    const run = (notifyMinWords: number) =>
      compareRuns({
        baseline: summarize('run_1', a),
        current: summarize('run_2', b),
        loadPage: loader({ baseline: a, current: b }),
        options: { notifyMinWords },
      });
    expect((await run(1)).record.entries[0]).toMatchObject({
      kind: 'modified',
      wordsAdded: 1,
      wordsRemoved: 1,
      notify: true,
    });
    expect((await run(5)).record.entries[0]).toMatchObject({ kind: 'modified', notify: false });
  });
});
