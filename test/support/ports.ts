import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The first port the kernel hands out as a connection's local port (Linux's default otherwise). */
const ephemeralLow = (): number => {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2048 ? low : 32768;
  } catch {
    return 32768;
  }
};

/** Ports this file answered already: free until their service binds them, but promised. */
const handedOut = new Set<number>();

const bindable = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * A free loopback address below the kernel's ephemeral range, for a service a test stops and
 * starts again at the same address. A port the system picked (":0") is an ephemeral one: while
 * the service is down, any connection the parallel test files open may take it as its local port,
 * and the service's second listen fails with EADDRINUSE. No connection is given a port below the
 * range, and every other listener in the suite binds ":0".
 */
export const restartableAddress = async (): Promise<string> => {
  const low = ephemeralLow();
  const from = Math.max(10_000, low - 20_000);
  for (let tries = 0; tries < 50; tries++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return `127.0.0.1:${port}`;
  }
  throw new Error(`no free port between ${from} and ${low}`);
};
