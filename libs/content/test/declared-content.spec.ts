import { describe, expect, it } from '@jest/globals';
import { readDeclared } from '../src/declared-content.js';
import { readHead } from '../src/head.js';
import { parseDocument } from '../src/index.js';

const declared = (head: string) =>
  readDeclared(
    readHead(
      parseDocument(`<!DOCTYPE html><html><head>${head}</head><body><p>x</p></body></html>`),
      'https://news.example/a',
    ),
  );

const ld = (o: unknown) => `<script type="application/ld+json">${JSON.stringify(o)}</script>`;

describe('what a page declares about itself', () => {
  it('is one article when its JSON-LD says so outside any list, or its Open Graph type', () => {
    expect(declared(ld({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: 'Floods' })).article).toBe(
      true,
    );
    expect(declared(ld({ '@graph': [{ '@type': 'WebPage' }, { '@type': ['BlogPosting'] }] })).article).toBe(true);
    expect(declared('<meta property="og:type" content="article">').article).toBe(true);
  });

  it('is not one article when it lists articles or declares none', () => {
    const list = {
      '@type': 'ItemList',
      itemListElement: [{ '@type': 'ListItem', item: { '@type': 'Article', headline: 'One' } }],
    };
    expect(declared(ld(list)).article).toBe(false);
    expect(declared(ld({ '@type': 'WebSite', name: 'News' })).article).toBe(false);
    expect(declared('<meta property="og:type" content="website">').article).toBe(false);
  });

  it('tells a product page from an article', () => {
    const d = declared(ld({ '@type': 'Product', name: 'Kallax shelf unit', description: 'x' }));
    expect(d).toMatchObject({ product: true, article: false, names: ['kallaxshelfunit'] });
  });
});
