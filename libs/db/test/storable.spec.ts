import { runInNewContext } from 'node:vm';
import { describe, expect, it } from '@jest/globals';
import { storable, storableText, unstorableReason } from '../src/storable.js';

describe('storable', () => {
  it('strips NUL and replaces lone surrogates, leaving pairs and ordinary text alone', () => {
    expect(storableText('a\0b\0')).toBe('ab');
    expect(storableText('x\ud800y')).toBe('x\ufffdy');
    expect(storableText('x\udc00')).toBe('x\ufffd');
    expect(storableText('tide \ud83c\udf0a ok')).toBe('tide \ud83c\udf0a ok');
    expect(storableText('\u0001\u001f caf\u00e9')).toBe('\u0001\u001f caf\u00e9');
  });

  it('cleans strings at any depth, keys included, and keeps untouched values as they were', () => {
    const clean = { a: ['ok', { b: 1 }], c: null };
    expect(storable(clean)).toBe(clean);
    const bytes = Buffer.from('a\0b');
    const dirty = { 'k\0': ['a\0', { t: 'x\ud800' }], n: 3, bytes, when: new Date(0) };
    const out = storable(dirty);
    expect(out).toEqual({ k: ['a', { t: 'x\ufffd' }], n: 3, bytes, when: new Date(0) });
    expect(out.bytes).toBe(bytes);
    expect(dirty['k\0'][0]).toBe('a\0'); // the input is not changed
    // What jsonb refuses is gone from the JSON text.
    expect(JSON.stringify(out)).not.toMatch(/\\u0000|\\ud[89a-f]/i);
  });

  it('cleans plain objects of another realm (what a worker thread answers), not class instances', () => {
    const foreign = runInNewContext('({ head: { title: "a\\u0000b" }, list: ["x\\ud800"] })') as {
      head: { title: string };
      list: string[];
    };
    expect(Object.getPrototypeOf(foreign)).not.toBe(Object.prototype);
    expect(storable(foreign)).toEqual({ head: { title: 'ab' }, list: ['x\ufffd'] });
    class Tagged {
      constructor(readonly tag: string) {}
    }
    const kept = new Tagged('a\0');
    expect(storable({ kept }).kept).toBe(kept);
  });

  it('says why a string cannot be stored', () => {
    expect(unstorableReason('fine')).toBeNull();
    expect(unstorableReason('a\0')).toMatch(/NUL/);
    expect(unstorableReason('\udfff')).toMatch(/surrogate/);
  });
});
