import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { capBytes, FileTooLargeError, gunzipIfGzip, readBody } from '../src/discovery/byte-streams.js';

const collect = async (source: AsyncIterable<Buffer>) => {
  const chunks: Buffer[] = [];
  for await (const c of source) chunks.push(c);
  return Buffer.concat(chunks);
};

const MiB = 1024 * 1024;

/** A stream of `members` gzip members of 1 MiB each, made as it is read. */
const bombStream = (members: number, onRead: () => void) => {
  const member = gzipSync(Buffer.alloc(MiB, 'a'));
  let sent = 0;
  return new Readable({
    read() {
      onRead();
      this.push(sent++ < members ? member : null);
    },
  });
};

describe('byte streams', () => {
  it('gunzips by the magic bytes, whatever the name, and passes anything else through', async () => {
    const xml = Buffer.from('<urlset/>');
    expect((await collect(gunzipIfGzip(Readable.from([gzipSync(xml)])))).toString()).toBe('<urlset/>');
    expect((await collect(gunzipIfGzip(Readable.from([xml])))).toString()).toBe('<urlset/>');
    // The magic split across two chunks.
    const gz = gzipSync(xml);
    expect((await collect(gunzipIfGzip(Readable.from([gz.subarray(0, 1), gz.subarray(1)])))).toString()).toBe(
      '<urlset/>',
    );
    expect((await collect(gunzipIfGzip(Readable.from([Buffer.from('x')])))).toString()).toBe('x');
  });

  it('cuts at the cap exactly and says which cap', async () => {
    const chunks: Buffer[] = [];
    const err = await (async () => {
      try {
        for await (const c of capBytes(Readable.from([Buffer.alloc(6), Buffer.alloc(6)]), 10, 'compressed'))
          chunks.push(c);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(FileTooLargeError);
    expect(Buffer.concat(chunks).length).toBe(10);
  });

  it('stops a 1 GiB gzip bomb at the decompressed cap, reading little of it, in bounded memory', async () => {
    let reads = 0;
    const raw = bombStream(1024, () => reads++);
    const before = process.memoryUsage().rss;
    let inflated = 0;
    const err = await (async () => {
      try {
        for await (const c of readBody(raw, { compressed: 50 * MiB, decompressed: 8 * MiB })) inflated += c.length;
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(FileTooLargeError);
    expect((err as FileTooLargeError).what).toBe('decompressed');
    expect(inflated).toBe(8 * MiB);
    expect(reads).toBeLessThan(40); // a few members past the cap at most, never the whole gigabyte
    expect(raw.destroyed).toBe(true);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * MiB);
  });

  it('reports corrupt gzip as an error and destroys the source', async () => {
    const raw = Readable.from([Buffer.concat([gzipSync('<urlset>').subarray(0, 12), Buffer.from('garbage')])]);
    await expect(collect(readBody(raw, { compressed: MiB, decompressed: MiB }))).rejects.toMatchObject({
      code: expect.stringMatching(/^Z_/),
    });
    expect(raw.destroyed).toBe(true);
  });

  it('destroys the source when the reader stops early', async () => {
    const raw = bombStream(1024, () => undefined);
    for await (const _ of readBody(raw, { compressed: 50 * MiB, decompressed: 50 * MiB })) break;
    expect(raw.destroyed).toBe(true);
  });
});
