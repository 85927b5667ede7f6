import { describe, expect, it } from '@jest/globals';
import { CrawlScope } from '../src/frontier/scope.js';

const scope = (over: Partial<ConstructorParameters<typeof CrawlScope>[1]> = {}) =>
  new CrawlScope('https://www.site.test/', {
    include_paths: [],
    exclude_paths: [],
    allow_subdomains: false,
    max_depth: null,
    ...over,
  });
const check = (s: CrawlScope, url: string, depth = 1) => s.check(new URL(url), depth);

describe('CrawlScope', () => {
  it('keeps to the seed host (www. or not), subdomains only when allowed', () => {
    expect(check(scope(), 'https://site.test/a')).toBe('in');
    expect(check(scope(), 'https://blog.site.test/a')).toBe('other_host');
    expect(check(scope({ allow_subdomains: true }), 'https://blog.site.test/a')).toBe('in');
    expect(check(scope({ allow_subdomains: true }), 'https://notsite.test/a')).toBe('other_host');
    expect(check(scope({ allow_subdomains: true }), 'https://evilsite.test/a')).toBe('other_host');
  });

  it('matches include and exclude globs on the path; exclusions win', () => {
    const s = scope({ include_paths: ['/blog/**'], exclude_paths: ['/blog/drafts/**', '*.pdf'] });
    expect(check(s, 'https://site.test/blog')).toBe('in');
    expect(check(s, 'https://site.test/blog/2024/post')).toBe('in');
    expect(check(s, 'https://site.test/blog/drafts/x')).toBe('excluded');
    expect(check(s, 'https://site.test/blog/file.pdf')).toBe('excluded');
    expect(check(s, 'https://site.test/shop/item')).toBe('not_included');
  });

  it('counts depth against max_depth', () => {
    expect(check(scope({ max_depth: 2 }), 'https://site.test/a', 2)).toBe('in');
    expect(check(scope({ max_depth: 2 }), 'https://site.test/a', 3)).toBe('too_deep');
    expect(check(scope({ max_depth: 0 }), 'https://site.test/a', 1)).toBe('too_deep');
  });
});
