import type { DOCUMENT_PRICING } from '@tidemark/contracts';
import { unzipSync } from 'fflate';

/** The documents the http rung hands to the reader as bytes (issue 16, item 7). */
export type DocumentType = (typeof DOCUMENT_PRICING.formats)[number];

const BY_CONTENT_TYPE: Record<string, DocumentType> = {
  'application/pdf': 'pdf',
  'application/x-pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/rtf': 'rtf',
  'text/rtf': 'rtf',
};

/** The part of an OOXML package that names its kind. */
const OOXML_PARTS: [string, DocumentType][] = [
  ['word/document.xml', 'docx'],
  ['ppt/presentation.xml', 'pptx'],
  ['xl/workbook.xml', 'xlsx'],
];
const ODT_MIMETYPE = 'application/vnd.oasis.opendocument.text';

const startsWith = (bytes: Uint8Array, text: string, at = 0) => {
  if (bytes.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
};

/**
 * The zip's kind from its entry names alone (nothing is inflated but an ODF package's
 * `mimetype`, which the format stores first and uncompressed, a few dozen bytes).
 */
const zipKind = (bytes: Uint8Array): DocumentType | null => {
  // ODF: the first entry is `mimetype`, stored, its content right after the 38-byte local header.
  if (startsWith(bytes, 'mimetype', 30) && startsWith(bytes, ODT_MIMETYPE, 38)) return 'odt';
  let kind: DocumentType | null = null;
  try {
    unzipSync(bytes, {
      filter: (file) => {
        const hit = OOXML_PARTS.find(([part]) => file.name === part);
        if (hit && !kind) kind = hit[1];
        return false;
      },
    });
  } catch {
    return null;
  }
  return kind;
};

/**
 * Whether a body is a document this service reads, and which: the magic bytes first (`%PDF-`,
 * a zip holding `word/`, `ppt/`, `xl/` or an ODF text `mimetype`, `{\rtf`), the Content-Type
 * when the bytes say nothing (a zip answered as a DOCX is still checked to be one). Markup is
 * never a document, whatever its Content-Type says.
 */
export const detectDocument = (contentType: string, bytes: Uint8Array): DocumentType | null => {
  const declared = BY_CONTENT_TYPE[contentType.split(';')[0]!.trim().toLowerCase()] ?? null;
  // A PDF may carry up to 1 KB of junk before its header (readers accept it; so do we).
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
  if (head.startsWith('%PDF-') || (declared === 'pdf' && head.includes('%PDF-'))) return 'pdf';
  if (head.startsWith('{\\rtf')) return 'rtf';
  if (startsWith(bytes, 'PK\x03\x04')) return zipKind(bytes);
  return null;
};
