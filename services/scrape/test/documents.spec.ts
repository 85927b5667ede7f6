import { afterAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@tidemark/telemetry';
import { strToU8, zipSync } from 'fflate';
import type { Fetched } from '../src/ladder/http-rung.js';
import { resolveOptions } from '../src/ladder/options.js';
import { detectDocument } from '../src/reading/documents/detect.js';
import { readDocument } from '../src/reading/documents/read-document.js';
import { PageReaderPool } from '../src/reading/page-reader-pool.js';

const opts = resolveOptions({ url: 'http://docs.test/a', formats: ['markdown', 'text'] } as never);
const fetched = (contentType: string): Fetched => ({
  finalUrl: 'http://docs.test/a',
  status: 200,
  headers: {},
  html: '',
  redirects: [],
  contentType,
});
const read = async (bytes: Uint8Array, contentType = 'application/octet-stream') => {
  const type = detectDocument(contentType, bytes);
  expect(type).not.toBeNull();
  return readDocument(fetched(contentType), { type: type!, bytes }, opts);
};

const CORE = `<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"><dc:title>Harbour figures</dc:title><dc:creator>Harbour office</dc:creator><dcterms:created>2024-05-01T08:00:00Z</dcterms:created><dcterms:modified>2024-05-02T09:30:00Z</dcterms:modified></cp:coreProperties>`;

const pptx = () => {
  const slide = (title: string, bullets: string[]) =>
    strToU8(
      `<p:sld xmlns:p="p" xmlns:a="a"><p:cSld><p:spTree>` +
        `<p:sp><p:nvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>${title}</a:t></a:r></a:p></p:txBody></p:sp>` +
        `<p:sp><p:txBody>${bullets.map((b) => `<a:p><a:r><a:t>${b}</a:t></a:r></a:p>`).join('')}</p:txBody></p:sp>` +
        `</p:spTree></p:cSld></p:sld>`,
    );
  return zipSync({
    '[Content_Types].xml': strToU8('<Types/>'),
    'ppt/presentation.xml': strToU8('<p:presentation xmlns:p="p"/>'),
    'ppt/slides/slide2.xml': slide('Moorings', ['Pontoons inside the breakwater', 'Water and power']),
    'ppt/slides/slide1.xml': slide('Tides', ['Spring tides at full moon', 'Neap tides at half moon']),
    'docProps/core.xml': strToU8(CORE),
  });
};

const xlsx = () =>
  zipSync({
    '[Content_Types].xml': strToU8('<Types/>'),
    'xl/workbook.xml': strToU8(
      '<workbook xmlns:r="r"><sheets><sheet name="Fees" sheetId="1" r:id="rId1"/></sheets></workbook>',
    ),
    'xl/_rels/workbook.xml.rels': strToU8(
      '<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>',
    ),
    'xl/sharedStrings.xml': strToU8(
      '<sst><si><t>Length</t></si><si><t>Per night</t></si><si><t>Under 10 m</t></si></sst>',
    ),
    'xl/worksheets/sheet1.xml': strToU8(
      '<worksheet><sheetData>' +
        '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>' +
        '<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>28</v></c></row>' +
        '</sheetData></worksheet>',
    ),
    'docProps/core.xml': strToU8(CORE),
  });

const odt = () =>
  zipSync(
    {
      mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
      'content.xml': strToU8(
        '<office:document-content xmlns:office="o" xmlns:text="t" xmlns:table="tb"><office:body><office:text>' +
          '<text:h text:outline-level="1">Harbour rules</text:h><text:p>Keep to five knots inside the harbour.</text:p>' +
          '<text:list><text:list-item><text:p>No anchoring in the fairway</text:p></text:list-item></text:list>' +
          '<table:table><table:table-row><table:table-cell><text:p>Zone</text:p></table:table-cell><table:table-cell><text:p>Speed</text:p></table:table-cell></table:table-row>' +
          '<table:table-row><table:table-cell><text:p>Inner</text:p></table:table-cell><table:table-cell><text:p>5 kn</text:p></table:table-cell></table:table-row></table:table>' +
          '</office:text></office:body></office:document-content>',
      ),
      'meta.xml': strToU8(
        '<office:document-meta xmlns:office="o" xmlns:dc="dc" xmlns:meta="m"><office:meta><dc:title>Rules</dc:title><meta:initial-creator>Harbour office</meta:initial-creator><meta:creation-date>2024-01-02T03:04:05</meta:creation-date></office:meta></office:document-meta>',
      ),
    },
    { level: 6 },
  );

describe('detectDocument', () => {
  it('knows a document by its bytes, whatever the Content-Type says', () => {
    expect(detectDocument('text/html', strToU8('%PDF-1.7\n'))).toBe('pdf');
    expect(detectDocument('application/octet-stream', pptx())).toBe('pptx');
    expect(detectDocument('', xlsx())).toBe('xlsx');
    expect(detectDocument('application/zip', odt())).toBe('odt');
    expect(detectDocument('text/plain', strToU8('{\\rtf1\\ansi hello}'))).toBe('rtf');
  });

  it('leaves markup, text and other zips alone', () => {
    expect(detectDocument('application/pdf', strToU8('<html><body>not a pdf</body></html>'))).toBeNull();
    expect(detectDocument('text/plain', strToU8('plain words'))).toBeNull();
    expect(detectDocument('application/zip', zipSync({ 'a.txt': strToU8('a') }))).toBeNull();
  });
});

describe('readDocument', () => {
  it('reads a PPTX: a section per slide in order, its title a heading, its points a list', async () => {
    const r = await read(pptx());
    expect(r.verdict).toMatchObject({ errorCode: 'OK', climb: false });
    expect(r.verdict.signals).toEqual(expect.arrayContaining(['document pptx', '2 slides']));
    expect(r.content.markdown).toMatch(/## Tides[\s\S]*- Neap tides at half moon[\s\S]*<!-- page 2 -->\n\n## Moorings/);
    expect(r.content.head).toMatchObject({
      title: 'Harbour figures',
      author: 'Harbour office',
      created: '2024-05-01T08:00:00.000Z',
      modified: '2024-05-02T09:30:00.000Z',
    });
    expect(r.document).toMatchObject({ type: 'pptx', pages: 2, parsed: true });
  });

  it('reads an XLSX: each sheet a heading and a table', async () => {
    const r = await read(xlsx());
    expect(r.content.markdown).toContain('## Fees');
    expect(r.content.markdown).toContain('| Under 10 m | 28 |');
    expect(r.verdict.climb).toBe(false);
  });

  it('reads an ODT: headings by outline level, lists, tables and meta.xml', async () => {
    const r = await read(odt());
    expect(r.content.markdown).toMatch(/^# Harbour rules$/m);
    expect(r.content.markdown).toMatch(/^- No anchoring in the fairway$/m);
    expect(r.content.markdown).toContain('| Inner | 5 kn |');
    expect(r.content.head).toMatchObject({ title: 'Rules', author: 'Harbour office' });
  });

  it('refuses a zip bomb by what its directory says it inflates to', async () => {
    // One entry whose directory says it inflates to 70 MB (its headers are set so; no need to
    // compress 70 MB to say it).
    const bomb = zipSync({ 'word/document.xml': new Uint8Array(1024) });
    const view = new DataView(bomb.buffer);
    const central = bomb.length - 22 - 46 - 'word/document.xml'.length;
    view.setUint32(22, 70 * 1024 * 1024, true);
    view.setUint32(central + 24, 70 * 1024 * 1024, true);
    const r = await read(bomb);
    expect(r.verdict).toMatchObject({ verdict: 'blocked', errorCode: 'BLOCKED', climb: false });
    expect(r.reason).toMatch(/inflates to more than 64 MB/);
  });
});

describe('PageReaderPool and documents', () => {
  const pool = new PageReaderPool({ threads: 1, budgetMs: 10_000, logger: createLogger('test', 'silent') });
  afterAll(() => pool.close());

  it('moves a document’s bytes to the reading thread rather than copying them', async () => {
    const bytes = odt();
    const page: Fetched = { ...fetched('application/vnd.oasis.opendocument.text'), document: { type: 'odt', bytes } };
    const reading = await pool.read(page, 'http', opts);
    expect(reading.content.markdown).toMatch(/^# Harbour rules$/m);
    expect(reading.document).toMatchObject({ type: 'odt', parsed: true });
    // Transferred: the caller's buffer is now empty.
    expect(bytes.byteLength).toBe(0);
  });
});
