// Output check for changes that must not change what the pipeline produces: dumps markdown, text
// and links of every WCXB dev page (main content only, and whole page) to one JSON file per page,
// then compares two dumps.
//   node --import tsx libs/content/scripts/dump-outputs.ts dump /tmp/before
//   node --import tsx libs/content/scripts/dump-outputs.ts dump /tmp/after
//   node --import tsx libs/content/scripts/dump-outputs.ts compare /tmp/before /tmp/after
// Markdown is also produced on its own (formats: ['markdown']), to catch work that depends on
// which other formats were asked for.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { extractContent } from '../src/extract-content.js';
import { parseDocument } from '../src/parse-document.js';

const PAGES_DIR = process.env.WCXB_HTML_DIR ?? '/work/shared/extraction/wcxb/dev/html';

function dump(outDir: string): void {
  fs.mkdirSync(outDir, { recursive: true });
  const files = fs
    .readdirSync(PAGES_DIR)
    .filter((f) => f.endsWith('.html.gz'))
    .sort();
  for (const f of files) {
    const id = f.replace(/\.html\.gz$/, '');
    const html = zlib.gunzipSync(fs.readFileSync(path.join(PAGES_DIR, f))).toString('utf8');
    const url = `https://bench.example/${id}`;
    const out: Record<string, unknown> = {};
    for (const onlyMainContent of [true, false]) {
      const all = extractContent(parseDocument(html), {
        url,
        formats: ['markdown', 'text', 'links'],
        onlyMainContent,
      });
      const mdOnly = extractContent(parseDocument(html), { url, formats: ['markdown'], onlyMainContent });
      const key = onlyMainContent ? 'main' : 'page';
      out[key] = {
        markdown: all.markdown,
        text: all.text,
        links: all.links,
        words: all.words,
        language: all.language,
        head: all.head,
      };
      out[`${key}.markdownOnly`] = mdOnly.markdown;
    }
    fs.writeFileSync(path.join(outDir, `${id}.json`), JSON.stringify(out, null, 1));
  }
  console.log(`${files.length} pages dumped to ${outDir}`);
}

function compare(a: string, b: string): void {
  const files = fs.readdirSync(a).filter((f) => f.endsWith('.json'));
  let differ = 0;
  for (const f of files) {
    const left = JSON.parse(fs.readFileSync(path.join(a, f), 'utf8')) as Record<string, Record<string, unknown>>;
    const rightPath = path.join(b, f);
    if (!fs.existsSync(rightPath)) {
      console.log(`${f}: missing in ${b}`);
      differ++;
      continue;
    }
    const right = JSON.parse(fs.readFileSync(rightPath, 'utf8')) as Record<string, Record<string, unknown>>;
    const diffs: string[] = [];
    for (const key of Object.keys(left)) {
      const l = left[key];
      const r = right[key];
      if (typeof l !== 'object' || l === null) {
        if (JSON.stringify(l) !== JSON.stringify(r)) diffs.push(key);
        continue;
      }
      for (const field of Object.keys(l)) {
        if (JSON.stringify(l[field]) !== JSON.stringify(r?.[field])) diffs.push(`${key}.${field}`);
      }
    }
    if (diffs.length) {
      differ++;
      console.log(`${f}: ${diffs.join(', ')}`);
    }
  }
  console.log(`${files.length} pages compared, ${differ} differ`);
  if (differ) process.exitCode = 1;
}

const [cmd, x, y] = process.argv.slice(2);
if (cmd === 'dump' && x) dump(x);
else if (cmd === 'compare' && x && y) compare(x, y);
else {
  console.error('usage: dump-outputs.ts dump <dir> | compare <dir-a> <dir-b>');
  process.exitCode = 2;
}
