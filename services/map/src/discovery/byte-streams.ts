import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** A file that went past a byte cap: what is read so far counts, the rest is not read. */
export class FileTooLargeError extends Error {
  constructor(
    readonly what: 'compressed' | 'decompressed',
    readonly limit: number,
  ) {
    super(`larger than ${limit} bytes ${what === 'compressed' ? 'as sent' : 'after gunzip'}; read up to the cap`);
    this.name = 'FileTooLargeError';
  }
}

/** Passes bytes through until `limit`; one byte more throws (the source is destroyed with it). */
export async function* capBytes(
  source: AsyncIterable<Buffer>,
  limit: number,
  what: FileTooLargeError['what'],
): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of source) {
    total += chunk.length;
    if (total > limit) {
      const room = limit - (total - chunk.length);
      if (room > 0) yield chunk.subarray(0, room);
      throw new FileTooLargeError(what, limit);
    }
    yield chunk;
  }
}

/**
 * Gunzips a stream whose first bytes are the gzip magic (1f 8b), whatever its name or type
 * says; passes anything else through. Streaming both ways: a gzip bomb is only ever inflated
 * as fast as the reader takes it, so the cap after this stops it with bounded memory.
 */
export async function* gunzipIfGzip(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  let head: Buffer = Buffer.alloc(0);
  let ended = false;
  try {
    while (head.length < 2) {
      const next = await it.next();
      if (next.done) {
        ended = true;
        break;
      }
      head = head.length ? Buffer.concat([head, next.value]) : next.value;
    }
  } catch (err) {
    release(it);
    throw err;
  }
  async function* rest(): AsyncGenerator<Buffer> {
    if (head.length) yield head;
    if (ended) return;
    for (;;) {
      const next = await it.next();
      if (next.done) return;
      yield next.value;
    }
  }
  if (head[0] !== 0x1f || head[1] !== 0x8b) {
    try {
      yield* rest();
    } finally {
      release(it);
    }
    return;
  }
  const gunzip = createGunzip();
  const input = Readable.from(rest(), { objectMode: false });
  // pipeline destroys both on an error either side and on an early return of the reader.
  pipeline(input, gunzip, () => undefined);
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } finally {
    input.destroy();
    gunzip.destroy();
    release(it);
  }
}

/**
 * Ends an iterator without waiting: one blocked on the network settles when `readBody` destroys
 * the socket's stream, which it does right after (awaiting here could wait for that stream).
 */
const release = (it: AsyncIterator<Buffer>): void => {
  void it.return?.()?.catch(() => undefined);
};

/**
 * The body of one file as the parser reads it: the compressed cap on what came off the wire,
 * gunzip by magic bytes, the decompressed cap. However the reader stops (done, an error, an
 * early return), the HTTP stream is destroyed.
 */
export async function* readBody(
  raw: Readable,
  caps: { compressed: number; decompressed: number },
): AsyncGenerator<Buffer> {
  try {
    yield* capBytes(gunzipIfGzip(capBytes(raw, caps.compressed, 'compressed')), caps.decompressed, 'decompressed');
  } finally {
    raw.destroy();
  }
}
