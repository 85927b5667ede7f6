// Long (~500 lines) because a discovery is one walk of robots.txt, sitemap trees and feeds that
// shares its caps, visited set, credits and errors across every file it reads.
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import {
  SITEMAP_MODES,
  type MapMethodName,
  type MapSourceName,
  type MapStopName,
  type MapTotals,
  type SitemapModeName,
} from '@tidemark/contracts';
import { ApiError } from '@tidemark/errors';
import { MAX_ROBOTS_BYTES, robotsFromResponse, type RobotsRules } from '@tidemark/robots';
import type { Logger } from '@tidemark/telemetry';
import { FileTooLargeError, readBody } from './byte-streams.js';
import { feedLinks } from './feed-links.js';
import { FileFetchError, toFileFetchError, type FileFetcher } from './file-fetcher.js';
import { SitemapReader, type FileKind, type ReadEntry } from './sitemap-reader.js';

// The vocabulary is the contract's (libs/contracts maps.ts; the proto enums of map.proto).
export { SITEMAP_MODES };
export type SitemapMode = SitemapModeName;

/** One URL a site declares (spec: Map row, plus whether robots.txt disallows it). */
export interface MapEntry {
  url: string;
  lastmod: string | null;
  changefreq: string | null;
  source: MapSourceName;
  /** The sitemap or feed file that listed it. */
  file: string;
  /** First path segment ("/blog"), "/" for the root. */
  section: string;
  blocked: boolean;
}

export interface FileError {
  file: string;
  reason: string;
}

export interface RobotsSummary {
  url: string;
  /** HTTP status after redirects; null when the site could not be reached. */
  status: number | null;
  /** A robots.txt was read (2xx). */
  found: boolean;
  /** Its Sitemap lines. */
  sitemaps: string[];
  /** parsed, allow_all (4xx: no rules) or disallow_all (5xx, 429, unreachable: RFC 9309). */
  rules: RobotsRules['mode'];
  crawlDelay: number | null;
}

/** completed: everything was read; otherwise what cut the map short. */
export type StopReason = Exclude<MapStopName, 'error'>;
/** How the sitemaps were found. */
export type MapMethod = MapMethodName;

export interface DiscoveryResult {
  totals: MapTotals;
  robots: RobotsSummary;
  /** The robots.txt as read (first 500 KiB), '' when there was none. */
  robotsTxt: string;
  method: MapMethod;
  errors: FileError[];
  stop: StopReason;
  /** Files charged (1 credit each). */
  creditsUsed: number;
  /** Rows by source. */
  counts: Record<string, number>;
  /** Files fetched (done) and known (total: fetched plus those a stop left unread). */
  progress: Progress;
}

export interface Progress {
  done: number;
  total: number;
  queued: number;
}

/** Billing for one file: held before it is fetched, charged 1 (read) or 0 (nothing read). */
export interface FileCredits {
  authorize(n: number): Promise<void>;
  charge(n: number, credits: number): Promise<void>;
}

export interface DiscoverRequest {
  url: string;
  mode: SitemapMode;
  limit: number;
  /** Lower-case substring a URL must contain; null = all. */
  search: string | null;
  /** Extra feeds to read in every mode. */
  feeds: string[];
  /** Read the home page for its feed links (modes auto and skip); false reads robots.txt alone. */
  homeFeeds?: boolean;
  /** Epoch ms: what was read by then is answered. */
  deadline: number;
  /** Robots-blocked URLs become entries (flagged) rather than only being counted. */
  includeBlocked: boolean;
  credits: FileCredits;
  /** Entries in the order the tree gave them, a batch at a time. */
  onEntries(entries: MapEntry[]): Promise<void>;
  onProgress?(progress: Progress, totals: MapTotals): Promise<void>;
}

export interface DiscoveryLimits {
  maxFiles: number;
  maxDepth: number;
  fileTimeoutMs: number;
  maxFileBytes: number;
  maxCompressedBytes: number;
}

interface QueuedFile {
  url: string;
  depth: number;
  listedBy: string | null;
  /** The /sitemap.xml probe (robots.txt declared no sitemap). */
  probe: boolean;
}

/** Sitemap URLs are compared without fragment, scheme and host case (WHATWG URL form). */
const fileKey = (url: string) => {
  const u = new URL(url);
  u.hash = '';
  return u.toString();
};

