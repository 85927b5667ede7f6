/** Sitemap and feed discovery, answered by the map service (a crawl's start, a sources preview). */
export interface DiscoveryPort {
  discover(req: {
    workspaceId: string;
    url: string;
    sitemapMode: string;
    limit: number;
    timeoutMs: number;
    billingReference: string;
    feeds: string[];
    /** robots.txt alone: the crawl uses no sitemap (the home page is the seed's to fetch). */
    robotsOnly: boolean;
  }): Promise<Discovered>;
}

export interface Discovered {
  entries: { url: string; source: string; file: string }[];
  robotsTxt: string;
  robotsStatus: number;
  creditsUsed: number;
  /** Files that could not be read (or only in part), with the map service's reason. */
  errors?: { file: string; reason: string }[];
}
