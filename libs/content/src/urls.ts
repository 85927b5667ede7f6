/** Resolves a link against the page URL; null for junk (javascript:, empty, unparsable). */
export function absoluteUrl(href: string | null | undefined, base: string): string | null {
  if (!href) return null;
  const trimmed = href.trim();
  if (!trimmed || /^(javascript|vbscript):/i.test(trimmed)) return null;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return null;
  }
}

/** Like absoluteUrl but keeps the original text when it cannot be resolved (markdown stays readable). */
export function absoluteOrSame(href: string, base: string): string {
  return absoluteUrl(href, base) ?? href;
}

export const isHttp = (url: string): boolean => url.startsWith('http://') || url.startsWith('https://');

/** Resolves links against one base, each distinct href once (pages repeat their links). */
export type UrlResolver = (href: string) => string | null;

export function urlResolver(base: string): UrlResolver {
  const seen = new Map<string, string | null>();
  return (href) => {
    let abs = seen.get(href);
    if (abs === undefined) {
      abs = absoluteUrl(href, base);
      seen.set(href, abs);
    }
    return abs;
  };
}
