/**
 * The nine tools that reach sites or alter the workspace. A connection approved read-only answers
 * `read_only` from these and serves the rest (stored projects, pages, change records, search,
 * jobs). The spec leaves the nine unnamed; these are the ones that fetch (scrape, extract, map,
 * crawl, run, re-crawl) or write (keep, create, update).
 */
export const WRITE_TOOLS: ReadonlySet<string> = new Set([
  'scrape_urls',
  'extract_url',
  'map_site',
  'crawl_site',
  'keep_crawl_as_project',
  'create_project',
  'update_project',
  'start_run',
  'recrawl_pages',
]);

export type Access = 'write' | 'read-only';

/** Why a connection is read-only (said in the refusal, so the user knows what to change). */
export type ReadOnlyReason = 'asked' | 'key';
