import { TidemarkError } from '@tidemark/sdk';

/**
 * Exit codes by class, so a script can tell what went wrong without parsing text (the README
 * lists them).
 */
export const EXIT = {
  ok: 0,
  /** A fault of the CLI itself. */
  internal: 1,
  /** The command line was wrong (unknown command, missing argument). */
  usage: 2,
  /** 404: absent, or not visible to this key. */
  notFound: 3,
  /** 401/403: no key, a bad key, or a key that may not do this (forbidden, read_only, scopes). */
  auth: 4,
  /** 400/413/422: the request was refused as invalid. */
  invalid: 5,
  /** 409: e.g. a run is already queued or running. */
  conflict: 6,
  /** 402: the plan does not include it, or the credits are spent. */
  plan: 7,
  /** 429 after the client's retries. */
  rateLimited: 8,
  /** 5xx after the client's retries. */
  server: 9,
  /** No answer: the connection failed or timed out. */
  network: 10,
  /** The job or run ended, but not done (error or cancelled), or the page was not read. */
  workFailed: 11,
} as const;

export class UsageError extends Error {}

/** A job or run that ended without success: its own exit code. */
export class WorkFailedError extends Error {}

export const exitCodeOf = (err: unknown): number => {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof WorkFailedError) return EXIT.workFailed;
  if (!(err instanceof TidemarkError)) return EXIT.internal;
  if (err.status === 0) return EXIT.network;
  if (err.status === 404) return EXIT.notFound;
  if (err.status === 401 || err.status === 403) return EXIT.auth;
  if (err.status === 402) return EXIT.plan;
  if (err.status === 409) return EXIT.conflict;
  if (err.status === 429) return EXIT.rateLimited;
  if (err.status >= 500) return EXIT.server;
  if (err.status >= 400) return EXIT.invalid;
  return EXIT.internal;
};

/** The one line an error prints: the envelope's message, its code and request id. */
export const errorLine = (err: unknown): string => {
  if (err instanceof TidemarkError) {
    const where = [err.code, err.requestId ? `request ${err.requestId}` : null].filter(Boolean).join(', ');
    return `tidemark: ${err.message} [${where}]`;
  }
  if (err instanceof UsageError || err instanceof WorkFailedError) return `tidemark: ${err.message}`;
  return `tidemark: ${err instanceof Error ? err.message : String(err)} [internal]`;
};
