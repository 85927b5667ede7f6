import { describe, expect, it } from '@jest/globals';
import { scrapeRequestSchema } from '@tidemark/contracts';
import { storable } from '@tidemark/db/storable';
import { decodeBodies } from '@tidemark/page-store';
import type { Fetched } from '../src/ladder/http-rung.js';
import { resolveOptions } from '../src/ladder/options.js';
import { keptBodies } from '../src/reading/kept-bodies.js';
import { readPage } from '../src/reading/read-page.js';

// A page's bodies are stored as its reading thread encoded them (PageReading.stored): they must be
// what the row's write would have made from the bodies the ladder answers, hostile text included.
const URL = 'http://site.test/notes';
const html = `<!doctype html><html><head><title>Notes\u0000</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<main><h1>Field notes</h1><p>A NUL here:\u0000 and a lone surrogate: \ud800 in the text.</p>
<p>Read <a href="/more?q=1">more notes</a> or <a href="https://other.test/x">elsewhere</a>.</p>
${'<p>Filler prose about tides and the moon, long enough to be the main content of the page.</p>'.repeat(20)}
</main><footer>© 2026</footer></body></html>`;
const fetched: Fetched = { finalUrl: URL, status: 200, headers: {}, html, redirects: [], contentType: 'text/html' };

describe('stored bodies made where the page is read', () => {
  it.each([['markdown'], ['markdown,links,rawHtml'], ['text,cleanHtml'], ['links']])(
    'encodes exactly the kept bodies, made storable (%s)',
    (formats) => {
      const opts = resolveOptions(scrapeRequestSchema.parse({ url: URL, formats }));
      const reading = readPage(fetched, 'http', opts);
      const kept = keptBodies(opts.formats, reading.content, html);
      expect(Object.keys(kept).sort()).toEqual(
        formats
          .split(',')
          .map((f) => (f === 'rawHtml' ? 'html' : f))
          .sort(),
      );
      expect(decodeBodies(reading.stored)).toEqual(storable(kept));
      const stored = JSON.stringify(decodeBodies(reading.stored));
      expect(stored).not.toContain('\\u0000');
      expect(stored).not.toMatch(/\\ud800/i);
    },
  );
});
