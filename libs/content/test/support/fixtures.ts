import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

export const FIXTURE_URL = 'https://site.example/section/page';

export const FIXTURES = [
  'news-article',
  'blog-post',
  'forum-thread',
  'product-page',
  'listing-page',
  'docs-page',
  'base64-images',
  'head-metadata',
] as const;

export const fixtureHtml = (name: string): string => fs.readFileSync(path.join(DIR, `${name}.html`), 'utf8');

/** The hand-checked markdown of a fixture, without the file's final newline. */
export const expectedMarkdown = (name: string): string =>
  fs.readFileSync(path.join(DIR, `${name}.expected.txt`), 'utf8').replace(/\n$/, '');
