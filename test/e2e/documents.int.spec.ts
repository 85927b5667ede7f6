import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import {
  CONTENT_TYPES,
  DOCX_META,
  encryptedPdf,
  harbourOdt,
  harbourPptx,
  harbourXlsx,
  mooringDocx,
  OFFICE_META,
  PDF_META,
  scannedPdf,
  tidePdf,
} from '../support/documents.js';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

/** A PDF of `pages` pages, a paragraph on each: for pricing by the page. */
const longPdf = async (pages: number): Promise<Buffer> => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= pages; i++)
    doc.addPage([595, 842]).drawText(`Page ${i} of the harbour almanac: tides, lights and moorings.`, {
      x: 50,
      y: 780,
      size: 11,
      font,
    });
  return Buffer.from(await doc.save());
};

describe('documents through the fleet (PDF, DOCX, PPTX, XLSX, ODT, RTF read at the http rung)', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;

  beforeAll(async () => {
    web = await startTestWeb();
    const [pdf, docx, scan, long] = await Promise.all([tidePdf(), mooringDocx(), scannedPdf(), longPdf(23)]);
    const rtf = Buffer.from(
      '{\\rtf1\\ansi{\\fonttbl{\\f0 Arial;}}{\\info{\\title Harbour notice}{\\author Harbour office}' +
        '{\\creatim\\yr2024\\mo2\\dy3}}{\\pard\\outlinelevel0 Notice to mariners\\par}' +
        "\\pard The caf\\'e9 on the quay opens at nine every day of the season.\\par}",
      'latin1',
    );
    const link = (href: string, text: string) => `<li><a href="${href}">${text}</a></li>`;
    web.addSite('docs.test', {
      '/': {
        type: 'text/html; charset=utf-8',
        body:
          '<!doctype html><html lang="en"><head><title>Harbour documents</title></head><body><main>' +
          '<h1>Harbour documents</h1><p>Everything the harbour office publishes, as documents.</p><ul>' +
          link('/tides.pdf', 'Tide tables') +
          link('/mooring.docx', 'Mooring guide') +
          link('/notice.rtf', 'Notice') +
          '</ul></main></body></html>',
      },
      '/tides.pdf': { type: CONTENT_TYPES.pdf, body: pdf },
      // A document answered with a generic type is still read: its bytes say what it is.
      '/mooring.docx': { type: 'application/octet-stream', body: docx },
      '/notice.rtf': { type: CONTENT_TYPES.rtf, body: rtf },
      '/locked.pdf': { type: CONTENT_TYPES.pdf, body: encryptedPdf() },
      '/scan.pdf': { type: CONTENT_TYPES.pdf, body: scan },
      '/almanac.pdf': { type: CONTENT_TYPES.pdf, body: long },
      '/briefing.pptx': { type: CONTENT_TYPES.pptx, body: harbourPptx() },
      '/fees.xlsx': { type: CONTENT_TYPES.xlsx, body: harbourXlsx() },
      '/rules.odt': { type: CONTENT_TYPES.odt, body: harbourOdt() },
    });
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50' });
    const ws = await t.createWorkspace('documents');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
  });

  const scrape = async (path: string, extra: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/scrape', {
      key,
      body: { url: web.url('docs.test', path), formats: 'markdown,text,links', ...extra },
    });
    expect([path, res.status]).toEqual([path, 200]);
    return { res, page: res.body.data[0] };
  };

  it('reads a PDF into markdown with its headings, list, table and page break, and its head from the metadata', async () => {
    const { res, page } = await scrape('/tides.pdf');
    expect(page).toMatchObject({
      verdict: 'ok',
      errorCode: 'OK',
      method: 'http',
      tier: 'http',
      climbedTo: 'http',
      credits: 1,
      language: 'en',
    });
    expect(page.signals).toEqual(expect.arrayContaining(['document pdf', '2 pages']));
    expect(res.headers.get('x-service-credits')).toBe('1');
    const md: string = page.markdown;
    expect(md).toMatch(/^# Tide tables$/m);
    expect(md).toMatch(/^## Before you sail$/m);
    expect(md).toMatch(/^- Read the notices to mariners$/m);
    expect(md).toContain('| Day | High water | Low water |');
    expect(md).toContain('| Tuesday | 06:58 | 13:15 |');
    expect(md).toMatch(/^---\n\n<!-- page 2 -->\n\n## Storm surges$/m);
    expect(page.text).toContain('oystercatchers feed');
    expect(page.text).not.toContain('<!--');
    expect(page.words).toBeGreaterThan(100);
    expect(page.head).toMatchObject({
      title: PDF_META.title,
      author: PDF_META.author,
      description: 'High and low water for the spring season',
      created: PDF_META.created.toISOString(),
      modified: PDF_META.modified.toISOString(),
      document: { type: 'pdf', contentType: 'application/pdf', parsed: true, pages: 2, pagesRead: 2 },
    });
    // Not the raw source in a <pre>, as before documents were read.
    expect(md).not.toContain('%PDF');
  });

  it('reads a DOCX answered as application/octet-stream: headings, list, table, title and author', async () => {
    const { page } = await scrape('/mooring.docx');
    expect(page).toMatchObject({ verdict: 'ok', errorCode: 'OK', method: 'http', credits: 1 });
    const md: string = page.markdown;
    expect(md).toMatch(/^# Mooring guide$/m);
    expect(md).toMatch(/^## What to bring$/m);
    expect(md).toMatch(/^- Fenders on both sides$/m);
    expect(md).toContain('| Under 10 m | £28 |');
    expect(page.head).toMatchObject({
      title: DOCX_META.title,
      author: DOCX_META.author,
      document: { type: 'docx', parsed: true },
    });
    expect(Date.parse(page.head.created)).not.toBeNaN();
  });

  it('reads an RTF, short as it is: thin with its heading and info group', async () => {
    const { page } = await scrape('/notice.rtf');
    expect(page).toMatchObject({ verdict: 'thin', errorCode: 'OK', warnings: ['short'] });
    expect(page.markdown).toMatch(/^# Notice to mariners$/m);
    expect(page.markdown).toContain('The café on the quay opens at nine');
    expect(page.head).toMatchObject({
      title: 'Harbour notice',
      author: 'Harbour office',
      created: '2024-02-03T00:00:00.000Z',
    });
  });

  it('reads a PPTX, an XLSX and an ODT: slides as pages, a sheet as a table, headings, lists and metadata', async () => {
    const slides = (await scrape('/briefing.pptx')).page;
    expect(slides).toMatchObject({ errorCode: 'OK', method: 'http', credits: 1 });
    expect(slides.signals).toEqual(expect.arrayContaining(['document pptx', '2 slides']));
    expect(slides.markdown).toMatch(
      /^## Tides$[\s\S]*^- Neap tides at half moon$[\s\S]*<!-- page 2 -->\n\n## Moorings$/m,
    );
    expect(slides.head).toMatchObject({
      title: OFFICE_META.title,
      author: OFFICE_META.author,
      created: OFFICE_META.created,
      document: { type: 'pptx', contentType: CONTENT_TYPES.pptx, parsed: true, pages: 2 },
    });

    const sheet = (await scrape('/fees.xlsx')).page;
    expect(sheet).toMatchObject({ errorCode: 'OK', method: 'http', credits: 1 });
    expect(sheet.markdown).toMatch(/^## Fees$/m);
    expect(sheet.markdown).toContain('| Length | Per night |');
    expect(sheet.markdown).toContain('| 10 to 15 m | 36 |');
    expect(sheet.head).toMatchObject({ title: OFFICE_META.title, document: { type: 'xlsx', parsed: true } });

    const text = (await scrape('/rules.odt')).page;
    expect(text).toMatchObject({ errorCode: 'OK', method: 'http', credits: 1 });
    expect(text.markdown).toMatch(/^# Harbour rules$/m);
    expect(text.markdown).toMatch(/^- No anchoring in the fairway$/m);
    expect(text.markdown).toContain('| Inner | 5 kn |');
    expect(text.text).toContain('Keep to five knots inside the harbour walls');
    expect(text.head).toMatchObject({
      title: 'Rules of the harbour',
      author: 'Harbour office',
      document: { type: 'odt', parsed: true },
    });
  });

  it('refuses an encrypted PDF with the reason, without climbing', async () => {
    const { page } = await scrape('/locked.pdf');
    expect(page).toMatchObject({
      verdict: 'blocked',
      errorCode: 'BLOCKED',
      method: 'http',
      climbedTo: 'http',
      words: 0,
      reason: 'the PDF is encrypted: it opens only with a password',
    });
    expect(page.signals).toContain('encrypted pdf');
  });

  it('says an image-only PDF is a scan with no text layer (no OCR), keeping its metadata', async () => {
    const { page } = await scrape('/scan.pdf');
    expect(page).toMatchObject({ verdict: 'blocked', errorCode: 'BLOCKED', climbedTo: 'http', words: 0 });
    expect(page.signals).toContain('image-only pdf');
    expect(page.reason).toMatch(/no text layer.*scan.*OCR is not done/);
    expect(page.head).toMatchObject({ title: 'Scanned harbour notice', document: { type: 'pdf', pages: 1 } });
  });

  it('prices a document per started ten pages, and maxCredits stops one that costs more', async () => {
    const { res, page } = await scrape('/almanac.pdf');
    expect(page).toMatchObject({ verdict: 'ok', credits: 3, head: { document: { pages: 23 } } });
    expect(res.headers.get('x-service-credits')).toBe('3');
    expect(page.markdown.match(/<!-- page \d+ -->/g)).toHaveLength(22);

    const capped = await scrape('/almanac.pdf', { maxCredits: 2 });
    expect(capped.page).toMatchObject({ verdict: 'blocked', errorCode: 'BUDGET_EXHAUSTED', credits: 0 });
    expect(capped.page.reason).toBe("the document's 23 pages cost 3 credits; maxCredits is 2");
    expect(capped.page.markdown).toBeUndefined();
  });

  it('keeps only the bytes’ metadata with parse_documents false, at the price of an http page', async () => {
    const { page } = await scrape('/tides.pdf', { config: { parse_documents: false } });
    expect(page).toMatchObject({ verdict: 'ok', errorCode: 'OK', credits: 1, words: 0, markdown: '' });
    expect(page.warnings.join(' ')).toMatch(/document not parsed: parse_documents is false/);
    expect(page.head.document).toMatchObject({ type: 'pdf', contentType: 'application/pdf', parsed: false });
    expect(page.head.document.bytes).toBeGreaterThan(1000);
    expect(page.head.title).toBeNull();
  });

  it('GET /meta states the document price and the parse_documents key', async () => {
    const meta = (await t.call('GET', '/meta', { key })).body;
    expect(meta.credits.documents).toMatchObject({
      pagesPerCredit: 10,
      wordsPerPage: 500,
      maxPages: 500,
      formats: ['pdf', 'docx', 'pptx', 'xlsx', 'odt', 'rtf'],
    });
    expect(meta.config.keys.content.parse_documents).toMatchObject({ default: true });
  });

  it('a crawl follows links to documents and reads them', async () => {
    const res = await t.call('POST', '/crawl', {
      key,
      body: { url: web.url('docs.test', '/'), limit: 10, scrapeOptions: { formats: ['markdown'] } },
    });
    expect(res.status).toBe(202);
    let status = '';
    for (let i = 0; i < 600 && !['done', 'failed', 'cancelled'].includes(status); i++) {
      status = (await t.call('GET', `/crawl/${res.body.id}?formats=&limit=1`, { key })).body.status;
      if (status !== 'done') await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe('done');
    const rows = (await t.call('GET', `/crawl/${res.body.id}?limit=10&formats=markdown`, { key })).body.data as {
      url: string;
      verdict: string;
      markdown?: string;
      head?: { title?: string };
    }[];
    const byPath = Object.fromEntries(rows.map((r) => [new URL(r.url).pathname, r]));
    expect(Object.keys(byPath).sort()).toEqual(['/', '/mooring.docx', '/notice.rtf', '/tides.pdf']);
    expect(byPath['/tides.pdf']).toMatchObject({ verdict: 'ok' });
    expect(byPath['/tides.pdf']!.markdown).toContain('| Monday | 06:12 | 12:30 |');
    expect(byPath['/mooring.docx']!.markdown).toMatch(/^# Mooring guide$/m);
    expect(byPath['/notice.rtf']).toMatchObject({ verdict: 'thin' });
  });
});
