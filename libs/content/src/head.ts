import type { PageScan } from './dom-walk.js';
import type { Head } from './types.js';
import { absoluteUrl } from './urls.js';

const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();
const nonEmpty = (s: string | null | undefined): string | null => {
  const v = s == null ? '' : collapse(s);
  return v ? v : null;
};

/**
 * Reads what the page says about itself. Runs before cleaning because JSON-LD lives in
 * <script> elements that cleaning removes.
 */
export function readHead(
  doc: Document,
  url: string,
  contentLanguage?: string | null,
  scan?: Pick<PageScan, 'title' | 'headData'>,
): Head {
  const head: Head = {
    title: nonEmpty((scan ? scan.title : doc.querySelector('title'))?.textContent),
    description: null,
    canonical: null,
    robots: null,
    lang: nonEmpty(doc.documentElement?.getAttribute('lang')) ?? nonEmpty(contentLanguage),
    openGraph: {},
    twitter: {},
    jsonLd: [],
    hreflang: [],
  };
  // One pass over the few elements that carry head data; pages put some of them in <body>.
  for (const el of scan ? scan.headData : Array.from(doc.querySelectorAll('meta, link[rel], script[type]'))) {
    const tag = el.localName;
    if (tag === 'meta') readMeta(el, head);
    else if (tag === 'link') readLink(el, head, url);
    else if (/^application\/ld\+json$/i.test((el.getAttribute('type') ?? '').trim())) readJsonLd(el, head);
  }
  return head;
}

function readMeta(el: Element, head: Head): void {
  const key = (el.getAttribute('property') ?? el.getAttribute('name') ?? '').trim();
  const content = el.getAttribute('content');
  if (content == null) {
    return;
  }
  const lower = key.toLowerCase();
  if (lower === 'description') head.description ??= nonEmpty(content);
  else if (lower === 'robots') head.robots ??= nonEmpty(content);
  else if (lower.startsWith('og:')) head.openGraph[lower] ??= content.trim();
  else if (lower.startsWith('twitter:')) head.twitter[lower] ??= content.trim();
  else if (!key && /^content-language$/i.test(el.getAttribute('http-equiv') ?? '')) head.lang ??= nonEmpty(content);
}

function readLink(el: Element, head: Head, url: string): void {
  const rel = (el.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
  const href = absoluteUrl(el.getAttribute('href'), url);
  if (!href) return;
  if (rel.includes('canonical')) head.canonical ??= href;
  const hreflang = el.getAttribute('hreflang');
  if (rel.includes('alternate') && hreflang) head.hreflang.push({ lang: hreflang.trim(), href });
}

function readJsonLd(el: Element, head: Head): void {
  // Sites wrap JSON-LD in CDATA or HTML comments now and then; an invalid block is skipped.
  const raw = (el.textContent ?? '')
    .trim()
    .replace(/^<!--|-->$/g, '')
    .replace(/^\/\*<!\[CDATA\[\*\/|\/\*\]\]>\*\/$/g, '')
    .trim();
  if (!raw) return;
  try {
    head.jsonLd.push(JSON.parse(raw));
  } catch {
    // not JSON: nothing to report, the page row keeps the valid blocks
  }
}
