export const when = (iso: string | null | undefined): string => {
  if (!iso) return '—';
  const d = new Date(iso);
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
};

export const num = (n: number | null | undefined): string => (n === null || n === undefined ? '—' : n.toLocaleString());

export const pct = (share: number): string => `${Math.round(share * 100)}%`;

/** A URL without its scheme and host when it is on `host` (lists of one site's pages). */
export const shortUrl = (url: string): string => {
  try {
    const u = new URL(url);
    return u.pathname + u.search || '/';
  } catch {
    return url;
  }
};
