import { describe, expect, it } from '@jest/globals';
import { extractContent, parseDocument } from '../src/index.js';
import type { FieldSpec } from '../src/index.js';
import { FIXTURE_URL, fixtureHtml } from './support/fixtures.js';

const fieldsOf = (name: string, fields: Record<string, string | FieldSpec>) =>
  extractContent(parseDocument(fixtureHtml(name)), {
    url: FIXTURE_URL,
    formats: ['markdown'],
    onlyMainContent: true,
    fields,
  });

describe('fields', () => {
  it('reads text by CSS selector, trimmed and with whitespace collapsed', () => {
    const r = fieldsOf('product-page', { title: 'h1', price: '.price', missing: '.nope' });
    expect(r.fields).toEqual({ title: 'Trailhead 28 L Daypack', price: '$129.00', missing: null });
    expect(r.fieldErrors).toBeUndefined();
  });

  it('reads attributes, absolute for href and src, and every match with all', () => {
    const r = fieldsOf('product-page', {
      image: { selector: '.product-gallery img', attr: 'src' },
      alt: { selector: '.product-gallery img', attr: 'alt' },
      related: { selector: '.related-products a', attr: 'href', all: true },
      features: { selector: '.product-description li', all: true },
      none: { selector: '.nope', all: true },
    });
    expect(r.fields).toEqual({
      image: 'https://cdn.example.com/p/trailhead-28.jpg',
      alt: 'Trailhead 28 L Daypack in slate blue',
      related: ['https://site.example/p/summit-40', 'https://site.example/p/hipster-5'],
      features: [
        '28 litre main compartment with a clamshell zip',
        'Hydration sleeve for a 3 litre reservoir',
        'Recycled 210D ripstop nylon, PFC-free coating',
        'Weight: 1.1 kg',
      ],
      none: [],
    });
  });

  it('reads fields by XPath, including attributes and positional paths', () => {
    const r = fieldsOf('forum-thread', {
      title: '//h1',
      authors: { selector: '//div[@class="post-author"]/a', all: true },
      secondPost: '(//div[@class="post-body"])[2]/p',
      firstAuthorLink: '//div[@id="post-1"]//a/@href',
      pageTitle: '/html/head/title',
    });
    expect(r.fields).toEqual({
      title: 'Sourdough starter smells like acetone',
      authors: ['flourpower', 'crumbshot', 'ryelover'],
      secondPost:
        'It is hungry, not dead. The acetone smell means the yeast and bacteria have run out of food. Feed it twice a day for a few days and keep it somewhere a little warmer.',
      firstAuthorLink: 'https://site.example/members/flourpower',
      pageTitle: 'Sourdough starter smells like acetone - Home Baking Forum',
    });
  });

  it('reads fields from the page as fetched, before main-content extraction drops anything', () => {
    const r = fieldsOf('news-article', { footer: 'footer p', nav: { selector: '//nav//a', all: true } });
    expect(r.fields?.footer).toBe('© 2025 Coastline Gazette. All rights reserved.');
    expect(r.fields?.nav).toHaveLength(5);
  });

  it('explains invalid selectors in fieldErrors and answers null for them', () => {
    const r = fieldsOf('news-article', { badCss: 'p[', badXpath: '//p[', ok: 'h1' });
    expect(r.fields).toEqual({ badCss: null, badXpath: null, ok: 'Harbour tunnel opens after six years of work' });
    expect(r.fieldErrors?.badCss).toMatch(/^invalid CSS selector: /);
    expect(r.fieldErrors?.badXpath).toMatch(/^invalid XPath selector: XPST0003/);
  });
});
