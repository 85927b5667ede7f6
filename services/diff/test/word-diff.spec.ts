import { describe, expect, it } from '@jest/globals';
import { tokenizeMarkdown } from '../src/compare/markdown-tokens.js';
import { diffWords } from '../src/compare/word-diff.js';

const page = (pricing: string) =>
  [
    '# Acme Widgets',
    '',
    'Acme makes widgets for every workshop.',
    '',
    '## Pricing',
    '',
    pricing,
    '',
    '## Support',
    '',
    'Write to **support@acme.test** any day of the week.',
  ].join('\n');

describe('tokenizeMarkdown', () => {
  it('reads words under their headings, without markdown syntax', () => {
    const doc = tokenizeMarkdown(
      '# Title *one*\n\n- item **bold** [link text](https://a.test/x "t")\n- ![alt words](https://a.test/i.png)\n\n| A | B |\n| --- | --- |\n| c | d |',
    );
    expect(doc.tokens.map((t) => t.text)).toEqual([
      'Title',
      'one',
      'item',
      'bold',
      'link',
      'text',
      'https://a.test/x',
      'alt',
      'words',
      'https://a.test/i.png',
      'A',
      'B',
      'c',
      'd',
    ]);
    expect(doc.tokens.filter((t) => t.link).map((t) => t.text)).toEqual(['https://a.test/x', 'https://a.test/i.png']);
    expect(doc.blocks.map((b) => [b.section, b.ordinal, b.heading])).toEqual([
      ['Title one', 0, true],
      ['Title one', 1, false],
      ['Title one', 2, false],
    ]);
  });

  it('reads a heading and a code fence inside a nested list item, however deep', () => {
    const doc = tokenizeMarkdown(
      ['- Plans', '  - Pro', '    #### Limits', '    ```', '    rate = 100', '    ```', '    Fair use applies.'].join(
        '\n',
      ),
    );
    expect(doc.tokens.map((t) => t.text)).toEqual([
      'Plans',
      'Pro',
      'Limits',
      'rate',
      '=',
      '100',
      'Fair',
      'use',
      'applies.',
    ]);
    expect(doc.blocks.filter((b) => b.heading).map((b) => b.section)).toEqual(['Limits']);
  });

  it('keeps a volatile span as one token compared by its kind', () => {
    const doc = tokenizeMarkdown('Posted 5 minutes ago by Ann. Last updated: 2025-03-01 10:22:13 UTC');
    expect(doc.tokens.map((t) => [t.text, t.key])).toEqual([
      ['Posted', 'Posted'],
      ['5 minutes ago', '⟨relative-time⟩'],
      ['by', 'by'],
      ['Ann.', 'Ann.'],
      ['Last updated: 2025-03-01 10:22:13 UTC', '⟨timestamp⟩'],
    ]);
  });
});

describe('diffWords', () => {
  it('gives exactly the edited words, in the section they fall in', () => {
    const diff = diffWords(
      page('The basic plan costs $19 a month and includes email support.'),
      page('The basic plan costs $24 a month and includes phone and email support.'),
    );
    expect(diff.hunks).toEqual([
      {
        section: 'Pricing',
        removed: '$19',
        added: '$24',
        wordsRemoved: 1,
        wordsAdded: 1,
        contextBefore: 'Pricing The basic plan costs',
        contextAfter: 'a month and includes phone',
      },
      {
        section: 'Pricing',
        removed: '',
        added: 'phone and',
        wordsRemoved: 0,
        wordsAdded: 2,
        contextBefore: '$24 a month and includes',
        contextAfter: 'email support. Support Write to',
      },
    ]);
    expect([diff.wordsAdded, diff.wordsRemoved, diff.section, diff.sections]).toEqual([3, 1, 'Pricing', ['Pricing']]);
  });

  it('places a removed paragraph in the section it was removed from', () => {
    const diff = diffWords(
      '# A\n\nkeep this\n\n## B\n\ndrop these three\n\n## C\n\nstay',
      '# A\n\nkeep this\n\n## B\n\n## C\n\nstay',
    );
    expect(diff.hunks.map((h) => [h.section, h.removed, h.added])).toEqual([['B', 'drop these three', '']]);
    expect(diff.wordsRemoved).toBe(3);
  });

  it('ignores emphasis changes and counts a changed link target as a change of no words', () => {
    expect(diffWords('Buy the *new* widget', 'Buy the **new** widget').hunks).toEqual([]);
    const diff = diffWords('[Download](https://a.test/v1.zip) now', '[Download](https://a.test/v2.zip) now');
    expect(diff.hunks.map((h) => [h.removed, h.added, h.wordsRemoved, h.wordsAdded])).toEqual([
      ['<https://a.test/v1.zip>', '<https://a.test/v2.zip>', 0, 0],
    ]);
  });

  it('does not report a changed relative time or view counter, only the real edit beside it', () => {
    const diff = diffWords(
      'Updated 5 minutes ago · 1,204 views · Price: $19',
      'Updated 7 minutes ago · 1,388 views · Price: $21',
    );
    expect(diff.hunks.map((h) => [h.removed, h.added])).toEqual([['$19', '$21']]);
  });

  it('diffs a 50,000-word page with three edits into exactly those three hunks', () => {
    // A vocabulary large enough that an edit has one minimal reading (with a dozen words,
    // deleting "a b a" and "b a b" can be the same edit).
    let seed = 12345;
    const nextWord = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return `w${(seed >>> 8) % 3000}`;
    };
    const sections = Array.from({ length: 100 }, (_, s) => ({
      title: `Section ${s}`,
      words: Array.from({ length: 500 }, nextWord),
    }));
    const render = () => sections.map((s) => `## ${s.title}\n\n${s.words.join(' ')}`).join('\n\n');
    const before = render();
    sections[10]!.words.splice(200, 1, 'lighthouse');
    sections[50]!.words.splice(10, 0, 'a', 'new', 'fishing', 'boat');
    const deleted = sections[90]!.words.splice(300, 3);
    const after = render();

    const diff = diffWords(before, after);
    expect(tokenizeMarkdown(before).tokens.filter((t) => t.word)).toHaveLength(50_200);
    expect(diff.hunks.map((h) => [h.section, h.wordsRemoved, h.wordsAdded])).toEqual([
      ['Section 10', 1, 1],
      ['Section 50', 0, 4],
      ['Section 90', 3, 0],
    ]);
    expect(diff.hunks[0]!.added).toBe('lighthouse');
    expect(diff.hunks[1]!.added).toBe('a new fishing boat');
    expect(diff.hunks[2]!.removed).toBe(deleted.join(' '));
    expect([diff.wordsAdded, diff.wordsRemoved]).toEqual([5, 4]);
  });
});
