import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import {
  AlignmentType,
  Document,
  HeadingLevel,
  Packer,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
} from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/**
 * Documents for the document-reading tests, written here rather than kept as binaries: a PDF
 * with metadata, headings, a list and a table; a DOCX with the same; a PDF that needs a
 * password; a PDF whose only page is an image (a scan). Served by the test web with their real
 * content types.
 */

export const TIDE_WORDS =
  'The harbour publishes its tide tables each spring so that skippers can plan their passages. ' +
  'High water brings enough depth over the bar for deep keels, and low water uncovers the mud banks ' +
  'where the oystercatchers feed. Every entry gives the time and the height, measured from chart datum, ' +
  'and the harbour master posts corrections when a storm surge is expected.';

export const PDF_META = {
  title: 'Tide tables of Saltmarsh harbour',
  author: 'Saltmarsh Harbour Master',
  created: new Date('2024-03-01T10:00:00Z'),
  modified: new Date('2024-03-05T16:30:00Z'),
};

/** Lines of body text wrapped to a width, drawn top-down from y; answers the y below them. */
const drawParagraph = (
  page: ReturnType<PDFDocument['addPage']>,
  font: Awaited<ReturnType<PDFDocument['embedFont']>>,
  text: string,
  y: number,
  size = 11,
): number => {
  const words = text.split(' ');
  let line = '';
  for (const word of words) {
    const next = line ? `${line} ${word}` : word;
    if (font.widthOfTextAtSize(next, size) > 480) {
      page.drawText(line, { x: 50, y, size, font });
      y -= size * 1.4;
      line = word;
    } else line = next;
  }
  if (line) page.drawText(line, { x: 50, y, size, font });
  return y - size * 2.4;
};

/** Two pages: a large heading, body text, a bulleted list and a three-column table, then a second heading. */
export const tidePdf = async (): Promise<Buffer> => {
  const doc = await PDFDocument.create();
  doc.setTitle(PDF_META.title);
  doc.setAuthor(PDF_META.author);
  doc.setSubject('High and low water for the spring season');
  doc.setCreationDate(PDF_META.created);
  doc.setModificationDate(PDF_META.modified);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);

  const one = doc.addPage([595, 842]);
  one.drawText('Tide tables', { x: 50, y: 780, size: 24, font: bold });
  let y = drawParagraph(one, font, TIDE_WORDS, 740);
  one.drawText('Before you sail', { x: 50, y, size: 16, font: bold });
  y -= 26;
  for (const item of ['Check the forecast', 'Read the notices to mariners', 'Tell someone ashore']) {
    one.drawText(`• ${item}`, { x: 60, y, size: 11, font });
    y -= 16;
  }
  y -= 20;
  one.drawText('Spring week', { x: 50, y, size: 16, font: bold });
  y -= 26;
  const rows = [
    ['Day', 'High water', 'Low water'],
    ['Monday', '06:12', '12:30'],
    ['Tuesday', '06:58', '13:15'],
    ['Wednesday', '07:41', '13:59'],
  ];
  for (const row of rows) {
    row.forEach((cell, i) => one.drawText(cell, { x: 50 + i * 160, y, size: 11, font }));
    y -= 18;
  }

  const two = doc.addPage([595, 842]);
  two.drawText('Storm surges', { x: 50, y: 780, size: 16, font: bold });
  drawParagraph(
    two,
    font,
    'A surge raises the water above the predicted height; the harbour master posts a correction on the quay.',
    750,
  );
  return Buffer.from(await doc.save());
};

/** A one-page PDF whose page is only an image: what a scanner writes. */
export const scannedPdf = async (): Promise<Buffer> => {
  const doc = await PDFDocument.create();
  doc.setTitle('Scanned harbour notice');
  // A 1×1 grey PNG, stretched over the page.
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  );
  const image = await doc.embedPng(png);
  doc.addPage([595, 842]).drawImage(image, { x: 0, y: 0, width: 595, height: 842 });
  return Buffer.from(await doc.save());
};

/**
 * A PDF encrypted with the standard security handler (RC4, 128 bits) under a user password we do
 * not have: its /O and /U entries are not those of the empty password, so no reader opens it
 * without one. Written byte by byte, with a correct cross-reference table.
 */
export const encryptedPdf = (): Buffer => {
  const hex = (seed: string) => createHash('sha256').update(seed).digest('hex');
  const content = Buffer.from(createHash('sha512').update('ciphertext').digest()).toString('latin1');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    `<< /Filter /Standard /V 2 /R 3 /Length 128 /P -3904 /O <${hex('owner')}> /U <${hex('user')}> >>`,
  ];
  let out = '%PDF-1.6\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const at of offsets) out += `${String(at).padStart(10, '0')} 00000 n \n`;
  const id = hex('id').slice(0, 32);
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 5 0 R /ID [<${id}> <${id}>] >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
};

export const DOCX_META = {
  title: 'Mooring guide',
  author: 'Saltmarsh Moorings',
};

