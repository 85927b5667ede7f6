import {
  applyConfigPatch,
  configInputSchema,
  toConfigPatch,
  type ResolvedConfig,
  type ScrapeFormat,
  type ScrapeRequest,
} from '@tidemark/contracts';

/** What one page fetch needs to know, resolved once per job from its request. */
export interface LadderOptions {
  formats: ScrapeFormat[];
  config: ResolvedConfig;
  /** What one page may cost at most (maxCredits, else config fetch.max_credits_per_page). */
  maxCreditsPerPage: number | null;
  /**
   * A screenshot in the formats starts the page at the browser (true, the default), or is taken
   * only if the ladder climbs there anyway (false: the playground, whose evidence is the
   * ladder's own way).
   */
  screenshotLeads?: boolean;
  /**
   * Read robots.txt first and leave a forbidden page unfetched (verdict robots). A one-URL
   * scrape or batch ignores robots.txt unless its config says `respectRobots: true`.
   */
  respectRobots: boolean;
}

export const resolveOptions = (req: ScrapeRequest): LadderOptions => {
  const patch = toConfigPatch(configInputSchema.parse(req.config ?? {}));
  if (req.scrapeOptions?.onlyMainContent !== undefined) patch.only_main_content = req.scrapeOptions.onlyMainContent;
  if (req.maxCredits !== undefined) patch.max_credits_per_page = req.maxCredits;
  const config = applyConfigPatch(undefined, patch);
  const formats = req.formats ?? req.scrapeOptions?.formats ?? config.output.formats;
  return {
    formats: formats.length ? formats : ['markdown'],
    config,
    maxCreditsPerPage: config.fetch.max_credits_per_page,
    // Asked for in so many words: the config default (true) is a crawl's.
    respectRobots: patch.respect_robots === true,
  };
};
