import { afterAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@tidemark/telemetry';
import { SelectorPool, SelectorsFailed } from '../src/bounded/selector-pool.js';
import type { SelectorRunner, SelectorTask } from '../src/bounded/tasks.js';
import { compareRuns, type PageBodies } from '../src/compare/compare-runs.js';
import { tokenizeMarkdown } from '../src/compare/markdown-tokens.js';
import { diffWords } from '../src/compare/word-diff.js';
import { maskVolatileElements, volatileTexts } from '../src/compare/volatile-elements.js';
import type { RunSummary } from '../src/compare/types.js';

const pool = new SelectorPool({ threads: 1, budgetMs: 1_500, logger: createLogger('test', 'silent') });
afterAll(() => pool.close());

/** A page whose quote of the day changes each run; `edit` changes the prose elsewhere. */
const version = (quote: string, edit = 'The quay opens at six.') => ({
  html: `<main><h1>Quay</h1><p>${edit} Boats moor on the east side.</p><div class="quote"><p>Quote of the day: <em>${quote}</em></p></div><p>Tickets at <span class="live">${quote.length} seats</span> left.</p></main>`,
  markdown: `# Quay\n\n${edit} Boats moor on the east side.\n\nQuote of the day: *${quote}*\n\nTickets at ${quote.length} seats left.\n`,
});

/** A list of `items` items: :nth-last-child() counts each item's siblings, quadratic in it. */
const longList = (items: number) => `<ul>${'<li>High water 06:12</li>'.repeat(items)}</ul>`;

const summary = (runId: string, url: string): RunSummary => ({
  runId,
  status: 'done',
  stop: 'exhausted',
  pages: [{ url, verdict: 'ok', errorCode: null, httpStatus: 200, contentHash: null, words: 20 }],
});

const compare = (
  before: PageBodies,
  after: PageBodies,
  volatileSelectors: string[],
  selectors: SelectorRunner = pool,
) =>
  compareRuns({
    baseline: summary('r1', 'https://quay.test/'),
    current: summary('r2', 'https://quay.test/'),
    loadPage: async (_url, side) => (side === 'baseline' ? before : after),
    options: { volatileSelectors },
    selectors,
  });

describe('volatile_selectors', () => {
  it('finds the text of the outermost matched elements in document order', () => {
    const { texts, invalid } = volatileTexts(version('Fair winds').html, ['.quote p', '.quote', '.live', '!!bad']);
    expect(texts).toEqual(['Quote of the day: Fair winds', '10 seats']);
    expect(invalid).toEqual(['!!bad']);
  });

  it('masks those words in the markdown so the word diff sees no change inside them', () => {
    const a = version('Fair winds');
    const b = version('Calm seas and a long, bright evening');
    const sel = ['.quote', '.live'];
    const masked = (v: typeof a) =>
      maskVolatileElements(tokenizeMarkdown(v.markdown), volatileTexts(v.html, sel).texts);
    expect(masked(a).found).toBe(2);
    expect(diffWords(masked(a).doc, masked(b).doc).hunks).toEqual([]);
    expect(diffWords(a.markdown, b.markdown).hunks.length).toBeGreaterThan(0);
  });

  it('a run whose only change is inside a volatile element is same; an edit elsewhere is modified', async () => {
    const sel = ['.quote', '.live'];
    const same = await compare(version('Fair winds'), version('Calm seas and a long evening'), sel);
    expect(same.record.entries.find((e) => e.url.endsWith('/'))?.kind ?? 'same').toBe('same');
    expect(same.record.counts).toMatchObject({ modified: 0, same: 1 });
    expect(same.record.counts.volatileBlocks).toBeGreaterThan(0);

    const edited = await compare(version('Fair winds'), version('Calm seas', 'The quay opens at seven.'), sel);
    expect(edited.record.counts).toMatchObject({ modified: 1 });
    const entry = edited.record.entries.find((e) => e.kind === 'modified')!;
    expect(entry.wordsAdded).toBe(1);

    // Without the selectors the quote is a change.
    const plain = await compare(version('Fair winds'), version('Calm seas and a long evening'), []);
    expect(plain.record.counts).toMatchObject({ modified: 1 });
  });

  it('says why when a page has no stored html', async () => {
    const a = version('Fair winds');
    const b = version('Calm seas');
    const result = await compare({ markdown: a.markdown }, { markdown: b.markdown }, ['.quote']);
    const entry = result.record.entries.find((e) => e.url.endsWith('/'))!;
    expect(entry.kind).toBe('modified');
    expect(entry.reason).toMatch(/volatile_selectors not applied: the page’s html is not stored/);
  });

  it('a selector that outruns its budget gives the reason and does not hold the event loop', async () => {
    const a = version('Fair winds');
    const html = `${a.html}${longList(20_000)}`;
    const selector = 'li:nth-last-child(2)';
    // How each task the compare ran on the pool ended.
    const outcomes: string[] = [];
    const recorded: SelectorRunner = {
      run: <K extends SelectorTask['kind']>(task: Extract<SelectorTask, { kind: K }>) =>
        pool.run(task).then(
          (answer) => {
            outcomes.push(`${task.kind} answered`);
            return answer;
          },
          (err: unknown) => {
            outcomes.push(`${task.kind} ${err instanceof SelectorsFailed && err.timeout ? 'over budget' : 'failed'}`);
            throw err;
          },
        ),
    };
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    const result = await compare({ ...a, html }, { ...version('Calm seas'), html }, [selector], recorded);
    clearInterval(timer);
    // Its thread was ended at the budget; the selector never ran to its end.
    expect(outcomes).toContain('volatile over budget');
    expect(outcomes).not.toContain('volatile answered');
    expect(ticks).toBeGreaterThan(5); // the event loop kept turning while the thread worked
    const entry = result.record.entries.find((e) => e.url.endsWith('/'))!;
    expect(entry.kind).toBe('modified');
    expect(entry.reason).toBe(
      'volatile_selectors not applied: evaluating volatile_selectors took more than its budget of 1500 ms',
    );
    // The pool is usable again.
    const after = await compare(version('Fair winds'), version('Calm seas'), ['.quote', '.live']);
    expect(after.record.counts).toMatchObject({ modified: 0 });
  });

  it('repointing a field selector that outruns its budget is skipped with the reason', async () => {
    const selector = 'li:nth-last-child(2)';
    const page = (price: string | null): RunSummary => ({
      ...summary(price ? 'r1' : 'r2', 'https://quay.test/'),
      pages: [
        {
          url: 'https://quay.test/',
          verdict: 'ok',
          errorCode: null,
          httpStatus: 200,
          contentHash: null,
          words: 20,
          fields: { price },
        },
      ],
    });
    const a = version('Fair winds');
    const html = `${a.html}${longList(20_000)}`;
    const result = await compareRuns({
      baseline: page('€25.00'),
      current: page(null),
      loadPage: async () => ({ markdown: a.markdown, html }),
      options: { fields: { price: selector } },
      selectors: pool,
    });
    const entry = result.record.entries.find((e) => e.url.endsWith('/'))!;
    expect(entry.selectorBreaks).toEqual([{ field: 'price', selector, repointed: null }]);
    expect(entry.reason).toBe(
      'field price not repointed: repointing the field selector took more than its budget of 1500 ms',
    );
  });
});
