import type { Page } from 'puppeteer-core';
import { RenderError } from './render-errors.js';

type Serialized = { html: string } | { tooLarge: number };

/**
 * page.content(), with a cap: the document serialized in the page as puppeteer does it (each
 * top-level node, the root element by its outerHTML), measured there in UTF-8 bytes, and only
 * sent here when it fits. Scripts can build a DOM far larger than the response the http rung
 * reads under the same cap, and an uncapped string would cross CDP and sit in this process.
 */
export const readPageHtml = async (page: Page, maxBytes: number, url: string): Promise<string> => {
  const got = await page.evaluate((max: number): Serialized => {
    let content = '';
    try {
      for (const node of Array.from(document.childNodes)) {
        content +=
          node === document.documentElement
            ? document.documentElement.outerHTML
            : new XMLSerializer().serializeToString(node);
        // Every UTF-16 unit is at least one UTF-8 byte: past the cap already.
        if (content.length > max) return { tooLarge: content.length };
      }
    } catch {
      // Too large for one string (V8's own limit).
      return { tooLarge: max + 1 };
    }
    let bytes = 0;
    for (let i = 0; i < content.length; i++) {
      const c = content.charCodeAt(i);
      // A surrogate pair is 4 bytes: 2 for each half.
      bytes += c < 0x80 ? 1 : c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3;
    }
    return bytes > max ? { tooLarge: bytes } : { html: content };
  }, maxBytes);
  if ('html' in got) return got.html;
  throw new RenderError(
    'too_large',
    `the rendered page at ${url} is larger than ${maxBytes} bytes (at least ${got.tooLarge}), the cap on a page's HTML`,
    { url, maxBytes },
  );
};
