import { describe, expect, it } from '@jest/globals';
import { parseHTML } from 'linkedom';
import {
  BANNER,
  BOILERPLATE,
  COMMENTS,
  CONSENT,
  CONTENT,
  DESCRIPTION,
  FURNITURE_ALWAYS,
  FURNITURE_EXACT,
  LABELS,
  NAME_BANNER,
  NAME_BOILERPLATE,
  NAME_COMMENTS,
  NAME_CONSENT,
  NAME_CONTENT,
  NAME_DESCRIPTION,
  NAME_FURNITURE_ALWAYS,
  NAME_LABEL,
  NAME_OTHER_PAGES,
  NAME_PURCHASE,
  NAME_REVIEWS,
  NameMatcher,
  OTHER_PAGES,
  PURCHASE,
  REVIEWS,
} from '../src/patterns.js';

const VOCABULARIES: [number, RegExp[]][] = [
  [NAME_CONSENT, [CONSENT]],
  [NAME_BANNER, [BANNER]],
  [NAME_BOILERPLATE, [BOILERPLATE]],
  [NAME_COMMENTS, [COMMENTS]],
  [NAME_CONTENT, [CONTENT]],
  [NAME_LABEL, [LABELS]],
  [NAME_FURNITURE_ALWAYS, [FURNITURE_ALWAYS, FURNITURE_EXACT]],
  [NAME_REVIEWS, [REVIEWS]],
  [NAME_DESCRIPTION, [DESCRIPTION]],
  [NAME_PURCHASE, [PURCHASE]],
  [NAME_OTHER_PAGES, [OTHER_PAGES]],
];
const ALL = VOCABULARIES.reduce((all, [bit]) => all | bit, 0);

/** Names that match each vocabulary, none, or several, in the shapes pages write them. */
const NAMES = [
  'site-nav',
  'canvas',
  ' sidebar ',
  'Sidebar',
  'nav_main menu',
  'cookie-banner',
  'newsletter-popup',
  'entry-content',
  'sr-only',
  'footer',
  'customer-reviews',
  'product-description',
  'price-box add-to-cart',
  'related-posts',
  'col-md-8 offset-1',
  'post-15859 product type-product instock',
  'navigation-wrapper content',
  'menu-item menu-item-type-post_type',
  'c-search-grid',
  'x',
  'breadcrumbs',
  'hidden-print',
  'comments-area',
];

describe('NameMatcher', () => {
  it('answers for every vocabulary what its own pattern answers, whichever is asked first', () => {
    const { document } = parseHTML('<html><body></body></html>');
    for (const first of [NAME_CONSENT | NAME_BANNER, ALL]) {
      const names = new NameMatcher();
      for (const name of NAMES) {
        const el = document.createElement('div');
        el.setAttribute('class', name);
        const expected = VOCABULARIES.reduce(
          (bits, [bit, patterns]) => (patterns.some((p) => p.test(name)) ? bits | bit : bits),
          0,
        );
        expect([name, names.of(el as unknown as Element, first)]).toEqual([name, expected & first]);
        expect([name, names.of(el as unknown as Element, ALL)]).toEqual([name, expected]);
      }
    }
  });
});

describe('vocabularies', () => {
  it('read a name of several words joined by a hyphen, an underscore or nothing alike', () => {
    for (const name of ['comment-list', 'comment_list', 'commentlist'])
      expect([name, COMMENTS.test(name)]).toEqual([name, true]);
    for (const name of ['share-buttons', 'share_buttons', 'site_footer', 'author_bio', 'post_meta']) {
      expect([name, BOILERPLATE.test(name)]).toEqual([name, true]);
    }
    for (const name of ['visually_hidden', 'screen_reader_text'])
      expect([name, LABELS.test(name)]).toEqual([name, true]);
    // Blocks of other threads, posts or articles "similar" to this one (XenForo's
    // "block--similarContents", vBulletin's "similar_threads"); not a state ("is-similar").
    for (const name of ['block--similarContents', 'similar_threads', 'similar-articles', 'similar-reads'])
      expect([name, OTHER_PAGES.test(name)]).toEqual([name, true]);
    for (const name of ['is-similar', 'dissimilar-list']) expect([name, OTHER_PAGES.test(name)]).toEqual([name, false]);
    // Still whole tokens: no word found inside another.
    for (const name of ['commentary-list', 'canvas', 'sharepoint_buttons']) {
      expect([name, COMMENTS.test(name) || BOILERPLATE.test(name)]).toEqual([name, false]);
    }
  });
});
