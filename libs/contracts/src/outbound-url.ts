import { AsyncLocalStorage } from 'node:async_hooks';
import type { z } from 'zod';

/**
 * The save-time answer of the fetch guard for a URL Tidemark will send to or fetch later: the
 * reason it is refused, or null. The gateway passes `FetchGuard.checkUrl` (libs/net-guard); the
 * contracts do not depend on the guard or its settings.
 */
export type OutboundUrlCheck = (url: string) => string | null;

const scope = new AsyncLocalStorage<OutboundUrlCheck>();

/**
 * Runs `parse` with a check in scope: every outbound URL field the schema meets is judged by it,
 * and a refusal is an ordinary zod issue at the field's own path (`webhook.url`,
 * `config.output.chat_url`, `config.feeds.2`). Outside such a scope (a service re-reading a
 * request the gateway already checked) the fields are plain http(s) URLs.
 */
export const withOutboundUrlCheck = <T>(check: OutboundUrlCheck, parse: () => T): T => scope.run(check, parse);

/** The refinement outbound URL fields carry (usable inside a transform too). */
export const refuseGuardedUrl = (url: string, ctx: z.RefinementCtx): void => {
  const refusal = scope.getStore()?.(url);
  if (refusal) ctx.addIssue({ code: 'custom', message: refusal });
};
