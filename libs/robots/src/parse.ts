import { patternMatches } from './match.js';
import { normalizePath, pathOf } from './normalize.js';

/** What a crawler may fetch under one robots.txt, for one user agent. */
export interface RobotsRules {
  /** Whether the URL (absolute, or a path starting with "/") may be fetched. */
  isAllowed(url: string | URL): boolean;
  /** Crawl-delay of the group that applies (not in RFC 9309; widely used), or null. */
  crawlDelaySeconds: number | null;
  /** Every Sitemap line of the file, wherever it stood, de-duplicated, absolute http(s) only. */
  sitemaps: string[];
  /**
   * How the answer was reached: `parsed` (a file was read), `allow_all` (unavailable: 3xx after
   * redirects, 4xx), `disallow_all` (unreachable: 5xx, 429, no answer).
   */
  mode: 'parsed' | 'allow_all' | 'disallow_all';
  /** True when a group names our product token; false when `*` (or nothing) applied. */
  matchedAgent: boolean;
}

export interface ParseOptions {
  /** Resolves relative Sitemap lines (they should be absolute; some sites write paths). */
  baseUrl?: string;
}

/** RFC 9309 §2.5: a crawler must read at least the first 500 KiB; we read exactly that much. */
export const MAX_ROBOTS_BYTES = 500 * 1024;

interface Rule {
  allow: boolean;
  pattern: string;
}

interface Group {
  agents: string[];
  rules: Rule[];
  crawlDelay: number | null;
}

// Keys as written in the wild, typos included (the way large crawlers read them).
const KEYS: Record<string, 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'crawl-delay'> = {
  'user-agent': 'user-agent',
  useragent: 'user-agent',
  'user agent': 'user-agent',
  allow: 'allow',
  disallow: 'disallow',
  dissallow: 'disallow',
  dissalow: 'disallow',
  disalow: 'disallow',
  sitemap: 'sitemap',
  'site-map': 'sitemap',
  'crawl-delay': 'crawl-delay',
  crawldelay: 'crawl-delay',
};

const TOKEN = /^[A-Za-z_-]+/;

/**
 * The product token robots.txt groups are matched against: `TidemarkBot` from
 * `TidemarkBot/1.0` or from `Mozilla/5.0 (compatible; TidemarkBot/0.1; +https://…)`.
 */
export const productToken = (userAgent: string): string => {
  const compatible = /compatible;\s*([A-Za-z_-]+)/i.exec(userAgent);
  return (compatible?.[1] ?? TOKEN.exec(userAgent.trim())?.[0] ?? userAgent.trim()).toLowerCase();
};

/** Cuts to the first 500 KiB, dropping a line the cut went through. */
const firstBytes = (text: string): string => {
  if (text.length <= MAX_ROBOTS_BYTES / 4 || Buffer.byteLength(text) <= MAX_ROBOTS_BYTES) return text;
  const cut = Buffer.from(text, 'utf8').subarray(0, MAX_ROBOTS_BYTES).toString('utf8');
  const lastBreak = Math.max(cut.lastIndexOf('\n'), cut.lastIndexOf('\r'));
  return lastBreak >= 0 ? cut.slice(0, lastBreak) : '';
};

const toPattern = (value: string): string =>
  normalizePath(value.startsWith('/') || value.startsWith('*') ? value : `/${value}`);

