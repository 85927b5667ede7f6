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

// The encoding of `page.bodies`: the page's bodies, compressed. Scrape writes it; crawl, diff and
// export read it straight from the table (a finished run's rows do not change, and streaming them
// through scrape would move every byte twice). This file is the only place that knows the format,
// so a change to it is made once for all four.
//
// Written: the byte FRAMED then a brotli stream at quality 0 of the bodies framed by their
// lengths (`framed`). Read: that; or the byte BROTLI then a brotli stream of one JSON object, as
// rows written before 2026-11-28 hold; or one gzip member of that JSON (magic 1f 8b), as rows
// written before 2026-11-26 hold. On a crawled page's bodies (~22 KB) brotli at quality 0
// compresses in 0.06 ms against gzip level 1's 0.15 (2.8× against 3.0× smaller), and it runs once
// per page on the reading threads, which bound a crawl's rate (docs/performance.md, twenty-sixth
// round). JSON cost as much again as the compression (escaping every character of the markdown:
// 61 µs of 156 on a bench page), where framing by length copies the text as it is (93 µs in
// all, the same size compressed; fortieth round).

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

/** The first byte of a column of framed bodies, brotli-encoded. */
const FRAMED = 0x02;
/** The first byte of a column of JSON, brotli-encoded (a gzip member opens with 0x1f). */
const BROTLI = 0x01;
const GZIP = [0x1f, 0x8b] as const;

const brotliOptions = (text: string) => ({
  params: { [constants.BROTLI_PARAM_QUALITY]: 0, [constants.BROTLI_PARAM_SIZE_HINT]: text.length },
});

/** The tag byte, then the compressed bytes: one copy of the (small) compressed bytes. */
const tagged = (tag: number, compressed: Buffer): Uint8Array<ArrayBuffer> => {
  const out = new Uint8Array(compressed.length + 1);
  out[0] = tag;
  out.set(compressed, 1);
  return out;
};

const TEXT_BODIES = ['markdown', 'text', 'cleanHtml', 'html'] as const;

/**
 * The bodies as one text: each body's name, a line feed, its length (in UTF-16 code units, as
 * JavaScript counts a string), a line feed, then the body as it is; the links as their count,
 * then each link framed by its length the same way. Nothing in a body is escaped or read: any
 * character may be in one.
 */
const framed = (bodies: StoredBodies): string => {
  let out = '';
  for (const name of TEXT_BODIES) {
    const body = bodies[name];
    if (body !== undefined) out += `${name}\n${body.length}\n${body}`;
  }
  if (bodies.links) {
    out += `links\n${bodies.links.length}\n`;
    for (const link of bodies.links) out += `${link.length}\n${link}`;
  }
  return out;
};

/** The bodies `framed` wrote. */
const unframed = (text: string): StoredBodies => {
  const bodies: StoredBodies = {};
  let at = 0;
  const line = (): string => {
    const end = text.indexOf('\n', at);
    if (end < 0) throw new Error('stored bodies cut short');
    const value = text.slice(at, end);
    at = end + 1;
    return value;
  };
  const length = (): number => {
    const digits = line();
    const n = Number(digits);
    if (!/^\d{1,15}$/.test(digits) || at + n > text.length) throw new Error('stored bodies cut short');
    return n;
  };
  const body = (): string => {
    const n = length();
    at += n;
    return text.slice(at - n, at);
  };
  while (at < text.length) {
    const name = line();
    if (name === 'links') {
      const count = length();
      const links: string[] = [];
      for (let i = 0; i < count; i++) links.push(body());
      bodies.links = links;
    } else if ((TEXT_BODIES as readonly string[]).includes(name)) bodies[name as (typeof TEXT_BODIES)[number]] = body();
    else throw new Error(`stored bodies hold an unknown body (${JSON.stringify(name.slice(0, 40))})`);
  }
  return bodies;
};

/** null when nothing is kept: the column stays NULL rather than holding an empty object. */
export const encodeBodies = (bodies: StoredBodies): Uint8Array<ArrayBuffer> | null => {
  if (!Object.keys(bodies).length) return null;
  const text = framed(bodies);
  return tagged(FRAMED, brotliCompressSync(text, brotliOptions(text)));
};

/**
 * As encodeBodies, the compression on libuv's thread pool: a page row written on a service's
 * event loop (a crawl's pages are encoded on the reading threads instead).
 */
export const encodeBodiesAsync = async (bodies: StoredBodies): Promise<Uint8Array<ArrayBuffer> | null> => {
  if (!Object.keys(bodies).length) return null;
  const text = framed(bodies);
  return tagged(FRAMED, await brotliAsync(text, brotliOptions(text)));
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
  if (stored[0] === FRAMED) return unframed(brotliDecompressSync(stored.subarray(1)).toString());
  if (stored[0] === BROTLI) return parse(brotliDecompressSync(stored.subarray(1)).toString());
  if (isGzip(stored)) return parse(gunzipSync(stored).toString());
  throw unknownEncoding(stored);
};

/** As decodeBodies, off the event loop: for reading many pages at once (exports). */
export const decodeBodiesAsync = async (stored: Uint8Array | null | undefined): Promise<StoredBodies> => {
  if (!stored) return {};
  if (stored[0] === FRAMED) return unframed((await unbrotliAsync(stored.subarray(1))).toString());
  if (stored[0] === BROTLI) return parse((await unbrotliAsync(stored.subarray(1))).toString());
  if (isGzip(stored)) return parse((await gunzipAsync(stored)).toString());
  throw unknownEncoding(stored);
};
