import { describe, expect, it } from '@jest/globals';
import { extractContent, parseDocument } from '../src/index.js';
import { FIXTURE_URL, fixtureHtml } from './support/fixtures.js';

describe('head data', () => {
  const head = () =>
    extractContent(parseDocument(fixtureHtml('head-metadata')), {
      url: 'https://trails.example.at/wandern/salzkammergut?ref=nav',
      formats: [],
      onlyMainContent: true,
    }).head;

  it('reads title, description, robots, lang and an absolute canonical', () => {
    expect(head()).toMatchObject({
      title: 'Wanderwege im Salzkammergut',
      description: 'Die schönsten Wanderwege rund um den Wolfgangsee.',
      robots: 'index, follow',
      lang: 'de-AT',
      canonical: 'https://trails.example.at/wandern/salzkammergut',
    });
  });

  it('collects every og: and twitter: meta', () => {
    expect(head().openGraph).toEqual({
      'og:title': 'Wanderwege im Salzkammergut',
      'og:type': 'article',
      'og:image': 'https://trails.example.at/img/wolfgangsee.jpg',
    });
    expect(head().twitter).toEqual({ 'twitter:card': 'summary_large_image', 'twitter:site': '@trailsat' });
  });

  it('parses every valid JSON-LD block and skips the invalid one', () => {
    expect(head().jsonLd).toEqual([
      {
        '@context': 'https://schema.org',
        '@type': 'Article',
        headline: 'Wanderwege im Salzkammergut',
        inLanguage: 'de',
      },
      [{ '@type': 'BreadcrumbList' }, { '@type': 'Organization', name: 'Trails AT' }],
    ]);
  });

  it('lists hreflang alternates with absolute URLs', () => {
    expect(head().hreflang).toEqual([
      { lang: 'en', href: 'https://trails.example.at/en/hiking/salzkammergut' },
      { lang: 'x-default', href: 'https://trails.example.at/wandern/salzkammergut' },
    ]);
  });

  it('answers nulls and empty collections for a bare page', () => {
    const bare = extractContent(parseDocument('<p>hello</p>'), {
      url: FIXTURE_URL,
      formats: [],
      onlyMainContent: false,
    });
    expect(bare.head).toEqual({
      title: null,
      description: null,
      canonical: null,
      robots: null,
      lang: null,
      openGraph: {},
      twitter: {},
      jsonLd: [],
      hreflang: [],
    });
  });
});
