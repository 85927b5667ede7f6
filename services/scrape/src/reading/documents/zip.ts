import { unzipSync } from 'fflate';
import { DOCUMENT_LIMITS } from './limits.js';

/** A zip-based document whose entries would inflate past the bounds. */
export class DocumentTooLarge extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentTooLarge';
  }
}

/**
 * The entries of a zip-based document that `want` names, inflated, after the whole package is
 * checked against the bounds by the sizes its directory declares (the count of entries and
 * what they inflate to). fflate inflates each wanted entry into a buffer of its declared size,
 * and the thread's heap limit and time budget stand behind that.
 */
export const unzipBounded = (bytes: Uint8Array, want: (name: string) => boolean): Map<string, Uint8Array> => {
  let entries = 0;
  let inflated = 0;
  const files = unzipSync(bytes, {
    filter: (file) => {
      entries += 1;
      inflated += file.originalSize;
      if (entries > DOCUMENT_LIMITS.zipEntries)
        throw new DocumentTooLarge(`the document has more than ${DOCUMENT_LIMITS.zipEntries} parts`);
      if (inflated > DOCUMENT_LIMITS.inflatedBytes)
        throw new DocumentTooLarge(
          `the document inflates to more than ${DOCUMENT_LIMITS.inflatedBytes / 1024 / 1024} MB (a zip bomb, or too large to read)`,
        );
      return want(file.name);
    },
  });
  return new Map(Object.entries(files));
};

export const utf8 = (bytes: Uint8Array | undefined): string => (bytes ? new TextDecoder().decode(bytes) : '');
