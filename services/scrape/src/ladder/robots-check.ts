import { robotsFromResponse, type RobotsRules } from '@tidemark/robots';
import { FetchFailure } from './fetch-error.js';
import type { HttpRung } from './http-rung.js';

/** How long a site's robots.txt is trusted before it is read again. */
const TTL_MS = 10 * 60_000;
/** Sites whose rules are kept at once (the oldest goes first). */
const MAX_SITES = 1_000;
const ROBOTS_TIMEOUT_MS = 10_000;

/**
 * robots.txt for one-URL scrapes and batches that ask for it (`config.respectRobots: true`):
 * read through the http rung (the fetch guard, the body cap), as RFC 9309 says (a 4xx allows
 * everything; a 5xx or no answer forbids everything), kept per origin for a while so a batch of
 * one site reads it once.
 */
export class RobotsCheck {
  private readonly byOrigin = new Map<string, { rules: Promise<RobotsRules>; until: number }>();

  constructor(
    private readonly http: HttpRung,
    private readonly userAgent: string,
  ) {}

  async allows(url: string): Promise<boolean> {
    const { origin } = new URL(url);
    const now = Date.now();
    let entry = this.byOrigin.get(origin);
    if (!entry || entry.until < now) {
      entry = { rules: this.read(origin), until: now + TTL_MS };
      this.byOrigin.delete(origin);
      if (this.byOrigin.size >= MAX_SITES) this.byOrigin.delete(this.byOrigin.keys().next().value!);
      this.byOrigin.set(origin, entry);
    }
    return (await entry.rules).isAllowed(url);
  }

  private async read(origin: string): Promise<RobotsRules> {
    const url = `${origin}/robots.txt`;
    try {
      const res = await this.http.fetch(url, { timeoutMs: ROBOTS_TIMEOUT_MS, headers: {} });
      return robotsFromResponse(res.status, res.html, this.userAgent, { baseUrl: url });
    } catch (err) {
      if (err instanceof FetchFailure) return robotsFromResponse(null, '', this.userAgent);
      throw err;
    }
  }
}
