// Guard for speed work on the reading: hashes everything a page's reading gives (the verdict's
// features, and every format with and without main content) for every page of the WCXB
// development split and 300 pages of the crawl bench's site. A rewrite meant to change no output
// is checked by hashing before and after and comparing:
//
//   node --import tsx test/extraction/output-hashes.ts /tmp/before.json
//   (make the change)
//   node --import tsx test/extraction/output-hashes.ts /tmp/after.json --compare /tmp/before.json
//
// ~50 s. Exits 1 and names the pages whose outputs differ.
import crypto from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { extractContent, parseDocument } from '../../libs/content/src/index.js';
import { benchSite } from '../../libs/testkit/src/bench-site.js';
import { pageFeatures } from '../../libs/verdict/src/index.js';
import { wcxbDevPages } from './wcxb-pages.js';

const [out, flag, base] = process.argv.slice(2);
if (!out || (flag !== undefined && (flag !== '--compare' || !base))) {
  process.stderr.write('usage: output-hashes.ts OUT.json [--compare BASE.json]\n');
  process.exit(2);
}

const site = benchSite(2000)['*'] as (req: { url: string; headers: Record<string, string> }) => { body: string };
const pages: [string, () => string][] = [
  ...wcxbDevPages().map((p): [string, () => string] => [
    p.id,
    () => zlib.gunzipSync(fs.readFileSync(p.file)).toString('utf8'),
  ]),
  ...Array.from({ length: 300 }, (_, i): [string, () => string] => [
    `bench-${i}`,
    () => site({ url: `/news/${i}`, headers: {} }).body,
  ]),
];

const hashes: Record<string, string> = {};
for (const [id, load] of pages) {
  const html = load();
  const url = `https://hashes.example/${id}`;
  for (const onlyMainContent of [true, false]) {
    const doc = parseDocument(html);
    const features = pageFeatures(doc, html);
    const content = extractContent(
      doc,
      { url, formats: ['markdown', 'links', 'text', 'cleanHtml'], onlyMainContent },
      html,
    );
    hashes[`${id}:${onlyMainContent ? 'main' : 'all'}`] = crypto
      .createHash('sha1')
      .update(JSON.stringify([features, content]))
      .digest('hex');
  }
}
fs.writeFileSync(out, JSON.stringify(hashes, null, 1));
process.stdout.write(`${Object.keys(hashes).length} outputs hashed into ${out}\n`);

if (base) {
  const before = JSON.parse(fs.readFileSync(base, 'utf8')) as Record<string, string>;
  const changed = Object.keys({ ...before, ...hashes }).filter((k) => before[k] !== hashes[k]);
  process.stdout.write(
    changed.length ? `${changed.length} outputs differ: ${changed.slice(0, 30).join(' ')}\n` : 'no output differs\n',
  );
  process.exitCode = changed.length ? 1 : 0;
}
