import { describe, expect, it } from '@jest/globals';
import { brotliDecompressSync, gzipSync } from 'node:zlib';
import { decodeBodies, decodeBodiesAsync, encodeBodies, encodeBodiesAsync, type StoredBodies } from '../src/index.js';

describe('stored bodies', () => {
  const page: StoredBodies = {
    markdown: '# Tide tables\n\nHigh water 06:12 — Ünïcode stays.',
    html: '<html><body><h1>Tide tables</h1></body></html>',
    links: ['https://harbour.example/a', 'https://harbour.example/b'],
  };

  it('reads back what was written, both ways', async () => {
    const stored = encodeBodies(page);
    expect(stored).toBeInstanceOf(Uint8Array);
    expect(decodeBodies(stored)).toEqual(page);
    expect(await decodeBodiesAsync(stored)).toEqual(page);
    const storedAsync = await encodeBodiesAsync(page);
    expect(Buffer.from(storedAsync!).equals(Buffer.from(stored!))).toBe(true);
    expect(await encodeBodiesAsync({})).toBeNull();
  });

  it('stores nothing for a page that kept no body, and reads nothing back as {}', async () => {
    expect(encodeBodies({})).toBeNull();
    expect(decodeBodies(null)).toEqual({});
    expect(await decodeBodiesAsync(undefined)).toEqual({});
  });

  it('writes brotli behind its tag byte, and still reads the gzip members of rows written before', async () => {
    const stored = encodeBodies(page)!;
    expect(stored[0]).toBe(0x01);
    expect(JSON.parse(brotliDecompressSync(stored.subarray(1)).toString())).toEqual(page);
    const old = new Uint8Array(gzipSync(JSON.stringify(page), { level: 1 }));
    expect(decodeBodies(old)).toEqual(page);
    expect(await decodeBodiesAsync(old)).toEqual(page);
  });

  it('says a column in no encoding it knows is one, rather than reading it as another', async () => {
    const json = new TextEncoder().encode(JSON.stringify(page));
    expect(() => decodeBodies(json)).toThrow(/unknown encoding \(first byte 0x7b\)/);
    await expect(decodeBodiesAsync(json)).rejects.toThrow(/unknown encoding/);
  });

  it('refuses a column that does not hold an object rather than handing on a wrong shape', () => {
    expect(() => decodeBodies(new Uint8Array(gzipSync('["markdown"]')))).toThrow(/not an object/);
    expect(() => decodeBodies(new Uint8Array([1, 2, 3]))).toThrow();
  });
});
