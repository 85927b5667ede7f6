import { describe, expect, it } from '@jest/globals';
import { feedLinks } from '../src/discovery/feed-links.js';

describe('feedLinks', () => {
  it('takes RSS and Atom alternates in page order, resolved, once each', () => {
    const html = `<html><head>
      <link rel="stylesheet" href="/s.css">
      <link rel="alternate" type="application/rss+xml" href="/feed.xml?a=1&amp;b=2">
      <LINK HREF='https://s.example/atom' TYPE='application/atom+xml; charset=utf-8' REL='Alternate'>
      <link rel="alternate" type="text/html" hreflang="de" href="/de/">
      <link rel="alternate" type="application/rss+xml" href="/feed.xml?a=1&b=2">
      <link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">
    </head></html>`;
    expect(feedLinks(html, 'https://s.example/')).toEqual([
      'https://s.example/feed.xml?a=1&b=2',
      'https://s.example/atom',
    ]);
  });

  it('takes at most five and skips absurdly long tags', () => {
    const links = Array.from(
      { length: 8 },
      (_, i) => `<link rel="alternate" type="application/rss+xml" href="/f${i}">`,
    );
    expect(feedLinks(links.join(''), 'https://s.example/')).toHaveLength(5);
    expect(
      feedLinks(
        `<link ${'a'.repeat(100_000)} rel="alternate" type="application/rss+xml" href="/x">`,
        'https://s.example/',
      ),
    ).toEqual([]);
  });
});
