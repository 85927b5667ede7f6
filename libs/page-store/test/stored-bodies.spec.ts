import { describe, expect, it } from '@jest/globals';
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib';
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

  it('writes the bodies framed by their lengths, brotli behind its tag byte, with nothing escaped', () => {
    const stored = encodeBodies(page)!;
    expect(stored[0]).toBe(0x02);
    const text = brotliDecompressSync(stored.subarray(1)).toString();
    expect(text).toBe(
      `markdown\n${page.markdown!.length}\n${page.markdown}html\n${page.html!.length}\n${page.html}` +
        `links\n2\n${page.links![0]!.length}\n${page.links![0]}${page.links![1]!.length}\n${page.links![1]}`,
    );
  });

  it('reads back bodies whatever they hold: line feeds, digits, empty ones, quotes, characters past the BMP', async () => {
    const odd: StoredBodies = {
      markdown: '12\n34\nmarkdown\n5\n',
      text: '',
      cleanHtml: '"quoted" \\ back\u0000slash 🌊 tide',
      html: '\n'.repeat(3),
      links: ['', '7\nlinks', 'https://harbour.example/🌊'],
    };
    expect(decodeBodies(encodeBodies(odd))).toEqual(odd);
    expect(await decodeBodiesAsync(await encodeBodiesAsync(odd))).toEqual(odd);
    expect(decodeBodies(encodeBodies({ links: [] }))).toEqual({ links: [] });
  });

  it('still reads the JSON of rows written before: brotli behind its tag byte, and gzip members', async () => {
    const brotli = new Uint8Array([0x01, ...brotliCompressSync(JSON.stringify(page))]);
    expect(decodeBodies(brotli)).toEqual(page);
    expect(await decodeBodiesAsync(brotli)).toEqual(page);
    const old = new Uint8Array(gzipSync(JSON.stringify(page), { level: 1 }));
    expect(decodeBodies(old)).toEqual(page);
    expect(await decodeBodiesAsync(old)).toEqual(page);
  });

  it('refuses framed bodies cut short or naming a body it does not know', () => {
    const framed = (text: string) => new Uint8Array([0x02, ...brotliCompressSync(text)]);
    expect(() => decodeBodies(framed('markdown\n10\nshort'))).toThrow(/cut short/);
    expect(() => decodeBodies(framed('markdown\n'))).toThrow(/cut short/);
    expect(() => decodeBodies(framed('markdown\n-1\n'))).toThrow(/cut short/);
    expect(() => decodeBodies(framed('links\n2\n1\na'))).toThrow(/cut short/);
    expect(() => decodeBodies(framed('script\n1\nx'))).toThrow(/unknown body \("script"\)/);
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
