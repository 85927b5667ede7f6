import { describe, expect, it } from '@jest/globals';
import { extractContent, parseDocument } from '../src/index.js';
import { fixtureHtml } from './support/fixtures.js';

describe('links', () => {
  it('lists http(s) links of the whole page, absolute, without fragments or duplicates, in order', () => {
    const r = extractContent(parseDocument(fixtureHtml('head-metadata')), {
      url: 'https://trails.example.at/wandern/salzkammergut',
      formats: ['links'],
      onlyMainContent: true,
    });
    expect(r.links).toEqual([
      'https://trails.example.at/',
      'https://trails.example.at/wandern',
      'https://trails.example.at/en/',
      'https://trails.example.at/wandern/tipps',
      'https://partner.example.com/touren',
    ]);
  });

  it('includes navigation and footer links even with onlyMainContent', () => {
    const r = extractContent(parseDocument(fixtureHtml('news-article')), {
      url: 'https://news.example/2025/03/tunnel',
      formats: ['links'],
      onlyMainContent: true,
    });
    expect(r.links).toContain('https://news.example/sport');
    expect(r.links).toContain('https://news.example/privacy');
    expect(r.links).toContain('https://news.example/2025/03/tunnel'); // "#top" is the page itself
  });
});
