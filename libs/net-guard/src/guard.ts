import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { routeForHost, type Cidr, type HostRoute } from './networks.js';
import { judgeAddress } from './ranges.js';

/** The words every refusal starts with: the delivery log, page rows and 422s all say them. */
export const REFUSED_BY_GUARD = 'refused by the fetch guard';

/**
 * Why a destination was refused. The message names the host and the range, not the address a
 * name resolved to (that would tell a caller how internal names resolve); `address` keeps it
 * for logs. Scrape maps it to errorCode NETWORK.
 */
export class BlockedAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    const what = isIP(host) ? `${host} is` : `${host} resolves to`;
    super(`${REFUSED_BY_GUARD}: ${what} a private or reserved address (${reason})`);
    this.name = 'BlockedAddressError';
  }
}

export class HostNotFoundError extends Error {
  constructor(
    readonly host: string,
    cause?: unknown,
  ) {
    super(`${host} could not be resolved`, { cause });
    this.name = 'HostNotFoundError';
  }
}

export interface Destination {
  /** The address to connect to. */
  address: string;
  family: 4 | 6;
  /** The port to connect to (FETCH_HOST_MAP may send a host elsewhere). */
  port: number;
}

export interface FetchGuardOptions {
  /** FETCH_ALLOW_NETWORKS: ranges exempt from the refused ranges. */
  allowNetworks: Cidr[];
  /** FETCH_HOST_MAP: named hosts sent to a fixed address and port (the test web). */
  hostMap: HostRoute[];
  /** Injected in tests; defaults to the system resolver. */
  lookup?: (host: string) => Promise<{ address: string; family: number }[]>;
}

/** A host as it appears in a URL or a CONNECT line, compared: no brackets, no trailing dot, lower case. */
const bareHost = (host: string) =>
  host
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();

/** Names that are loopback by definition (RFC 6761), whatever a resolver says. */
const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/**
 * The one place that decides where Tidemark may connect for a user. Two uses, one decision
 * (`judgeAddress`, see ranges.ts):
 * - when sent (`resolve`): at connection time, after DNS, for every hop of a redirect chain,
 *   subresource, proxy CONNECT, webhook or model call — a name that resolves to a refused address,
 *   or a redirect to one, is refused however it was reached;
 * - when saved (`checkUrl`): a URL whose host is an address (in any spelling the URL parser
 *   normalizes) or localhost, so a config naming one is answered 422 at once. A name is left to
 *   the send-time check: what it resolves to may change after it is saved, so only the address
 *   actually connected to counts (FETCH_HOST_MAP names too: they stand in for DNS).
 */
export class FetchGuard {
  private readonly lookup: (host: string) => Promise<{ address: string; family: number }[]>;

  constructor(private readonly opts: FetchGuardOptions) {
    this.lookup = opts.lookup ?? ((host) => dnsLookup(host, { all: true, verbatim: true }));
  }

  /** True when an address may be connected to. */
  isAllowed(ip: string): boolean {
    return judgeAddress(ip, this.opts.allowNetworks) === null;
  }

  /** Throws BlockedAddressError unless every address may be connected to. */
  private assertAllowed(host: string, addresses: string[]): void {
    for (const address of addresses) {
      const refusal = judgeAddress(address, this.opts.allowNetworks);
      if (refusal) throw new BlockedAddressError(host, refusal.address, refusal.reason);
    }
  }

  /**
   * Where to connect for host:port, or why not. The host map wins over DNS; its targets are
   * still checked (a mapped loopback host needs FETCH_ALLOW_NETWORKS, like any other).
   */
  async resolve(host: string, port: number): Promise<Destination> {
    const name = bareHost(host);
    const mapped = routeForHost(this.opts.hostMap, name);
    let candidates: { address: string; family: number }[];
    let targetPort = port;
    if (mapped) {
      candidates = [{ address: mapped.address, family: isIP(mapped.address) }];
      targetPort = mapped.port;
    } else if (isIP(name)) {
      candidates = [{ address: name, family: isIP(name) }];
    } else {
      try {
        candidates = await this.lookup(name);
      } catch (err) {
        throw new HostNotFoundError(name, err);
      }
      if (candidates.length === 0) throw new HostNotFoundError(name);
    }
    // Every address must pass: otherwise a name with one public and one private record could
    // be steered to the private one by the connection order.
    this.assertAllowed(
      name,
      candidates.map((c) => c.address),
    );
    const first = candidates[0]!;
    return { address: first.address, family: first.family === 6 ? 6 : 4, port: targetPort };
  }

  /**
   * The save-time check of a URL: the refusal when its host is an address the guard refuses, or
   * a localhost name (loopback by definition) while loopback is refused; else null (a name is
   * judged when it is connected to). A URL that does not parse is the caller's to refuse; this
   * answers null for it.
   */
  checkUrl(url: string): BlockedAddressError | null {
    let host: string;
    try {
      host = bareHost(new URL(url).hostname);
    } catch {
      return null;
    }
    const addresses = isIP(host) ? [host] : isLocalhostName(host) ? ['127.0.0.1'] : [];
    try {
      this.assertAllowed(host, addresses);
      return null;
    } catch (err) {
      return err as BlockedAddressError;
    }
  }
}