/** A DOCX with a title, headings, a bulleted list and a table. */
export const mooringDocx = async (): Promise<Buffer> => {
  const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });
  const doc = new Document({
    title: DOCX_META.title,
    creator: DOCX_META.author,
    description: 'Where to moor and what it costs',
    sections: [
      {
        children: [
          new Paragraph({ text: 'Mooring guide', heading: HeadingLevel.HEADING_1 }),
          new Paragraph({
            children: [
              new TextRun(
                'Visitors moor on the pontoons inside the breakwater. The berthing master meets every boat ' +
                  'that calls ahead on the radio, and the pontoons have water and power at every finger. ' +
                  'Rafting is allowed three deep when the harbour is busy in summer.',
              ),
            ],
          }),
          new Paragraph({ text: 'What to bring', heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: 'Two long bow lines', bullet: { level: 0 } }),
          new Paragraph({ text: 'Fenders on both sides', bullet: { level: 0 } }),
          new Paragraph({ text: 'Prices', heading: HeadingLevel.HEADING_2 }),
          new Table({
            width: { size: 100, type: WidthType.PERCENTAGE },
            rows: [
              new TableRow({ children: [cell('Length'), cell('Per night')] }),
              new TableRow({ children: [cell('Under 10 m'), cell('£28')] }),
              new TableRow({ children: [cell('10 to 15 m'), cell('£41')] }),
            ],
          }),
          new Paragraph({ text: 'Pay at the harbour office.', alignment: AlignmentType.LEFT }),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
};

export const CONTENT_TYPES = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  odt: 'application/vnd.oasis.opendocument.text',
  rtf: 'application/rtf',
} as const;

/**
 * A zip of the named parts, each stored (not deflated), in the order given: what an office
 * document is at heart, written by hand so the reader is tested on bytes no library of its own
 * produced.
 */
export const storedZip = (parts: Record<string, string>): Buffer => {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(parts)) {
    const data = Buffer.from(text, 'utf8');
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x21, 14);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    central.push(entry, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(parts).length, 8);
  end.writeUInt16LE(Object.keys(parts).length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
};

export const OFFICE_META = {
  title: 'Harbour figures',
  author: 'Harbour office',
  created: '2024-05-01T08:00:00.000Z',
};
const CORE_XML =
  '<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/">' +
  `<dc:title>${OFFICE_META.title}</dc:title><dc:creator>${OFFICE_META.author}</dc:creator><dcterms:created>${OFFICE_META.created}</dcterms:created></cp:coreProperties>`;

/** Two slides (written out of order in the package): a title and bullet points each. */
export const harbourPptx = (): Buffer => {
  const slide = (title: string, bullets: string[]) =>
    '<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><p:cSld><p:spTree>' +
    `<p:sp><p:nvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>${title}</a:t></a:r></a:p></p:txBody></p:sp>` +
    `<p:sp><p:txBody>${bullets.map((b) => `<a:p><a:r><a:t>${b}</a:t></a:r></a:p>`).join('')}</p:txBody></p:sp>` +
    '</p:spTree></p:cSld></p:sld>';
  return storedZip({
    '[Content_Types].xml': '<Types/>',
    'ppt/presentation.xml': '<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"/>',
    'ppt/slides/slide2.xml': slide('Moorings', ['Pontoons inside the breakwater', 'Water and power on every berth']),
    'ppt/slides/slide1.xml': slide('Tides', ['Spring tides at full moon', 'Neap tides at half moon']),
    'docProps/core.xml': CORE_XML,
  });
};

/** One sheet, Fees, of shared strings and a number. */
export const harbourXlsx = (): Buffer =>
  storedZip({
    '[Content_Types].xml': '<Types/>',
    'xl/workbook.xml':
      '<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Fees" sheetId="1" r:id="rId1"/></sheets></workbook>',
    'xl/_rels/workbook.xml.rels':
      '<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>',
    'xl/sharedStrings.xml':
      '<sst><si><t>Length</t></si><si><t>Per night</t></si><si><t>Under 10 m</t></si><si><t>10 to 15 m</t></si></sst>',
    'xl/worksheets/sheet1.xml':
      '<worksheet><sheetData>' +
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>' +
      '<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>28</v></c></row>' +
      '<row r="3"><c r="A3" t="s"><v>3</v></c><c r="B3"><v>36</v></c></row>' +
      '</sheetData></worksheet>',
    'docProps/core.xml': CORE_XML,
  });

/** An ODF text document: its mimetype first, a heading, a paragraph, a list and a table. */
export const harbourOdt = (): Buffer =>
  storedZip({
    mimetype: 'application/vnd.oasis.opendocument.text',
    'content.xml':
      '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"><office:body><office:text>' +
      '<text:h text:outline-level="1">Harbour rules</text:h><text:p>Keep to five knots inside the harbour walls at every state of the tide.</text:p>' +
      '<text:list><text:list-item><text:p>No anchoring in the fairway</text:p></text:list-item></text:list>' +
      '<table:table><table:table-row><table:table-cell><text:p>Zone</text:p></table:table-cell><table:table-cell><text:p>Speed</text:p></table:table-cell></table:table-row>' +
      '<table:table-row><table:table-cell><text:p>Inner</text:p></table:table-cell><table:table-cell><text:p>5 kn</text:p></table:table-cell></table:table-row></table:table>' +
      '</office:text></office:body></office:document-content>',
    'meta.xml':
      '<office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"><office:meta><dc:title>Rules of the harbour</dc:title><meta:initial-creator>Harbour office</meta:initial-creator><meta:creation-date>2024-01-02T03:04:05</meta:creation-date></office:meta></office:document-meta>',
  });
