import mammoth from 'mammoth';
import { DOCUMENT_LIMITS } from './limits.js';
import { esc, isoDate, tableHtml, type DocumentBody, type DocumentMeta } from './types.js';
import { all, children, coreMeta, first, parseXml, textOf, type XmlElement } from './xml.js';
import { unzipBounded, utf8 } from './zip.js';

const metaFrom = (root: XmlElement | null): DocumentMeta => {
  const m = coreMeta(root);
  return { ...m, created: isoDate(m.created), modified: isoDate(m.modified) };
};

const body = (
  html: string,
  meta: DocumentMeta,
  pages: number | null = null,
  warnings: string[] = [],
): DocumentBody => ({
  html,
  meta,
  pages,
  pagesRead: pages,
  links: [],
  warnings,
});

/** The number in a part's name (`ppt/slides/slide12.xml` → 12), for reading parts in order. */
const partNumber = (name: string) => Number(/(\d+)\.xml$/.exec(name)?.[1] ?? 0);

/**
 * A DOCX through mammoth: headings from the Heading styles, lists, tables. Images are left out
 * (their bytes are never read), and nothing outside the package is opened.
 */
export const readDocx = async (bytes: Uint8Array): Promise<DocumentBody> => {
  const parts = unzipBounded(bytes, (name) => name === 'docProps/core.xml');
  const result = await mammoth.convertToHtml(
    { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
    {
      externalFileAccess: false,
      ignoreEmptyParagraphs: true,
      convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
    },
  );
  return body(result.value, metaFrom(parseXml(utf8(parts.get('docProps/core.xml')))));
};

/** A PPTX: one section per slide, its title a heading, then its text and tables. */
export const readPptx = (bytes: Uint8Array): DocumentBody => {
  const parts = unzipBounded(
    bytes,
    (name) => name === 'docProps/core.xml' || /^ppt\/slides\/slide\d+\.xml$/.test(name),
  );
  const slides = [...parts.keys()]
    .filter((n) => n.startsWith('ppt/slides/'))
    .sort((a, b) => partNumber(a) - partNumber(b));
  const read = slides.slice(0, DOCUMENT_LIMITS.pages);
  const warnings =
    read.length < slides.length
      ? [`document truncated: the first ${read.length} of ${slides.length} slides were read`]
      : [];
  const html = read
    .map((name, i) => {
      const root = parseXml(utf8(parts.get(name)));
      let out = '';
      for (const shape of all(root, 'p:sp')) {
        const ph = first(shape, 'p:ph')?.getAttribute('type') ?? '';
        const paras = all(shape, 'a:p')
          .map((p) =>
            all(p, 'a:t')
              .map((t) => t.textContent ?? '')
              .join(''),
          )
          .filter((t) => t.trim());
        if (!paras.length) continue;
        if (ph === 'title' || ph === 'ctrTitle') out += `<h2>${esc(paras.join(' '))}</h2>`;
        else if (paras.length > 1) out += `<ul>${paras.map((p) => `<li>${esc(p)}</li>`).join('')}</ul>`;
        else out += `<p>${esc(paras[0]!)}</p>`;
      }
      for (const table of all(root, 'a:tbl'))
        out += tableHtml(all(table, 'a:tr').map((tr) => all(tr, 'a:tc').map((tc) => textOf(tc))));
      return `<section data-page="${i + 1}">${out}</section>`;
    })
    .join('<hr>');
  return body(html, metaFrom(parseXml(utf8(parts.get('docProps/core.xml')))), read.length, warnings);
};

/** `B12` → column 1 (zero-based). */
const column = (ref: string | null) => {
  const letters = /^[A-Z]+/.exec(ref ?? '')?.[0] ?? '';
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
};

/** An XLSX: each sheet a heading (its name) and a table of its first rows. */
export const readXlsx = (bytes: Uint8Array): DocumentBody => {
  const parts = unzipBounded(
    bytes,
    (name) =>
      name === 'docProps/core.xml' ||
      name === 'xl/workbook.xml' ||
      name === 'xl/_rels/workbook.xml.rels' ||
      name === 'xl/sharedStrings.xml' ||
      /^xl\/worksheets\/sheet\d+\.xml$/.test(name),
  );
  const shared = all(parseXml(utf8(parts.get('xl/sharedStrings.xml'))), 'si').map((si) =>
    all(si, 't')
      .map((t) => t.textContent ?? '')
      .join(''),
  );
  const rels = new Map(
    all(parseXml(utf8(parts.get('xl/_rels/workbook.xml.rels'))), 'Relationship').map((r) => [
      r.getAttribute('Id'),
      `xl/${(r.getAttribute('Target') ?? '').replace(/^\/?xl\//, '')}`,
    ]),
  );
  const sheets = all(parseXml(utf8(parts.get('xl/workbook.xml'))), 'sheet').map((s) => ({
    name: s.getAttribute('name') ?? 'Sheet',
    part: rels.get(s.getAttribute('r:id')) ?? '',
  }));
  const warnings: string[] = [];
  if (sheets.length > DOCUMENT_LIMITS.sheets)
    warnings.push(`document truncated: the first ${DOCUMENT_LIMITS.sheets} of ${sheets.length} sheets were read`);
  let html = '';
  for (const sheet of sheets.slice(0, DOCUMENT_LIMITS.sheets)) {
    const rows = all(parseXml(utf8(parts.get(sheet.part))), 'row');
    if (rows.length > DOCUMENT_LIMITS.sheetRows)
      warnings.push(
        `sheet ${sheet.name} truncated: the first ${DOCUMENT_LIMITS.sheetRows} of ${rows.length} rows were read`,
      );
    const table = rows.slice(0, DOCUMENT_LIMITS.sheetRows).map((row) => {
      const cells: string[] = [];
      for (const c of children(row, 'c')) {
        const at = column(c.getAttribute('r'));
        const type = c.getAttribute('t');
        const v = textOf(first(c, 'v'));
        const value = type === 's' ? (shared[Number(v)] ?? '') : type === 'inlineStr' ? textOf(first(c, 'is')) : v;
        cells[at >= 0 && at < 1000 ? at : cells.length] = value;
      }
      return Array.from(cells, (c) => c ?? '');
    });
    html += `<h2>${esc(sheet.name)}</h2>${tableHtml(table.filter((r) => r.some((c) => c.trim())))}`;
  }
  return body(html, metaFrom(parseXml(utf8(parts.get('docProps/core.xml')))), null, warnings);
};

/** The text of an ODF element: spaces (`text:s`), tabs and line breaks kept as spaces. */
const odfText = (el: XmlElement): string => (el.textContent ?? '').replace(/\s+/g, ' ').trim();

const odfBlocks = (el: XmlElement): string => {
  let out = '';
  for (const child of children(el)) {
    switch (child.nodeName) {
      case 'text:h': {
        const level = Math.min(6, Math.max(1, Number(child.getAttribute('text:outline-level')) || 1));
        out += `<h${level}>${esc(odfText(child))}</h${level}>`;
        break;
      }
      case 'text:p':
        if (odfText(child)) out += `<p>${esc(odfText(child))}</p>`;
        break;
      case 'text:list':
        out += `<ul>${children(child, 'text:list-item')
          .map(
            (li) =>
              `<li>${odfBlocks(li)
                .replace(/<\/?p>/g, ' ')
                .trim()}</li>`,
          )
          .join('')}</ul>`;
        break;
      case 'table:table':
        out += tableHtml(
          all(child, 'table:table-row').map((tr) => children(tr, 'table:table-cell').map((td) => odfText(td))),
        );
        break;
      case 'text:section':
      case 'office:text':
        out += odfBlocks(child);
        break;
      default:
    }
  }
  return out;
};

/** An ODT: headings by outline level, paragraphs, lists and tables of content.xml. */
export const readOdt = (bytes: Uint8Array): DocumentBody => {
  const parts = unzipBounded(bytes, (name) => name === 'content.xml' || name === 'meta.xml');
  const text = first(parseXml(utf8(parts.get('content.xml'))), 'office:text');
  return body(text ? odfBlocks(text) : '', metaFrom(parseXml(utf8(parts.get('meta.xml')))));
};
