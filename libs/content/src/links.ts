import { absoluteUrl, isHttp } from './urls.js';

/**
 * Every http(s) link of the whole page (not only the main content), absolute, without
 * #fragments, de-duplicated, in document order. `anchors`: the page's a[href] and area[href]
 * when already found (scanPage).
 */
export function collectLinks(doc: Document, url: string, anchors?: Element[]): string[] {
  const seen = new Set<string>();
  for (const a of anchors ?? Array.from(doc.querySelectorAll('a[href], area[href]'))) {
    const abs = absoluteUrl(a.getAttribute('href'), url);
    if (!abs || !isHttp(abs)) continue;
    const hash = abs.indexOf('#');
    seen.add(hash === -1 ? abs : abs.slice(0, hash));
  }
  return [...seen];
}