const absolute = (loc: string, base: string): string | null => {
  try {
    const u = new URL(loc, base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    u.hash = '';
    return u.toString();
  } catch {
    return null;
  }
};

export const sectionOf = (url: string): string => {
  const first = new URL(url).pathname.split('/').find((s) => s !== '');
  return first === undefined ? '/' : `/${first}`;
};

/** Distinct blocked URLs remembered at most (beyond it a repeat may count twice). */
const BLOCKED_SEEN_CAP = 100_000;
const FLUSH_AT = 500;
const ROBOTS_TIMEOUT_MS = 10_000;
const HOME_PAGE_BYTES = 512 * 1024;

/**
 * Discovers what a site declares: robots.txt, then its sitemaps (or /sitemap.xml) down through
 * indexes, gzip or not, then feeds, one file after another in the order the tree gives them
 * (depth first), every file streamed through the byte caps into the XML reader. Hostile files
 * end in `errors` and the map goes on; the visited set stops cycles, the depth and file caps
 * stop trees that do not end. Each file is held and charged through `credits`.
 */
export class DiscoveryService {
  constructor(
    private readonly fetcher: Pick<FileFetcher, 'open'>,
    private readonly userAgent: string,
    private readonly limits: DiscoveryLimits,
    private readonly logger: Logger,
  ) {}

  async discover(req: DiscoverRequest): Promise<DiscoveryResult> {
    const origin = new URL(req.url).origin;
    const robotsUrl = `${origin}/robots.txt`;
    const robotsRead = await this.readRobots(robotsUrl, req.deadline);
    const rules = robotsFromResponse(robotsRead.status, robotsRead.text, this.userAgent, { baseUrl: robotsUrl });
    const errors: FileError[] = [];
    if (rules.mode === 'disallow_all')
      errors.push({
        file: robotsUrl,
        reason: `${robotsRead.status === null ? `unreachable (${robotsRead.error})` : `answered ${robotsRead.status}`}: the site counts as disallowing everything (RFC 9309)`,
      });

    // A file declared twice at the top (robots.txt and the home page name one feed) is one root.
    const roots: QueuedFile[] = [];
    const root = (url: string, probe = false) => {
      if (!roots.some((r) => fileKey(r.url) === fileKey(url))) roots.push({ url, depth: 1, listedBy: null, probe });
    };
    const sitemapsFromRobots = req.mode !== 'skip' && rules.sitemaps.length > 0;
    if (req.mode !== 'skip') {
      if (sitemapsFromRobots) rules.sitemaps.forEach((s) => root(s));
      else if (rules.isAllowed(`${origin}/sitemap.xml`)) root(`${origin}/sitemap.xml`, true);
      else errors.push({ file: `${origin}/sitemap.xml`, reason: 'robots.txt disallows it; not tried' });
    }
    for (const feed of req.feeds) {
      const url = absolute(feed, origin);
      if (url) root(url);
      else errors.push({ file: feed, reason: 'not an http(s) URL' });
    }
    if (req.mode !== 'only' && req.homeFeeds !== false) {
      if (rules.isAllowed(`${origin}/`)) (await this.homeFeeds(origin, req.deadline)).forEach((f) => root(f));
      else if (rules.mode === 'parsed')
        errors.push({ file: `${origin}/`, reason: 'robots.txt disallows the home page; its feed links were not read' });
    }

    const run = new Run(req, rules, origin, errors);
    const stack = [...roots].reverse();
    const visited = new Set<string>();
    let probeRead = false;
    while (stack.length > 0) {
      if (Date.now() >= req.deadline) {
        run.stop = 'timeout';
        break;
      }
      if (run.fetched >= this.limits.maxFiles) {
        run.stop = 'max_files';
        errors.push({
          file: stack.at(-1)!.url,
          reason: `not read, nor ${stack.length - 1} more: a map reads at most ${this.limits.maxFiles} files`,
        });
        break;
      }
      const item = stack.pop()!;
      const key = fileKey(item.url);
      if (visited.has(key)) {
        errors.push({
          file: item.url,
          reason: `listed again${item.listedBy ? ` by ${item.listedBy}` : ''} (a cycle or a repeat); read once`,
        });
        continue;
      }
      visited.add(key);
      if (item.depth > this.limits.maxDepth) {
        errors.push({
          file: item.url,
          reason: `not read: sitemap indexes are followed ${this.limits.maxDepth} levels deep (listed by ${item.listedBy})`,
        });
        continue;
      }
      const n = run.fetched + 1;
      try {
        await req.credits.authorize(n);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'credits_exhausted') {
          run.stop = 'credits_exhausted';
          errors.push({ file: item.url, reason: `not read: credits ran out (${err.message})` });
          break;
        }
        throw err;
      }
      run.fetched = n;
      let outcome: FileOutcome;
      try {
        outcome = await this.readFile(item, run, stack.length);
      } catch (err) {
        await req.credits.charge(n, 0).catch(() => undefined);
        throw err;
      }
      await req.credits.charge(n, outcome.read ? 1 : 0);
      if (outcome.read) {
        run.creditsUsed++;
        run.totals.files++;
        if (item.probe) probeRead = true;
        if (outcome.kind === 'rss' || outcome.kind === 'atom') run.feedsRead++;
      }
      if (outcome.error) errors.push({ file: item.url, reason: outcome.error });
      if (outcome.kind === 'sitemapindex') {
        run.totals.indexes++;
        const room = Math.max(0, this.limits.maxFiles - run.fetched);
        const children = outcome.children.slice(0, room);
        if (outcome.listed > room) {
          run.capped = true;
          errors.push({
            file: item.url,
            reason: `lists ${outcome.listed} files; ${outcome.listed - room} past the cap of ${this.limits.maxFiles} files were not read`,
          });
        }
        for (let i = children.length - 1; i >= 0; i--)
          stack.push({ url: children[i]!, depth: item.depth + 1, listedBy: item.url, probe: false });
      }
      await run.flush();
      await req.onProgress?.(
        { done: run.fetched, total: run.fetched + stack.length, queued: stack.length },
        run.totals,
      );
      if (run.full) {
        run.stop = 'limit';
        break;
      }
    }
    await run.flush();
    if (run.stop === 'completed' && run.capped) run.stop = 'max_files';

    const method: MapMethod = sitemapsFromRobots
      ? 'robots'
      : probeRead
        ? 'sitemap.xml'
        : run.feedsRead > 0
          ? 'feeds'
          : 'none';
    return {
      totals: run.totals,
      robots: {
        url: robotsUrl,
        status: robotsRead.status,
        found: robotsRead.status !== null && robotsRead.status >= 200 && robotsRead.status < 300,
        sitemaps: rules.sitemaps,
        rules: rules.mode,
        crawlDelay: rules.crawlDelaySeconds,
      },
      robotsTxt: robotsRead.text,
      method,
      errors,
      stop: run.stop,
      creditsUsed: run.creditsUsed,
      counts: run.counts,
      progress: { done: run.fetched, total: run.fetched + stack.length, queued: 0 },
    };
  }

  /** robots.txt: the first 500 KiB of a 2xx, its status, or null status when unreachable. */
  private async readRobots(
    url: string,
    deadline: number,
  ): Promise<{ status: number | null; text: string; error: string | null }> {
    const timeoutMs = Math.min(ROBOTS_TIMEOUT_MS, Math.max(1, deadline - Date.now()));
    try {
      const file = await this.fetcher.open(url, timeoutMs, 'text/plain, */*;q=0.5');
      if (file.status < 200 || file.status >= 300) {
        file.body.destroy();
        return { status: file.status, text: '', error: null };
      }
      return { status: file.status, text: await this.readText(file.body, MAX_ROBOTS_BYTES, timeoutMs), error: null };
    } catch (err) {
      const failure = toFileFetchError(err, timeoutMs);
      // Redirects that ran out: RFC 9309 §2.3.1.2 lets us read that as unavailable (3xx).
      if (failure.redirectStatus !== null) return { status: failure.redirectStatus, text: '', error: null };
      this.logger.debug({ url, reason: failure.reason }, 'robots.txt unreachable');
      return { status: null, text: '', error: failure.reason };
    }
  }

  /** The feeds the home page links to; none when it cannot be read. */
  private async homeFeeds(origin: string, deadline: number): Promise<string[]> {
    const timeoutMs = Math.min(this.limits.fileTimeoutMs, Math.max(1, deadline - Date.now()));
    try {
      const page = await this.fetcher.open(`${origin}/`, timeoutMs, 'text/html, */*;q=0.5');
      if (page.status < 200 || page.status >= 300) {
        page.body.destroy();
        return [];
      }
      return feedLinks(await this.readText(page.body, HOME_PAGE_BYTES, timeoutMs), page.finalUrl);
    } catch (err) {
      this.logger.debug({ origin, reason: toFileFetchError(err, timeoutMs).reason }, 'home page not read');
      return [];
    }
  }

  /** Up to `maxBytes` of a body as UTF-8 text; past that the rest is simply not read. */
  private async readText(body: Readable, maxBytes: number, timeoutMs: number): Promise<string> {
    const decoder = new StringDecoder('utf8');
    let text = '';
    try {
      for await (const chunk of readBody(body, { compressed: maxBytes, decompressed: maxBytes }))
        text += decoder.write(chunk);
    } catch (err) {
      if (!(err instanceof FileTooLargeError)) throw toFileFetchError(err, timeoutMs);
    }
    return text + decoder.end();
  }

  /** Reads one sitemap or feed file, handing its URLs to the run as they come. */
  private async readFile(item: QueuedFile, run: Run, queued: number): Promise<FileOutcome> {
    const timeoutMs = Math.min(this.limits.fileTimeoutMs, Math.max(1, run.req.deadline - Date.now()));
    let file;
    try {
      file = await this.fetcher.open(item.url, timeoutMs);
    } catch (err) {
      return { read: false, kind: null, children: [], listed: 0, error: toFileFetchError(err, timeoutMs).reason };
    }
    if (file.status < 200 || file.status >= 300) {
      file.body.destroy();
      return { read: false, kind: null, children: [], listed: 0, error: `answered ${file.status}` };
    }
    const reader = new SitemapReader();
    const decoder = new StringDecoder('utf8');
    const children: string[] = [];
    let listed = 0;
    let error: string | null = null;
    const take = async (entries: ReadEntry[]) => {
      for (const e of entries) {
        if (e.kind === 'sitemap') {
          const child = absolute(e.loc, file.finalUrl);
          // Beyond the files a map can still read, children are only counted.
          if (child) listed++;
          if (child && children.length < this.limits.maxFiles) children.push(child);
        } else {
          run.add(e, reader.kind === 'rss' || reader.kind === 'atom' ? 'feed' : 'sitemap', item.url, file.finalUrl);
        }
      }
      if (run.pending.length >= FLUSH_AT) await run.flush();
    };
    let cut = false;
    try {
      for await (const chunk of readBody(file.body, {
        compressed: this.limits.maxCompressedBytes,
        decompressed: this.limits.maxFileBytes,
      })) {
        reader.write(decoder.write(chunk));
        await take(reader.drain());
        if (reader.stopped || run.full || Date.now() >= run.req.deadline) {
          cut = true;
          break;
        }
      }
      if (!cut) {
        reader.write(decoder.end());
        reader.end();
        await take(reader.drain());
      }
    } catch (err) {
      await take(reader.drain());
      if (err instanceof FileTooLargeError) error = err.message;
      else if (err instanceof FileFetchError) error = err.reason;
      else if ((err as { code?: string }).code?.startsWith('Z_'))
        error = `gzip data is corrupt (${(err as Error).message})`;
      else error = toFileFetchError(err, timeoutMs).reason;
    }
    if (!error && reader.error) error = reader.error;
    if (!error && cut && !reader.stopped && !run.full) error = 'not read to the end: the map ran out of time';
    this.logger.debug({ file: item.url, kind: reader.kind, queued, error }, 'file read');
    return { read: true, kind: reader.kind, children, listed, error };
  }
}

