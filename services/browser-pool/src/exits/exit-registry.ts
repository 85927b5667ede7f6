import type { browserPoolV1 } from '@tidemark/contracts';
import type { ExitRoute } from '../proxy/forward-proxy.js';

/** How a render through an exit went, as far as the exit's health is concerned. */
export type ExitOutcome =
  /** The page was read (a 2xx/3xx document without a captcha widget). */
  | 'read'
  /** The site refused it (403/429/503, a captcha widget): counts toward "burned" for that host. */
  | 'blocked'
  /** The exit itself failed (refused the connection or the CONNECT): counts toward "dead". */
  | 'unreachable'
  /** Anything else (page timeout, crash): a failure that says little about the exit. */
  | 'failed';

const WINDOW = 10;
const BURNED_SHARE = 0.5;
const DEAD_AFTER = 3;

interface ExitState {
  route: ExitRoute;
  maskedUrl: string;
  requests: number;
  failures: number;
  bytes: number;
  lastUsed: number;
  /** Recent outcomes, newest last, for the burned status. */
  recent: ExitOutcome[];
  consecutiveUnreachable: number;
  hostsFailed: Set<string>;
  hostsAdopted: Set<string>;
  parityChecks: number;
  parityMatches: number;
}

/** The proxy URL with its user name and password replaced, for GET /me/proxies and logs. */
export const maskExitUrl = (url: URL): string =>
  `${url.protocol}//${url.username || url.password ? '***:***@' : ''}${url.host}`;

/**
 * The residential exits and their health, in memory (a restart starts every exit afresh).
 * Choice per host: an exit adopted for the host first, then the least recently used exit that
 * is ok and has not failed on it, then any exit that is not dead.
 */
export class ExitRegistry {
  private readonly exits: ExitState[];
  private clock = 0;

  constructor(urls: URL[]) {
    this.exits = urls.map((url, i) => ({
      route: {
        id: `exit-${i + 1}`,
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: Number(url.port),
        ...(url.username || url.password
          ? {
              authorization: `Basic ${Buffer.from(
                `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`,
              ).toString('base64')}`,
            }
          : {}),
      },
      maskedUrl: maskExitUrl(url),
      requests: 0,
      failures: 0,
      bytes: 0,
      lastUsed: 0,
      recent: [],
      consecutiveUnreachable: 0,
      hostsFailed: new Set(),
      hostsAdopted: new Set(),
      parityChecks: 0,
      parityMatches: 0,
    }));
  }

  get size(): number {
    return this.exits.length;
  }

  /** The exit to use for a host, or undefined when none is configured. */
  choose(host: string): ExitRoute | undefined {
    const h = host.toLowerCase();
    const alive = this.exits.filter((e) => this.status(e) !== 'dead');
    const pool = alive.length ? alive : this.exits;
    const byLru = [...pool].sort((a, b) => a.lastUsed - b.lastUsed);
    const pick =
      pool.find((e) => e.hostsAdopted.has(h)) ??
      byLru.find((e) => this.status(e) === 'ok' && !e.hostsFailed.has(h)) ??
      byLru.find((e) => !e.hostsFailed.has(h)) ??
      byLru[0];
    if (!pick) return undefined;
    pick.lastUsed = ++this.clock;
    return pick.route;
  }

  record(exitId: string, host: string, outcome: ExitOutcome, bytes: number): void {
    const exit = this.exits.find((e) => e.route.id === exitId);
    if (!exit) return;
    const h = host.toLowerCase();
    exit.requests += 1;
    exit.bytes += bytes;
    exit.recent = [...exit.recent, outcome].slice(-WINDOW);
    if (outcome !== 'read') exit.failures += 1;
    exit.consecutiveUnreachable = outcome === 'unreachable' ? exit.consecutiveUnreachable + 1 : 0;
    if (outcome === 'blocked') {
      exit.hostsFailed.add(h);
      exit.hostsAdopted.delete(h);
    }
    if (outcome === 'read') {
      exit.hostsFailed.delete(h);
      // Read where another exit was refused: adopted for the host, preferred next time.
      if (this.exits.some((o) => o !== exit && o.hostsFailed.has(h))) {
        for (const o of this.exits) o.hostsAdopted.delete(h);
        exit.hostsAdopted.add(h);
      }
    }
  }

  /** One parity check: did the page's text through the exit match a direct read? */
  recordParity(exitId: string, matched: boolean): void {
    const exit = this.exits.find((e) => e.route.id === exitId);
    if (!exit) return;
    exit.parityChecks += 1;
    if (matched) exit.parityMatches += 1;
  }

  list(): browserPoolV1.Exit[] {
    return this.exits.map((e) => ({
      id: e.route.id,
      url: e.maskedUrl,
      status: this.status(e),
      successRate: e.requests ? (e.requests - e.failures) / e.requests : 1,
      parity: e.parityChecks ? e.parityMatches / e.parityChecks : 1,
      requests: e.requests,
      failures: e.failures,
      bytes: e.bytes,
      hostsAdopted: [...e.hostsAdopted].sort(),
    }));
  }

  private status(e: ExitState): 'ok' | 'burned' | 'dead' {
    if (e.consecutiveUnreachable >= DEAD_AFTER) return 'dead';
    const blocked = e.recent.filter((o) => o === 'blocked').length;
    if (e.recent.length >= 3 && blocked / e.recent.length >= BURNED_SHARE) return 'burned';
    return 'ok';
  }
}
