import { describe, expect, it } from '@jest/globals';
import { collectLinks, extractContent, parseDocument, readHead } from '../src/index.js';
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

  it('finds the same links and head data as querySelectorAll: after </html> too, not inside <template>', () => {
    const html =
      '<html><head><title>T</title></head><body><a href="/one">one</a>' +
      '<template><a href="/in-template">t</a><meta name="description" content="no"></template>' +
      '<map><area href="/area"></map><script type="application/ld+json">{"@type":"Thing"}</script>' +
      '</body></html><footer><a href="/after-html">after</a><meta name="robots" content="noindex"></footer>';
    const url = 'https://site.example/';
    const r = extractContent(parseDocument(html), { url, formats: ['links'], onlyMainContent: true });
    expect(r.links).toEqual(collectLinks(parseDocument(html), url));
    expect(r.links).toEqual([
      'https://site.example/one',
      'https://site.example/area',
      'https://site.example/after-html',
    ]);
    expect(r.head).toEqual(readHead(parseDocument(html), url));
    expect(r.head.robots).toBe('noindex');
    expect(r.head.description).toBeNull();
    expect(r.head.jsonLd).toEqual([{ '@type': 'Thing' }]);
  });
});
