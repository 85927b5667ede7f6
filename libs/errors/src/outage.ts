/**
 * Whether a thrown error says a dependency (the database, Redis, a peer over the network) could
 * not be reached or dropped the connection, rather than that the work itself is wrong: such a
 * failure is `unavailable` (503, tried again by whoever waits out outages), not `internal`. Read
 * by shape, along the error's causes, so that this library needs none of the drivers.
 */
export const isOutage = (err: unknown): boolean => {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e && typeof e === 'object'; depth++) {
    if (outageHere(e as Shape)) return true;
    e = (e as Shape).cause;
  }
  return false;
};

interface Shape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: { cause?: { kind?: unknown; code?: unknown } } };
}

/** A socket that could not connect, was reset or timed out (Node's codes). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/**
 * Prisma's: the server not reached (P1001), timed out (P1002, P1008), the connection closed
 * (P1017), no connection free in the pool in time (P2024).
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/** Prisma's driver adapter's kinds for the same. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
/**
 * PostgreSQL's SQLSTATEs for a server going away or not taking connections: class 08
 * (connection exception), 57P01–57P03 (shut down, crash, starting up), 53300 (too many
 * connections).
 */
const isOutageState = (code: unknown): boolean =>
  typeof code === 'string' && (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[123]$/.test(code) || code === '53300');
/** node-postgres's own errors for a connection lost or never made (they carry no code). */
const PG_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect)/;

const outageHere = (e: Shape): boolean => {
  if (typeof e.code === 'string' && (SOCKET_CODES.has(e.code) || PRISMA_CODES.has(e.code) || isOutageState(e.code)))
    return true;
  if (e.name === 'PrismaClientInitializationError' || e.name === 'MaxRetriesPerRequestError') return true;
  const adapter = e.meta?.driverAdapterError?.cause;
  if (adapter && (ADAPTER_KINDS.has(String(adapter.kind)) || isOutageState(adapter.code))) return true;
  return typeof e.message === 'string' && PG_MESSAGES.test(e.message);
};
