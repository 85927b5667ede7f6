import { DOCUMENT_LIMITS } from './limits.js';
import { emptyMeta, esc, isoDate, tableHtml, type DocumentBody, type DocumentMeta } from './types.js';

// pdf.js (through unpdf's build for servers) is loaded on the first PDF a thread reads: threads
// that never meet one do not pay for it.
type Unpdf = typeof import('unpdf');
let unpdf: Promise<Unpdf> | undefined;
const loadPdfJs = (): Promise<Unpdf> => {
  // pdf.js 5 moves buffers with ArrayBuffer.prototype.transferToFixedLength (Node 21+). On Node
  // 20 this reading thread gets a copying stand-in: the buffers are pdf.js's own.
  const proto = ArrayBuffer.prototype as ArrayBuffer & { transferToFixedLength?: (n?: number) => ArrayBuffer };
  if (!proto.transferToFixedLength)
    Object.defineProperty(proto, 'transferToFixedLength', {
      configurable: true,
      writable: true,
      value(this: ArrayBuffer, length = this.byteLength) {
        const out = new ArrayBuffer(length);
        new Uint8Array(out).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
        return out;
      },
    });
  return (unpdf ??= import('unpdf'));
};

interface Run {
  text: string;
  x: number;
  y: number;
  width: number;
  size: number;
}

interface Line {
  y: number;
  size: number;
  /** Runs merged where they touch; a gap wider than a few spaces starts a new cell. */
  cells: { text: string; x: number }[];
}

type Block =
  | { kind: 'heading'; size: number; text: string }
  | { kind: 'para'; text: string }
  | { kind: 'item'; text: string; ordered: boolean }
  | { kind: 'table'; rows: string[][] };

const BULLET = /^\s*([•◦▪▫●○■□‣⁃∙·\-–*])\s+/;
const NUMBERED = /^\s*(\d{1,3}|[a-z])[.)]\s+/;

/** Text runs of one page grouped into lines (top to bottom) and cells (left to right). */
const linesOf = (runs: Run[]): Line[] => {
  const sorted = runs.filter((r) => r.text.trim()).sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: { y: number; runs: Run[] }[] = [];
  for (const r of sorted) {
    const line = lines.at(-1);
    if (line && Math.abs(line.y - r.y) <= Math.max(2, r.size * 0.4)) line.runs.push(r);
    else lines.push({ y: r.y, runs: [r] });
  }
  return lines.map(({ y, runs: rs }) => {
    rs.sort((a, b) => a.x - b.x);
    const size = Math.max(...rs.map((r) => r.size));
    const cells: Line['cells'] = [];
    let end = -Infinity;
    for (const r of rs) {
      const cell = cells.at(-1);
      const gap = r.x - end;
      if (cell && gap < r.size * 1.5) cell.text += (gap > r.size * 0.15 && !/\s$/.test(cell.text) ? ' ' : '') + r.text;
      else cells.push({ text: r.text, x: r.x });
      end = Math.max(end, r.x + r.width);
    }
    for (const c of cells) c.text = c.text.replace(/\s+/g, ' ').trim();
    return { y, size, cells: cells.filter((c) => c.text) };
  });
};

/** Two lines whose cells start at the same places: rows of one table. */
const aligned = (a: Line, b: Line) =>
  a.cells.length === b.cells.length &&
  a.cells.every((c, i) => Math.abs(c.x - b.cells[i]!.x) <= Math.max(4, a.size * 0.8));

/** One page's lines as blocks: headings by size, tables by aligned cells, lists by their marks. */
const blocksOf = (lines: Line[], bodySize: number): Block[] => {
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.cells.length >= 2) {
      let j = i + 1;
      while (j < lines.length && aligned(line, lines[j]!)) j++;
      if (j - i >= 2) {
        blocks.push({ kind: 'table', rows: lines.slice(i, j).map((l) => l.cells.map((c) => c.text)) });
        i = j - 1;
        continue;
      }
    }
    const text = line.cells.map((c) => c.text).join(' ');
    if (line.size >= bodySize * 1.2 && text.length <= 200) {
      const prev = blocks.at(-1);
      if (prev?.kind === 'heading' && prev.size === line.size) prev.text += ` ${text}`;
      else blocks.push({ kind: 'heading', size: line.size, text });
      continue;
    }
    const bullet = BULLET.exec(text) ?? NUMBERED.exec(text);
    if (bullet) {
      blocks.push({ kind: 'item', text: text.slice(bullet[0].length), ordered: !BULLET.test(text) });
      continue;
    }
    const prev = blocks.at(-1);
    const prevLine = lines[i - 1];
    const close = prevLine && prevLine.y - line.y <= line.size * 1.8 && prevLine.cells.length < 2;
    if (close && (prev?.kind === 'para' || prev?.kind === 'item')) prev.text += ` ${text}`;
    else blocks.push({ kind: 'para', text });
  }
  return blocks;
};

const blocksHtml = (blocks: Block[], headingLevel: (size: number) => number): string => {
  let out = '';
  let list: 'ul' | 'ol' | null = null;
  for (const b of blocks) {
    const want = b.kind === 'item' ? (b.ordered ? 'ol' : 'ul') : null;
    if (list && list !== want) {
      out += `</${list}>`;
      list = null;
    }
    if (want && !list) {
      out += `<${want}>`;
      list = want;
    }
    if (b.kind === 'heading') {
      const h = headingLevel(b.size);
      out += `<h${h}>${esc(b.text)}</h${h}>`;
    } else if (b.kind === 'para') out += `<p>${esc(b.text)}</p>`;
    else if (b.kind === 'item') out += `<li>${esc(b.text)}</li>`;
    else out += tableHtml(b.rows);
  }
  return list ? `${out}</${list}>` : out;
};

