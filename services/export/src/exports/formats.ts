/** A row as an ordered record: the columns of a dataset, each with its value. */
export type Row = Record<string, unknown>;

/** Turns rows into lines of one file format: a header once, then one piece of text per row. */
export interface RowWriter {
  header(): string;
  row(row: Row): string;
}

/**
 * One CSV cell's text: null and absent are empty, strings as they are, numbers and booleans
 * printed, anything nested (arrays, objects) as its JSON.
 */
export const csvText = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
};

/** RFC 4180: a field with a quote, comma, CR or LF is quoted, its quotes doubled. */
export const csvField = (text: string): string => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/** What a spreadsheet may read as the start of a formula (OWASP, "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One cell: text (from a page, a field name, a user) that starts like a formula is neutralised
 * as OWASP advises: a single quote in front, and the cell quoted, so a spreadsheet shows it as
 * text and runs nothing. Numbers and booleans Tidemark prints itself are left as they are (-3 is
 * a number, not a formula).
 */
export const csvCell = (value: unknown): string => {
  const text = csvText(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) return `"'${text.replace(/"/g, '""')}"`;
  return csvField(text);
};

/** One CSV record, CRLF-terminated (RFC 4180). */
export const csvLine = (values: unknown[]): string => `${values.map(csvCell).join(',')}\r\n`;

/** CSV with a header row of `columns`; each row gives those columns, in that order. */
export const csvWriter = (columns: string[]): RowWriter => ({
  header: () => csvLine(columns),
  row: (row) => csvLine(columns.map((c) => row[c])),
});

/** JSON Lines: one JSON object per line, no header; absent columns are null, not dropped. */
export const jsonlWriter = (columns: string[]): RowWriter => ({
  header: () => '',
  row: (row) => `${JSON.stringify(Object.fromEntries(columns.map((c) => [c, row[c] ?? null])))}\n`,
});
