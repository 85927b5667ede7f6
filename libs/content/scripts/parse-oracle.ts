// Compares the body text of parseDocument's tree with the HTML standard's (parse5, as a
// browser with scripting off would build it) over the WCXB dev pages, and lists the pages where
// ours loses text: what the parse step must fix for every consumer of the tree.
//
//   node --import tsx libs/content/scripts/parse-oracle.ts [--raw] [--ids 0252,0452] [--min 0.98]
// --raw compares linkedom's parseHTML without our normalisation (what the fix is measured against).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { parseHTML } from 'linkedom';
import { parse } from 'parse5';
import { parseDocument } from '../src/index.js';

const ROOT = process.env.WCXB_ROOT ?? '/work/shared/extraction/wcxb';
const dir = path.join(ROOT, 'dev', 'html');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
};
const raw = process.argv.includes('--raw');
const min = Number(arg('min') ?? 0.98);
const ids = arg('ids')?.split(',');

/** Elements whose text no reader sees (the content pipeline drops them too). */
const SILENT = new Set(['script', 'style', 'template', 'iframe', 'noembed', 'noframes', 'title', 'textarea', 'xmp']);

interface P5Node {
  nodeName: string;
  tagName?: string;
  value?: string;
  childNodes?: P5Node[];
  content?: P5Node;
}

function p5Body(html: string): string {
  const doc = parse(html, { scriptingEnabled: false }) as unknown as P5Node;
  const htmlEl = doc.childNodes?.find((n) => n.tagName === 'html');
  const body = htmlEl?.childNodes?.find((n) => n.tagName === 'body');
  const out: string[] = [];
  const walk = (n: P5Node): void => {
    if (n.nodeName === '#text') out.push(n.value ?? '');
    if (n.tagName && SILENT.has(n.tagName)) return;
    for (const c of n.childNodes ?? []) walk(c);
  };
  if (body) walk(body);
  return out.join(' ');
}

function domBody(doc: Document): string {
  const out: string[] = [];
  const walk = (n: Node): void => {
    if (n.nodeType === 3 || n.nodeType === 4) out.push((n as Text).data);
    if (n.nodeType === 1 && SILENT.has((n as Element).localName)) return;
    for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
  };
  // Like a consumer: whatever doc.body is (linkedom makes an empty one when the shape is not its own).
  if (doc.body) walk(doc.body);
  return out.join(' ');
}

const WORD = /[\p{L}\p{N}_]+/gu;
const bag = (s: string): Map<string, number> => {
  const m = new Map<string, number>();
  for (const w of s.toLowerCase().match(WORD) ?? []) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
};
/** Share of the oracle's words that ours has (bag of words, as the benchmark counts). */
function recall(oracle: string, ours: string): { recall: number; words: number } {
  const a = bag(oracle);
  const b = bag(ours);
  let total = 0;
  let hit = 0;
  for (const [w, n] of a) {
    total += n;
    hit += Math.min(n, b.get(w) ?? 0);
  }
  return { recall: total ? hit / total : 1, words: total };
}

let files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.html.gz'))
  .sort();
if (ids) files = files.filter((f) => ids.includes(f.slice(0, -8)));
let lossy = 0;
for (const f of files) {
  const html = zlib.gunzipSync(fs.readFileSync(path.join(dir, f))).toString('utf8');
  const doc = raw ? (parseHTML(html).document as unknown as Document) : parseDocument(html);
  const r = recall(p5Body(html), domBody(doc));
  if (r.recall < min && r.words > 0) {
    lossy++;
    console.log(`${f.slice(0, -8)}\trecall ${r.recall.toFixed(3)}\tof ${r.words} words`);
  }
}
console.log(
  `${lossy} of ${files.length} pages lose text against the HTML standard's tree (${raw ? 'raw linkedom' : 'parseDocument'})`,
);
