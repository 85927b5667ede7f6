import { promisify } from 'node:util';
import { gunzip, gunzipSync, gzip, gzipSync } from 'node:zlib';

// The encoding of `page.bodies`: one gzip member holding one JSON object of the page's bodies.
// Scrape writes it; crawl, diff and export read it straight from the table (a finished run's rows
// do not change, and streaming them through scrape would move every byte twice). This file is
// the only place that knows the format, so a change to it is made once for all four.

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
const gzipAsync = promisify(gzip);

/**
 * null when nothing is kept: the column stays NULL rather than holding an empty object. Gzip's
 * fastest level: on a crawled page's bodies (~23 KB of JSON) it takes 0.27 ms against 0.68 ms at
 * the default level for 7 % more bytes, and it runs once per page on the crawl's hot path.
 */
export const encodeBodies = (bodies: StoredBodies): Uint8Array<ArrayBuffer> | null =>
  Object.keys(bodies).length ? new Uint8Array(gzipSync(JSON.stringify(bodies), { level: 1 })) : null;

/**
 * As encodeBodies, the compression on libuv's thread pool: a crawl's page rows are written on the
 * scrape service's event loop, which is what bounds a crawl's rate (docs/performance.md).
 */
export const encodeBodiesAsync = async (bodies: StoredBodies): Promise<Uint8Array<ArrayBuffer> | null> =>
  Object.keys(bodies).length ? new Uint8Array(await gzipAsync(JSON.stringify(bodies), { level: 1 })) : null;

const parse = (json: string): StoredBodies => {
  const value: unknown = JSON.parse(json);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('stored bodies are not an object');
  return value as StoredBodies;
};

/** The bodies of a stored page ({} when none were kept). */
export const decodeBodies = (stored: Uint8Array | null | undefined): StoredBodies =>
  stored ? parse(gunzipSync(stored).toString()) : {};

/** As decodeBodies, off the event loop: for reading many pages at once (exports). */
export const decodeBodiesAsync = async (stored: Uint8Array | null | undefined): Promise<StoredBodies> =>
  stored ? parse((await gunzipAsync(stored)).toString()) : {};
