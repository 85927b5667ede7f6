import {
  applyConfigPatch,
  ConfigConflictError,
  configInputSchema,
  CRAWL_CONFIG_FIELDS,
  toConfigPatch,
  type ConfigPatch,
  type CrawlRequest,
  type ResolvedConfig,
} from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import { isDeepStrictEqual } from 'node:util';

export interface CrawlOptions {
  config: ResolvedConfig;
  /** The scrape request every page is fetched with (work.scrape.crawl carries it). */
  pageRequest: Record<string, unknown>;
}

/**
 * A crawl request as a project config: `config` first, then the request's short names and
 * scrapeOptions on top; a key given both ways must agree (422 names it).
 */
export const resolveCrawl = (req: CrawlRequest): CrawlOptions => {
  const patch: ConfigPatch = toConfigPatch(configInputSchema.parse(req.config ?? {}));
  const put = (name: keyof ConfigPatch, value: unknown, spelledAs: string) => {
    if (value === undefined) return;
    if (name in patch && !isDeepStrictEqual(patch[name], value))
      throw new ValidationError(`body.${spelledAs}: ${new ConfigConflictError(name, `config.${name}`).message}`);
    (patch as Record<string, unknown>)[name] = value;
  };
  for (const { field, key } of CRAWL_CONFIG_FIELDS) put(key, req[field], field);
  put('formats', req.scrapeOptions?.formats, 'scrapeOptions.formats');
  put('only_main_content', req.scrapeOptions?.onlyMainContent, 'scrapeOptions.onlyMainContent');
  const config = applyConfigPatch(undefined, patch);
  return {
    config,
    pageRequest: { config: patch, scrapeOptions: { formats: config.output.formats } },
  };
};

/**
 * The scrape request of one URL: STORE_HTML (`store_html`) keeps the raw html of every page
 * (`always`) or of the seed alone (`home`) beside the formats asked, so the markup comparison,
 * content preview and removed-content views have it. It is stored, not returned: the API shows
 * `html` only to a caller asking for rawHtml.
 */
export const pageRequestFor = (options: CrawlOptions, isSeed: boolean): Record<string, unknown> => {
  const { formats, store_html } = options.config.output;
  const keep = store_html === 'always' || (store_html === 'home' && isSeed);
  if (!keep || formats.includes('rawHtml')) return options.pageRequest;
  return { ...options.pageRequest, scrapeOptions: { formats: [...formats, 'rawHtml'] } };
};
