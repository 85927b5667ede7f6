// Renders the main-content markdown of WCXB dev pages with a GFM renderer (micromark) and
// compares its text with the extracted text: the pages where they differ, and where.
//   node --import tsx libs/content/scripts/markdown-roundtrip.ts [--every 5] [--ids 0003,0005] [--whole-page]
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { extractContent, parseDocument } from '../src/index.js';
import { toText } from '../src/text.js';

const ROOT = process.env.WCXB_ROOT ?? '/work/shared/extraction/wcxb';
const dir = path.join(ROOT, 'dev', 'html');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
};
const every = Number(arg('every') ?? 1);
const ids = arg('ids')?.split(',');
/** --whole-page: the markdown and text of the whole page instead of its main content. */
const wholePage = process.argv.includes('--whole-page');
const words = (s: string): string[] => s.replace(/\s+/g, ' ').trim().split(' ');

let files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.html.gz'))
  .sort()
  .filter((_, i) => i % every === 0);
if (ids) files = files.filter((f) => ids.includes(f.slice(0, -8)));
let differ = 0;
for (const f of files) {
  const html = zlib.gunzipSync(fs.readFileSync(path.join(dir, f))).toString('utf8');
  const r = extractContent(parseDocument(html), {
    url: 'https://example.invalid/',
    formats: ['markdown', 'text'],
    onlyMainContent: !wholePage,
  });
  const rendered = toText([
    parseDocument(
      `<html><body>${micromark(r.markdown ?? '', { extensions: [gfm()], htmlExtensions: [gfmHtml()] })}</body></html>`,
    ).body,
  ]);
  const a = words(r.text ?? '');
  const b = words(rendered);
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  if (i < a.length || a.length !== b.length) {
    differ++;
    console.log(`${f.slice(0, -8)}\ttext: ${a.slice(i, i + 8).join(' ')}\n\trendered: ${b.slice(i, i + 8).join(' ')}`);
  }
}
console.log(`${differ} of ${files.length} pages render to another text`);