const absoluteHttp = (value: string, base?: string): string | null => {
  try {
    const url = new URL(value, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
  } catch {
    return null;
  }
};

const buildRules = (
  rules: Rule[],
  crawlDelaySeconds: number | null,
  sitemaps: string[],
  mode: RobotsRules['mode'],
  matchedAgent: boolean,
): RobotsRules => ({
  crawlDelaySeconds,
  sitemaps,
  mode,
  matchedAgent,
  isAllowed(url) {
    const path = pathOf(url);
    if (path === null) return false;
    // RFC 9309 §2.2.2: /robots.txt itself is always allowed.
    if (path === '/robots.txt' || path.startsWith('/robots.txt?')) return true;
    if (mode !== 'parsed') return mode === 'allow_all';
    const target = normalizePath(path);
    // Longest pattern wins; on a tie Allow wins (§2.2.2).
    let bestLength = -1;
    let allowed = true;
    for (const rule of rules) {
      if (rule.pattern.length < bestLength || (rule.pattern.length === bestLength && allowed)) continue;
      if (!patternMatches(rule.pattern, target)) continue;
      allowed = rule.pattern.length === bestLength ? allowed || rule.allow : rule.allow;
      bestLength = rule.pattern.length;
    }
    return allowed;
  },
});

/**
 * Parses a robots.txt (RFC 9309) for one user agent: the groups naming its product token
 * (case-insensitive) merged into one, else the `*` groups merged, else no rules at all.
 */
export const parseRobots = (text: string, userAgent: string, opts: ParseOptions = {}): RobotsRules => {
  const groups: Group[] = [];
  const sitemaps = new Set<string>();
  let current: Group | null = null;
  let inAgentRun = false;
  for (const rawLine of firstBytes(text.replace(/^\uFEFF/, '')).split(/\r\n|\r|\n/)) {
    const line = rawLine.split('#', 1)[0]!;
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = KEYS[line.slice(0, colon).trim().toLowerCase()];
    const value = line.slice(colon + 1).trim();
    if (!key) continue;
    if (key === 'sitemap') {
      const url = absoluteHttp(value, opts.baseUrl);
      if (url) sitemaps.add(url);
      continue;
    }
    if (key === 'user-agent') {
      if (!inAgentRun || !current) {
        current = { agents: [], rules: [], crawlDelay: null };
        groups.push(current);
      }
      inAgentRun = true;
      const token = value === '*' ? '*' : TOKEN.exec(value)?.[0]?.toLowerCase();
      if (token) current.agents.push(token);
      continue;
    }
    // A rule ends the run of user-agent lines; rules before any user-agent line are ignored.
    inAgentRun = false;
    if (!current) continue;
    if (key === 'crawl-delay') {
      const seconds = Number(value);
      if (current.crawlDelay === null && value !== '' && Number.isFinite(seconds) && seconds >= 0)
        current.crawlDelay = seconds;
    } else if (value !== '') {
      current.rules.push({ allow: key === 'allow', pattern: toPattern(value) });
    }
  }

  const token = productToken(userAgent);
  let applies = groups.filter((g) => g.agents.includes(token));
  const matchedAgent = applies.length > 0;
  if (!matchedAgent) applies = groups.filter((g) => g.agents.includes('*'));
  return buildRules(
    applies.flatMap((g) => g.rules),
    applies.find((g) => g.crawlDelay !== null)?.crawlDelay ?? null,
    [...sitemaps],
    'parsed',
    matchedAgent,
  );
};

/** Everything allowed: robots.txt is unavailable (4xx, or 3xx when redirects ran out). */
export const allowAllRobots = (): RobotsRules => buildRules([], null, [], 'allow_all', false);

/** Nothing allowed but /robots.txt: the site could not be reached or answered 5xx. */
export const disallowAllRobots = (): RobotsRules => buildRules([], null, [], 'disallow_all', false);

/**
 * RFC 9309 §2.3.1 status rules: 2xx parse; 4xx (404 included) allow all; 5xx or unreachable
 * (`status` null) disallow all. Two choices beyond the RFC: 429 counts as unreachable (the
 * site asked us to slow down, not told us there are no rules), and a 3xx here means the
 * redirects ran out, which §2.3.1.2 lets us read as unavailable.
 */
export const robotsFromResponse = (
  status: number | null,
  text: string,
  userAgent: string,
  opts: ParseOptions = {},
): RobotsRules => {
  if (status === null || status === 429) return disallowAllRobots();
  if (status >= 200 && status < 300) return parseRobots(text, userAgent, opts);
  if (status >= 300 && status < 500) return allowAllRobots();
  return disallowAllRobots();
};
