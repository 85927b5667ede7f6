import { describe, expect, it } from '@jest/globals';
import { groupHeading, LlmsFullWriter, LlmsIndexWriter, type LlmsPage } from '../src/exports/llms.js';

const page = (url: string, title: string | null, description: string | null, host = '', segment = ''): LlmsPage => ({
  url,
  title,
  description,
  host,
  segment,
});

describe('llms.txt', () => {
  it('puts the site title and home description on top, root pages unheaded, then a section per first segment', () => {
    const w = new LlmsIndexWriter({ title: 'Harbour Guide', description: 'Moorings, tides and\nprices.' });
    const text = [
      w.header(),
      w.page(page('https://h.test/', 'Harbour Guide — Home', 'Moorings, tides and prices.')),
      w.page(page('https://h.test/about', 'About us', null, '', 'about')),
      w.page(page('https://h.test/guides/', 'Guides', 'All our guides', '', 'guides')),
      w.page(page('https://h.test/guides/tides', 'Tides', 'When the water comes', '', 'guides')),
      w.page(page('https://h.test/r%C3%A9gates/2026', null, null, '', 'r%C3%A9gates')),
      w.page(page('https://blog.h.test/', 'Blog', null, 'blog.h.test', '')),
      w.page(page('https://blog.h.test/posts/1', 'First post', 'Hello', 'blog.h.test', 'posts')),
    ].join('');
    expect(text).toBe(
      [
        '# Harbour Guide',
        '',
        '> Moorings, tides and prices.',
        '',
        '- [Harbour Guide — Home](https://h.test/): Moorings, tides and prices.',
        '',
        '## about',
        '',
        '- [About us](https://h.test/about)',
        '',
        '## guides',
        '',
        '- [Guides](https://h.test/guides/): All our guides',
        '- [Tides](https://h.test/guides/tides): When the water comes',
        '',
        '## régates',
        '',
        '- [/r%C3%A9gates/2026](https://h.test/r%C3%A9gates/2026)',
        '',
        '## blog.h.test',
        '',
        '- [Blog](https://blog.h.test/)',
        '',
        '## blog.h.test/posts',
        '',
        '- [First post](https://blog.h.test/posts/1): Hello',
        '',
      ].join('\n'),
    );
  });

  it('leaves the description out when the home page has none, and starts a first section at once', () => {
    const w = new LlmsIndexWriter({ title: 'Site', description: null });
    expect(w.header() + w.page(page('https://s.test/docs/a', 'A', null, '', 'docs'))).toBe(
      '# Site\n\n## docs\n\n- [A](https://s.test/docs/a)\n',
    );
  });

  it('escapes what would end a link early', () => {
    const w = new LlmsIndexWriter({ title: 'S', description: null });
    w.header();
    expect(w.page(page('https://s.test/a_(b) c', 'Tips [beta] \\ more', null))).toBe(
      '\n- [Tips \\[beta\\] \\\\ more](https://s.test/a_%28b%29%20c)\n',
    );
  });

  it('names groups: root pages none, segments decoded, other hosts by host', () => {
    expect(groupHeading({ host: '', segment: '' })).toBeNull();
    expect(groupHeading({ host: '', segment: 'caf%C3%A9' })).toBe('café');
    expect(groupHeading({ host: '', segment: '100%' })).toBe('100%');
    expect(groupHeading({ host: 'docs.s.test', segment: '' })).toBe('docs.s.test');
    expect(groupHeading({ host: 'docs.s.test', segment: 'v2' })).toBe('docs.s.test/v2');
  });
});

describe('llms-full.txt', () => {
  it('puts each page under its title and a Source: line, a blank line between pages', () => {
    const w = new LlmsFullWriter();
    const text =
      w.page({ url: 'https://h.test/', title: 'Home' }, '# Home\n\nWelcome aboard.\n\n') +
      w.page({ url: 'https://h.test/guides/tides?x=1', title: null }, 'Twice a day.');
    expect(text).toBe(
      '# Home\n\nSource: https://h.test/\n\n# Home\n\nWelcome aboard.\n\n# /guides/tides?x=1\n\nSource: https://h.test/guides/tides?x=1\n\nTwice a day.\n',
    );
  });
});
