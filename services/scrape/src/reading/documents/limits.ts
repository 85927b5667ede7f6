import { DOCUMENT_PRICING } from '@tidemark/contracts';

/**
 * What one document may make the reader do, beyond the per-page time budget
 * (SCRAPE_READ_BUDGET_MS, which ends the thread) and the http rung's body cap
 * (SCRAPE_MAX_BODY_BYTES, which a document shares with every page).
 */
export const DOCUMENT_LIMITS = {
  /** PDF pages or slides read; the rest are left (a warning says so) and not priced. */
  pages: DOCUMENT_PRICING.maxPages,
  /** Bytes a zip-based document (DOCX, PPTX, XLSX, ODT) may inflate to in all: a zip bomb stops here. */
  inflatedBytes: 64 * 1024 * 1024,
  /** Entries of a zip-based document. */
  zipEntries: 10_000,
  /** Rows read of one spreadsheet sheet, and sheets read. */
  sheetRows: 2_000,
  sheets: 50,
} as const;