/** `D:20240301100000Z` or `D:20240301100000+01'00'` as ISO 8601; null when it is not a date. */
export const pdfDate = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  if (/^\d{4}-\d{2}/.test(value.trim())) return isoDate(value);
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?/.exec(value.trim());
  if (!m) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', tz] = m;
  const zone = !tz || tz === 'Z' ? 'Z' : `${tz.slice(0, 3)}:${tz.replace(/'/g, '').slice(3, 5) || '00'}`;
  const at = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
};

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim().slice(0, 1000) : null);

/**
 * A PDF as semantic HTML: each page a section, headings found by font size (the most common size
 * is the body's; larger lines are headings, the largest h1), tables where the text of several
 * lines starts at the same columns, lists by their bullets or numbers. A PDF that needs a
 * password, or whose pages hold images and no text (a scan), is refused with the reason.
 */
export const readPdf = async (bytes: Uint8Array): Promise<DocumentBody> => {
  const { getDocumentProxy, getResolvedPDFJS } = await loadPdfJs();
  const { OPS } = await getResolvedPDFJS();
  const body: DocumentBody = { html: '', meta: emptyMeta(), pages: null, pagesRead: null, links: [], warnings: [] };
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // No system fonts, no font faces, nothing fetched: the bytes are hostile (pdf.js 6 does not
    // eval font programs at all).
    pdf = await getDocumentProxy(bytes, {
      useSystemFonts: false,
      disableFontFace: true,
      stopAtErrors: false,
      verbosity: 0,
    });
  } catch (err) {
    const name = (err as { name?: string }).name;
    if (name === 'PasswordException')
      return {
        ...body,
        refusal: { signal: 'encrypted pdf', reason: 'the PDF is encrypted: it opens only with a password' },
      };
    throw new Error(`the PDF could not be read: ${(err as Error).message}`);
  }
  try {
    const pages = pdf.numPages;
    const read = Math.min(pages, DOCUMENT_LIMITS.pages);
    body.pages = pages;
    body.pagesRead = read;
    if (read < pages) body.warnings.push(`document truncated: the first ${read} of ${pages} pages were read`);
    body.meta = await pdfMeta(pdf);

    const pageLines: Line[][] = [];
    const imageOnly: number[] = [];
    const sizes = new Map<number, number>();
    for (let n = 1; n <= read; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      const runs: Run[] = [];
      for (const item of content.items) {
        if (!('str' in item) || !item.str) continue;
        const [a, b, , , x, y] = item.transform as number[];
        const size = Math.round(Math.hypot(a!, b!) * 10) / 10;
        runs.push({ text: item.str, x: x!, y: y!, width: item.width, size });
        if (item.str.trim()) sizes.set(size, (sizes.get(size) ?? 0) + item.str.length);
      }
      const lines = linesOf(runs);
      pageLines.push(lines);
      if (!lines.length) {
        const ops = await page.getOperatorList();
        if (ops.fnArray.some((op) => op === OPS.paintImageXObject || op === OPS.paintInlineImageXObject))
          imageOnly.push(n);
      }
      for (const annotation of await page.getAnnotations())
        if (typeof annotation.url === 'string' && /^https?:/i.test(annotation.url)) body.links.push(annotation.url);
      page.cleanup();
    }

    const textPages = pageLines.filter((l) => l.length).length;
    if (!textPages) {
      return imageOnly.length
        ? {
            ...body,
            refusal: {
              signal: 'image-only pdf',
              reason: `the PDF has no text layer: its ${read === 1 ? 'page is an image' : `${read} pages are images`} (a scan); OCR is not done`,
            },
          }
        : { ...body, refusal: { signal: 'no text', reason: 'the PDF has no text on its pages' } };
    }
    if (imageOnly.length)
      body.warnings.push(
        `${imageOnly.length} of ${read} pages are images without text (scanned; OCR is not done): ${imageOnly.slice(0, 10).join(', ')}${imageOnly.length > 10 ? ', …' : ''}`,
      );

    // The body's size is the one most text is set in; larger sizes are heading levels, largest first.
    const bodySize = [...sizes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 10;
    const pageBlocks = pageLines.map((lines) => blocksOf(lines, bodySize));
    const headingSizes = [...new Set(pageBlocks.flat().flatMap((b) => (b.kind === 'heading' ? [b.size] : [])))].sort(
      (a, b) => b - a,
    );
    const level = (size: number) => Math.min(6, headingSizes.indexOf(size) + 1);
    body.html = pageBlocks
      .map((blocks, i) => `<section data-page="${i + 1}">${blocksHtml(blocks, level)}</section>`)
      .join('<hr>');
    return body;
  } finally {
    await pdf.loadingTask.destroy();
  }
};

const pdfMeta = async (pdf: {
  getMetadata(): Promise<{ info: unknown; metadata: unknown }>;
}): Promise<DocumentMeta> => {
  const { info, metadata } = await pdf.getMetadata().catch(() => ({ info: {}, metadata: null }));
  const i = (info ?? {}) as Record<string, unknown>;
  const xmp = metadata as { get?: (name: string) => unknown } | null;
  const fromXmp = (name: string) => str(xmp?.get?.(name));
  return {
    title: str(i.Title) ?? fromXmp('dc:title'),
    author: str(i.Author) ?? fromXmp('dc:creator'),
    subject: str(i.Subject) ?? fromXmp('dc:description'),
    language: str(i.Language),
    created: pdfDate(i.CreationDate) ?? pdfDate(fromXmp('xmp:createdate')),
    modified: pdfDate(i.ModDate) ?? pdfDate(fromXmp('xmp:modifydate')),
  };
};
