import { absoluteUrl, isHttp } from './urls.js';

/**
 * Every http(s) link of the whole page (not only the main content), absolute, without
 * #fragments, de-duplicated, in document order.
 */
export function collectLinks(doc: Document, url: string): string[] {
  const seen = new Set<string>();
  for (const a of Array.from(doc.querySelectorAll('a[href], area[href]'))) {
    const abs = absoluteUrl(a.getAttribute('href'), url);
    if (!abs || !isHttp(abs)) continue;
    const hash = abs.indexOf('#');
    seen.add(hash === -1 ? abs : abs.slice(0, hash));
  }
  return [...seen];
}
