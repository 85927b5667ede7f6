import { promisify } from 'node:util';
import {
  brotliCompress,
  brotliCompressSync,
  brotliDecompress,
  brotliDecompressSync,
  constants,
  gunzip,
  gunzipSync,
} from 'node:zlib';

// The encoding of `page.bodies`: one JSON object of the page's bodies, compressed. Scrape writes
// it; crawl, diff and export read it straight from the table (a finished run's rows do not
// change, and streaming them through scrape would move every byte twice). This file is the only
// place that knows the format, so a change to it is made once for all four.
//
// Written: the byte BROTLI then a brotli stream at quality 0. Read: that, or one gzip member
// (magic 1f 8b), as rows written before 2026-11-26 hold. On a crawled page's bodies (~22 KB of
// JSON) brotli at quality 0 compresses in 0.06 ms against gzip level 1's 0.15 (2.8× against
// 3.0× smaller), and it runs once per page on the reading threads, which bound a crawl's rate;
// it reads back in 0.08 ms against 0.04 (docs/performance.md, twenty-sixth round).

/** The bodies kept for a page; each is there when the page had it and the config kept it. */
export interface StoredBodies {
  markdown?: string;
  text?: string;
  cleanHtml?: string;
  /** The raw html (format rawHtml; STORE_HTML decides whether it is kept). */
  html?: string;
  links?: string[];
}

const gunzipAsync = promisify(gunzip);
const brotliAsync = promisify(brotliCompress);
const unbrotliAsync = promisify(brotliDecompress);

/** The first byte of a brotli-encoded column (a gzip member opens with 0x1f). */
const BROTLI = 0x01;
const GZIP = [0x1f, 0x8b] as const;

const brotliOptions = (json: string) => ({
  params: { [constants.BROTLI_PARAM_QUALITY]: 0, [constants.BROTLI_PARAM_SIZE_HINT]: json.length },
});

/** BROTLI, then the compressed JSON: one copy of the (small) compressed bytes. */
const tagged = (compressed: Buffer): Uint8Array<ArrayBuffer> => {
  const out = new Uint8Array(compressed.length + 1);
  out[0] = BROTLI;
  out.set(compressed, 1);
  return out;
};

/** null when nothing is kept: the column stays NULL rather than holding an empty object. */
export const encodeBodies = (bodies: StoredBodies): Uint8Array<ArrayBuffer> | null => {
  if (!Object.keys(bodies).length) return null;
  const json = JSON.stringify(bodies);
  return tagged(brotliCompressSync(json, brotliOptions(json)));
};

/**
 * As encodeBodies, the compression on libuv's thread pool: a page row written on a service's
 * event loop (a crawl's pages are encoded on the reading threads instead).
 */
export const encodeBodiesAsync = async (bodies: StoredBodies): Promise<Uint8Array<ArrayBuffer> | null> => {
  if (!Object.keys(bodies).length) return null;
  const json = JSON.stringify(bodies);
  return tagged(await brotliAsync(json, brotliOptions(json)));
};

const isGzip = (stored: Uint8Array) => stored[0] === GZIP[0] && stored[1] === GZIP[1];

const unknownEncoding = (stored: Uint8Array) =>
  new Error(`stored bodies in an unknown encoding (first byte 0x${(stored[0] ?? 0).toString(16).padStart(2, '0')})`);

const parse = (json: string): StoredBodies => {
  const value: unknown = JSON.parse(json);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('stored bodies are not an object');
  return value as StoredBodies;
};

/** The bodies of a stored page ({} when none were kept). */
export const decodeBodies = (stored: Uint8Array | null | undefined): StoredBodies => {
  if (!stored) return {};
  if (stored[0] === BROTLI) return parse(brotliDecompressSync(stored.subarray(1)).toString());
  if (isGzip(stored)) return parse(gunzipSync(stored).toString());
  throw unknownEncoding(stored);
};

/** As decodeBodies, off the event loop: for reading many pages at once (exports). */
export const decodeBodiesAsync = async (stored: Uint8Array | null | undefined): Promise<StoredBodies> => {
  if (!stored) return {};
  if (stored[0] === BROTLI) return parse((await unbrotliAsync(stored.subarray(1))).toString());
  if (isGzip(stored)) return parse((await gunzipAsync(stored)).toString());
  throw unknownEncoding(stored);
};
