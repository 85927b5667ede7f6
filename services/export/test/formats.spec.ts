import { describe, expect, it } from '@jest/globals';
import { Chunker } from '../src/exports/chunker.js';
import { csvCell, csvField, csvLine, csvText, csvWriter, jsonlWriter } from '../src/exports/formats.js';

describe('CSV writer (RFC 4180)', () => {
  it('leaves plain fields bare and quotes those with a quote, comma, CR or LF', () => {
    expect(csvField('plain text')).toBe('plain text');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField('')).toBe('');
    expect(csvField(' padded ')).toBe(' padded ');
  });

  it('prints null and absent as empty, numbers and booleans as text, nested values as JSON', () => {
    expect(csvText(null)).toBe('');
    expect(csvText(undefined)).toBe('');
    expect(csvText(0)).toBe('0');
    expect(csvText(false)).toBe('false');
    expect(csvText(['short', 'nav'])).toBe('["short","nav"]');
    expect(csvText({ a: 1, b: 'x' })).toBe('{"a":1,"b":"x"}');
    expect(csvText(new Date('2026-01-02T03:04:05.000Z'))).toBe('2026-01-02T03:04:05.000Z');
  });

  it('neutralises text that starts like a formula: a quote in front, the cell quoted (OWASP)', () => {
    expect(csvCell('=HYPERLINK("http://evil.test","x")')).toBe(`"'=HYPERLINK(""http://evil.test"",""x"")"`);
    expect(csvCell('+1+cmd')).toBe(`"'+1+cmd"`);
    expect(csvCell('-2+3')).toBe(`"'-2+3"`);
    expect(csvCell('@SUM(1+1)')).toBe(`"'@SUM(1+1)"`);
    expect(csvCell('\tTabbed')).toBe(`"'\tTabbed"`);
    expect(csvCell('\rreturn')).toBe(`"'\rreturn"`);
    // Only the first character counts; numbers Tidemark prints stay numbers.
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvCell(-3)).toBe('-3');
    expect(csvCell('')).toBe('');
    const w = csvWriter(['url', '=field']);
    expect(w.header()).toBe(`url,"'=field"\r\n`);
    expect(w.row({ url: 'https://a.test/', '=field': '@x' })).toBe(`https://a.test/,"'@x"\r\n`);
  });

  it('ends every record with CRLF, the header first, columns in the order given', () => {
    const w = csvWriter(['url', 'title', 'signals', 'words']);
    expect(w.header()).toBe('url,title,signals,words\r\n');
    expect(w.row({ words: 12, url: 'https://a.test/x', title: 'Knots, "Rope"', signals: ['nav', 'main'] })).toBe(
      'https://a.test/x,"Knots, ""Rope""","[""nav"",""main""]",12\r\n',
    );
    expect(w.row({ url: 'https://a.test/y' })).toBe('https://a.test/y,,,\r\n');
    expect(csvLine(['multi\r\nline', 1])).toBe('"multi\r\nline",1\r\n');
  });
});

describe('JSON Lines writer', () => {
  it('writes one object per line with every column, absent ones null, in the order given', () => {
    const w = jsonlWriter(['url', 'title', 'fields']);
    expect(w.header()).toBe('');
    expect(w.row({ title: 'Line\nbreak', url: 'https://a.test/' })).toBe(
      '{"url":"https://a.test/","title":"Line\\nbreak","fields":null}\n',
    );
  });
});

describe('Chunker', () => {
  it('cuts text into messages of the given size, the rest at the end', () => {
    const c = new Chunker(4);
    expect(c.push('ab')).toEqual([]);
    expect(c.push('cdefghij').map(String)).toEqual(['abcd', 'efgh']);
    expect(c.push('')).toEqual([]);
    expect(String(c.flush())).toBe('ij');
    expect(c.flush()).toBeNull();
  });

  it('keeps the bytes in order when a cut falls inside a character', () => {
    const c = new Chunker(3);
    // é is two bytes: the cut after byte 3 splits the second one.
    const parts = [...c.push('ééx'), c.flush()!];
    expect(parts.map((p) => p.length)).toEqual([3, 2]);
    expect(Buffer.concat(parts).toString('utf8')).toBe('ééx');
  });
});
