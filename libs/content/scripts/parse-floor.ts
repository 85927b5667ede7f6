// What a page's tree costs against the tokeniser under it, on the content bench's WCXB sample
// (ADR 15, proposed): linkedom's parse (the bench's baseline, the fleet's tree), htmlparser2's
// events with nothing listening (the tokeniser and the tree rules linkedom builds on: the floor
// of any reading of the page), and the same events recording what the measuring walk reads first
// (each element's parent, its text and link text) into typed arrays.
//   node --import tsx libs/content/scripts/parse-floor.ts
// Best of several interleaved rounds, wall ms a page, as `pnpm bench content` measures.
import { Parser } from 'htmlparser2';
import { parseHTML } from 'linkedom';
import { samplePages } from './sample-pages.js';

const SAMPLE = Number(process.env.BENCH_CONTENT_PAGES ?? 100);
const ROUNDS = Number(process.env.BENCH_CONTENT_ROUNDS ?? 5);

const pages = samplePages(SAMPLE).map((p) => p.html);

// The options linkedom's `parseFromString` gives htmlparser2 for text/html.
const OPTIONS = { decodeEntities: true, lowerCaseAttributeNames: false, xmlMode: false };

const events = (html: string): void => {
  const parser = new Parser({}, OPTIONS);
  parser.end(html);
};

/** Grown as a page needs: elements in document order. */
let parent = new Int32Array(1 << 16);
let text = new Float64Array(1 << 16);
let linkText = new Float64Array(1 << 16);

const arena = (html: string): number => {
  let n = 0;
  const open: number[] = [];
  let inLink = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (n === parent.length) {
          const grow = <T extends Int32Array | Float64Array>(a: T): T => {
            const b = new (a.constructor as new (n: number) => T)(a.length * 2);
            b.set(a);
            return b;
          };
          parent = grow(parent);
          text = grow(text);
          linkText = grow(linkText);
        }
        parent[n] = open.length ? open[open.length - 1]! : -1;
        text[n] = 0;
        linkText[n] = 0;
        open.push(n++);
        if (name === 'a') inLink++;
      },
      onclosetag(name) {
        const i = open.pop();
        if (name === 'a') inLink = Math.max(0, inLink - 1);
        if (i !== undefined && open.length) {
          const p = open[open.length - 1]!;
          text[p]! += text[i]!;
          linkText[p]! += linkText[i]!;
        }
      },
      ontext(data) {
        if (!open.length) return;
        const i = open[open.length - 1]!;
        text[i]! += data.length;
        if (inLink) linkText[i]! += data.length;
      },
    },
    OPTIONS,
  );
  parser.end(html);
  return n;
};

const works: [string, (html: string) => unknown][] = [
  ['linkedom parseHTML (the bench baseline)', (html) => parseHTML(html)],
  ['htmlparser2 events, nothing listening', events],
  ['htmlparser2 events into typed arrays', arena],
];
for (const [, work] of works) for (const html of pages.slice(0, 10)) work(html);
const best = works.map(() => Infinity);
for (let r = 0; r < ROUNDS; r++) {
  works.forEach(([, work], i) => {
    const t0 = process.hrtime.bigint();
    for (const html of pages) work(html);
    best[i] = Math.min(best[i]!, Number(process.hrtime.bigint() - t0) / 1e6 / pages.length);
  });
}
const kb = pages.reduce((s, p) => s + p.length, 0) / pages.length / 1024;
console.log(`${pages.length} pages (mean ${kb.toFixed(0)} KB), best of ${ROUNDS} interleaved rounds`);
works.forEach(([name], i) =>
  console.log(
    `${name.padEnd(42)} ${best[i]!.toFixed(2).padStart(6)} ms/page  ${(best[i]! / best[0]!).toFixed(2)}× the baseline`,
  ),
);
