// Iteration aid: which element the main-content finder chose on one WCXB page, and what it
// pruned inside it.   node --import tsx test/extraction/explain-page.ts 0396
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { parseDocument } from '../../libs/content/src/index.js';
import { cleanDocument } from '../../libs/content/src/clean.js';
import { cleaningHints, mainContentOf, pageHints } from '../../libs/content/src/page-hints.js';
import { readHead } from '../../libs/content/src/head.js';
import { scanPage } from '../../libs/content/src/dom-walk.js';

const ROOT = process.env.WCXB_ROOT ?? '/work/shared/extraction/wcxb';
const id = process.argv[2];
if (!id) throw new Error('usage: explain-page.ts <page id>');

const html = zlib.gunzipSync(fs.readFileSync(path.join(ROOT, 'dev', 'html', `${id}.html.gz`))).toString('utf8');
const doc = parseDocument(html);
// The hints extractContent reads from the page as fetched (its scan, its declared description
// and product names), so that what is explained is what the pipeline chooses.
const url = 'https://example.invalid/';
const scan = scanPage(doc);
const hints = pageHints(scan, readHead(doc, url, undefined, scan));
cleanDocument(doc, {
  ...cleaningHints(hints),
  url,
  removeBanners: true,
  removeBase64Images: true,
  excludeTags: [],
  stripAttributes: false,
});
const body = doc.body ?? doc.documentElement;
const { root, pruned } = mainContentOf(body, hints);

const label = (el: Element): string => {
  const cls = el.getAttribute('class')?.trim().split(/\s+/).slice(0, 3).join('.');
  return `${el.localName}${el.id ? `#${el.id}` : ''}${cls ? `.${cls}` : ''}`;
};
const trail = (el: Element): string => {
  const parts: string[] = [];
  for (let e: Element | null = el; e; e = e.parentElement) parts.unshift(label(e));
  return parts.join(' > ');
};
const chars = (el: Element): number => (el.textContent ?? '').replace(/\s+/g, '').length;

if (root) {
  console.log(`main content: ${trail(root)}`);
  console.log(`  ${chars(root)} of ${chars(body)} characters of the page`);
} else console.log(`no main content: the winner is site furniture (${chars(body)} characters on the page)`);
for (const el of pruned) console.log(`  pruned ${label(el)} (${chars(el)} characters)`);
if (process.argv.includes('--candidates')) {
  const { explainCandidates } = await import('../../libs/content/src/main-content.js');
  const doc2 = parseDocument(html);
  const scan2 = scanPage(doc2);
  cleanDocument(doc2, {
    ...cleaningHints(pageHints(scan2, readHead(doc2, url, undefined, scan2))),
    url,
    removeBanners: true,
    removeBase64Images: true,
    excludeTags: [],
    stripAttributes: false,
  });
  for (const line of explainCandidates(
    doc2.body ?? doc2.documentElement,
    8,
    undefined,
    process.argv[process.argv.indexOf('--candidates') + 1],
    scan2.fieldForms,
  ))
    console.log(line);
}
