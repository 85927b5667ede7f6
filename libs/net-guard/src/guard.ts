import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { cidrContains, routeForHost, type Cidr, type HostRoute } from '@tidemark/config';
import { BLOCKED_RANGES } from './blocked-ranges.js';

/** Why a destination was refused; scrape maps it to errorCode NETWORK. */
export class BlockedAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, a private or reserved address; refused`);
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
  /** FETCH_ALLOW_NETWORKS: ranges exempt from the block list. */
  allowNetworks: Cidr[];
  /** FETCH_HOST_MAP: named hosts sent to a fixed address and port (the test web). */
  hostMap: HostRoute[];
  /** Injected in tests; defaults to the system resolver. */
  lookup?: (host: string) => Promise<{ address: string; family: number }[]>;
}

const unmapV4 = (ip: string): string => {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1]! : ip;
};

/**
 * The one place that decides where a fetch may connect. It runs at connection time — after DNS
 * and for every hop of a redirect chain, subresource or proxy CONNECT — so a name that resolves
 * to a private address, or a redirect to one, is refused however it was reached.
 */
export class FetchGuard {
  private readonly lookup: (host: string) => Promise<{ address: string; family: number }[]>;

  constructor(private readonly opts: FetchGuardOptions) {
    this.lookup = opts.lookup ?? ((host) => dnsLookup(host, { all: true, verbatim: true }));
  }

  /** True when an address may be connected to. */
  isAllowed(ip: string): boolean {
    const plain = unmapV4(ip);
    if (this.opts.allowNetworks.some((c) => cidrContains(c, plain) || cidrContains(c, ip))) return true;
    return !BLOCKED_RANGES.some((c) => cidrContains(c, plain));
  }

  /**
   * Where to connect for host:port, or why not. The host map wins over DNS; its targets are
   * still checked (a mapped loopback host needs FETCH_ALLOW_NETWORKS, like any other).
   */
  async resolve(host: string, port: number): Promise<Destination> {
    const name = host.replace(/^\[|\]$/g, '').toLowerCase();
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
    const refused = candidates.find((c) => !this.isAllowed(c.address));
    if (refused) throw new BlockedAddressError(name, refused.address);
    const first = candidates[0]!;
    return { address: first.address, family: first.family === 6 ? 6 : 4, port: targetPort };
  }
}
