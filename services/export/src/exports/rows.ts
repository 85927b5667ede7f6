import type { StoredEntry, StoredPage } from '../repositories/run-export.repository.js';
import type { Row } from './formats.js';

/** The part of a page's head an export reads. */
export type Head = {
  title?: string | null;
  description?: string | null;
  canonical?: string | null;
  openGraph?: Record<string, string>;
  jsonLd?: unknown[];
};

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const headOf = (data: Record<string, unknown>): Head | null => (data.head as Head | null | undefined) ?? null;

/** A page's description: its meta description, else its Open Graph one. */
export const descriptionOf = (head: Head | null): string | null =>
  str(head?.description) ?? str(head?.openGraph?.['og:description']);

const originOf = (url: string): string | null => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/** A row of the pages dataset: the stored row without bodies, and the link graph. */
export const pageRow = (p: StoredPage, runHasSitemap: boolean): Row => {
  const d = p.data;
  const head = headOf(d);
  const graph = p.foundVia !== null;
  return {
    url: p.url,
    status: p.status,
    httpStatus: p.httpStatus,
    verdict: p.verdict,
    errorCode: p.errorCode,
    shape: d.shape ?? null,
    warnings: d.warnings ?? [],
    signals: d.signals ?? [],
    method: d.method ?? null,
    tier: p.tier,
    credits: p.credits,
    billedAs: d.billedAs ?? null,
    climbedTo: d.climbedTo ?? null,
    words: d.words ?? 0,
    language: d.language ?? null,
    title: str(head?.title),
    description: descriptionOf(head),
    canonical: str(head?.canonical),
    reason: d.reason ?? null,
    widget: d.widget ?? null,
    solved: d.solved ?? null,
    exitBytes: d.exitBytes ?? 0,
    finalUrl: d.finalUrl ?? null,
    crawledAt: p.crawledAt ? p.crawledAt.toISOString() : null,
    depth: p.depth,
    foundVia: p.foundVia,
    firstReferer: p.firstReferer,
    inSitemap: p.inSitemap,
    inLinks: p.inLinks,
    // The crawl's rules (docs/decisions.md, Crawl: graph flags).
    orphan: graph ? Boolean(p.inSitemap) && p.inLinks === 0 && p.foundVia !== 'seed' : null,
    unlisted: graph ? !p.inSitemap && (p.inLinks ?? 0) > 0 && runHasSitemap : null,
    origin: originOf(p.url),
    head,
    fields: d.fields ?? null,
  };
};

export const titleOf = (data: Record<string, unknown>): string | null => str(headOf(data)?.title);

/** A row of the changes dataset: one entry of the change record. */
export const changeRow = (e: StoredEntry): Row => ({
  id: e.id,
  url: e.url,
  kind: e.kind,
  wordsAdded: e.data.wordsAdded ?? 0,
  wordsRemoved: e.data.wordsRemoved ?? 0,
  section: e.data.section ?? null,
  volatile: e.data.volatile ?? false,
  volatileBlocks: e.data.volatileBlocks ?? 0,
  fields: e.data.fields ?? [],
  selectorBreaks: e.data.selectorBreaks ?? [],
  reason: e.data.reason ?? null,
  movedFrom: e.data.movedFrom ?? null,
  movedTo: e.data.movedTo ?? null,
  reviewed: e.reviewed,
  reviewedAt: e.reviewedAt ? e.reviewedAt.toISOString() : null,
});

/** The column a field gets in CSV: its name, except that `url` is the page's own column. */
export const fieldColumn = (name: string): string => (name === 'url' ? 'fields.url' : name);

/** A row of the fields dataset in CSV: the url and one column per field name. */
export const flatFieldsRow = (p: StoredPage, names: string[]): Row => {
  const fields = (p.data.fields ?? {}) as Record<string, unknown>;
  return Object.fromEntries([['url', p.url], ...names.map((n) => [fieldColumn(n), fields[n] ?? null])]);
};

/** JSON-LD blocks and the items of their @graph, as objects. */
const jsonLdItems = (blocks: unknown[]): Record<string, unknown>[] => {
  const out: Record<string, unknown>[] = [];
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      out.push(node as Record<string, unknown>);
      const graph = (node as Record<string, unknown>)['@graph'];
      if (Array.isArray(graph)) graph.forEach(visit);
    }
  };
  blocks.forEach(visit);
  return out;
};

/** A date as a sitemap's lastmod (W3C datetime): a bare date stays one, a time becomes UTC. */
const w3cDate = (raw: string | null): string | null => {
  const s = raw?.trim();
  if (!s) return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return s;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
};

/**
 * When the page says it last changed: JSON-LD dateModified, else og:updated_time, else JSON-LD
 * datePublished (a page never modified was last changed when published). Null when it says
 * nothing readable.
 */
export const declaredLastmod = (head: Head | null): string | null => {
  const items = jsonLdItems(head?.jsonLd ?? []);
  const ld = (key: string) => items.map((i) => w3cDate(str(i[key]))).find((v) => v !== null) ?? null;
  return ld('dateModified') ?? w3cDate(str(head?.openGraph?.['og:updated_time'])) ?? ld('datePublished');
};

/** The first path segment as the map's rows name it: "/blog", "/" for the root. */
const sectionOf = (url: string): string => {
  try {
    const first = new URL(url).pathname.split('/')[1];
    return first ? `/${first}` : '/';
  } catch {
    return '/';
  }
};

/** A row of the sitemap dataset. */
export const sitemapRow = (p: StoredPage): Row => ({
  url: p.url,
  lastmod: declaredLastmod(headOf(p.data)),
  source: p.foundVia,
  inSitemap: p.inSitemap,
  section: sectionOf(p.url),
});