interface FileOutcome {
  /** A 2xx body was read (charged), whatever it held. */
  read: boolean;
  kind: FileKind | null;
  /** An index's files, as many as a map could still read. */
  children: string[];
  /** How many files it listed in all. */
  listed: number;
  error: string | null;
}

/** The state of one discovery: what has been kept, counted and is waiting to be handed on. */
class Run {
  totals: MapTotals = { files: 0, urls: 0, indexes: 0, blocked: 0 };
  counts: Record<string, number> = {};
  stop: StopReason = 'completed';
  fetched = 0;
  creditsUsed = 0;
  feedsRead = 0;
  /** An index listed more files than the cap let the map read. */
  capped = false;
  pending: MapEntry[] = [];
  private emitted = 0;
  private readonly seen = new Set<string>();
  private readonly blockedSeen = new Set<string>();

  constructor(
    readonly req: DiscoverRequest,
    private readonly rules: RobotsRules,
    private readonly origin: string,
    readonly errors: FileError[],
  ) {}

  get full(): boolean {
    return this.emitted >= this.req.limit;
  }

  add(e: ReadEntry, source: MapEntry['source'], file: string, base: string): void {
    if (this.full) return;
    const url = absolute(e.loc, base);
    if (!url || this.seen.has(url)) return;
    if (this.req.search !== null && !url.toLowerCase().includes(this.req.search)) return;
    // robots.txt speaks for its own origin only.
    const blocked = new URL(url).origin === this.origin && !this.rules.isAllowed(url);
    if (blocked) {
      if (!this.blockedSeen.has(url)) {
        this.totals.blocked++;
        if (this.blockedSeen.size < BLOCKED_SEEN_CAP) this.blockedSeen.add(url);
      }
      if (!this.req.includeBlocked) return;
    } else {
      this.totals.urls++;
      this.counts[source] = (this.counts[source] ?? 0) + 1;
    }
    this.seen.add(url);
    this.emitted++;
    this.pending.push({
      url,
      lastmod: e.lastmod,
      changefreq: e.changefreq,
      source,
      file,
      section: sectionOf(url),
      blocked,
    });
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    await this.req.onEntries(batch);
  }
}
