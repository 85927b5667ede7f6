import { emptyMeta, esc, tableHtml, type DocumentBody } from './types.js';

/** Groups whose text is not the document's (fonts, styles, pictures, fields' instructions, …). */
const SKIPPED = new Set([
  'fonttbl',
  'colortbl',
  'stylesheet',
  'listtable',
  'listoverridetable',
  'revtbl',
  'rsidtbl',
  'generator',
  'pict',
  'object',
  'header',
  'footer',
  'headerl',
  'headerr',
  'footerl',
  'footerr',
  'footnote',
  'fldinst',
  'themedata',
  'colorschememapping',
  'datastore',
  'latentstyles',
  'xmlnstbl',
  'pntext',
  'pntxta',
  'pntxtb',
  // \info is read for its title, author, subject and dates only (see INFO_FIELDS).
  'info',
]);
const INFO_FIELDS = new Set(['title', 'author', 'subject']);
const DATE_FIELDS = new Set(['creatim', 'revtim']);
const cp1252 = new TextDecoder('windows-1252');

interface State {
  skip: boolean;
  /** Characters after \uN that stand for it in readers without Unicode. */
  uc: number;
  field?: string;
}

/**
 * An RTF document: paragraphs, headings where a paragraph carries an outline level, tables from
 * \cell and \row, and the \info group's title, author, subject and dates. Nothing embedded
 * (pictures, objects) is read.
 */
export const readRtf = (bytes: Uint8Array): DocumentBody => {
  const src = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const meta = emptyMeta();
  const info: Record<string, string> = {};
  const dates: Record<string, Record<string, number>> = {};
  const stack: State[] = [];
  let state: State = { skip: false, uc: 1 };
  let html = '';
  let para = '';
  let heading = 0;
  let inTable = false;
  let cell = '';
  let row: string[] = [];
  let rows: string[][] = [];
  let pendingSkip = 0;

  const emit = (text: string) => {
    if (pendingSkip > 0) {
      const cut = Math.min(pendingSkip, text.length);
      pendingSkip -= cut;
      text = text.slice(cut);
    }
    if (!text) return;
    if (state.field) info[state.field] = (info[state.field] ?? '') + text;
    else if (!state.skip) {
      if (inTable) cell += text;
      else para += text;
    }
  };
  const flushTable = () => {
    if (rows.length) html += tableHtml(rows);
    rows = [];
  };
  const endParagraph = () => {
    const text = para.replace(/\s+/g, ' ').trim();
    para = '';
    if (!text) return;
    flushTable();
    html += heading ? `<h${heading}>${esc(text)}</h${heading}>` : `<p>${esc(text)}</p>`;
  };

  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (ch === '{') {
      stack.push(state);
      state = { ...state };
      continue;
    }
    if (ch === '}') {
      state = stack.pop() ?? { skip: false, uc: 1 };
      continue;
    }
    if (ch === '\r' || ch === '\n') continue;
    if (ch !== '\\') {
      emit(ch);
      continue;
    }
    const next = src[i + 1] ?? '';
    if (next === "'") {
      emit(cp1252.decode(Uint8Array.of(parseInt(src.slice(i + 2, i + 4), 16) || 63)));
      i += 3;
      continue;
    }
    if (next === '*') {
      state.skip = true;
      i += 1;
      continue;
    }
    if (!/[a-z]/i.test(next)) {
      i += 1;
      if (next === '\\' || next === '{' || next === '}') emit(next);
      else if (next === '~') emit('\u00a0');
      else if (next === '\n' || next === '\r') endParagraph();
      continue;
    }
    const m = /^([a-z]{1,32})(-?\d{1,10})? ?/i.exec(src.slice(i + 1, i + 48))!;
    i += m[0].length;
    const word = m[1]!;
    const arg = m[2] === undefined ? null : Number(m[2]);
    if (SKIPPED.has(word)) state.skip = true;
    else if (INFO_FIELDS.has(word)) state.field = word;
    else if (DATE_FIELDS.has(word)) state.field = `date:${word}`;
    else if (state.field?.startsWith('date:') && ['yr', 'mo', 'dy', 'hr', 'min'].includes(word) && arg !== null)
      (dates[state.field.slice(5)] ??= {})[word] = arg;
    else if (word === 'par' || word === 'line' || word === 'sect' || word === 'page') {
      if (!state.skip && !state.field) {
        if (inTable) cell += ' ';
        else endParagraph();
      }
    } else if (word === 'tab') emit(' ');
    else if (word === 'uc' && arg !== null) state.uc = arg;
    else if (word === 'u' && arg !== null) {
      emit(String.fromCharCode(arg < 0 ? arg + 65536 : arg));
      pendingSkip = state.uc;
    } else if (word === 'pard') {
      heading = 0;
      inTable = false;
    } else if (word === 'outlinelevel' && arg !== null) heading = Math.min(6, arg + 1);
    else if (word === 'intbl') {
      if (para.trim()) endParagraph();
      inTable = true;
    } else if (word === 'cell') {
      row.push(cell.replace(/\s+/g, ' ').trim());
      cell = '';
    } else if (word === 'row') {
      if (row.length) rows.push(row);
      row = [];
      inTable = false;
    } else if (word === 'emdash') emit('—');
    else if (word === 'endash') emit('–');
    else if (word === 'bullet') emit('•');
    else if (word === 'lquote' || word === 'rquote') emit(word === 'lquote' ? '‘' : '’');
    else if (word === 'ldblquote' || word === 'rdblquote') emit(word === 'ldblquote' ? '“' : '”');
  }
  endParagraph();
  flushTable();

  const clean = (v: string | undefined) => v?.replace(/\s+/g, ' ').trim() || null;
  const date = (d: Record<string, number> | undefined) => {
    if (!d?.yr) return null;
    const at = new Date(Date.UTC(d.yr, (d.mo ?? 1) - 1, d.dy ?? 1, d.hr ?? 0, d.min ?? 0));
    return Number.isNaN(at.getTime()) ? null : at.toISOString();
  };
  meta.title = clean(info.title);
  meta.author = clean(info.author);
  meta.subject = clean(info.subject);
  meta.created = date(dates.creatim);
  meta.modified = date(dates.revtim);
  return { html, meta, pages: null, pagesRead: null, links: [], warnings: [] };
};
