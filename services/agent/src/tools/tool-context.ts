import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { hasEnded, pollUntil, type Tidemark } from '@tidemark/sdk';
import type { z } from 'zod';
import { LIMITS, shapeMultiPage, type RowLike } from '../shaping/shape.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What every tool of one connection works with. */
export interface ToolContext {
  tm: Tidemark;
  /** How long a tool asked to wait (a run, a crawl, a batch) waits before answering with the job as it is. */
  waitMaxMs: number;
  pollMs: number;
  /** The config key that switches document reading, when this deployment has one (read from GET /meta). */
  documentKey(): Promise<string | null>;
}

export interface ToolDef<S extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: S;
  /** Neither reaches a site nor changes the workspace. */
  readOnly: boolean;
  run(args: z.infer<z.ZodObject<S>>, ctx: ToolContext, extra: Extra): Promise<Record<string, unknown>>;
}

export const defineTool = <S extends z.ZodRawShape>(def: ToolDef<S>): ToolDef<S> => def;

/**
 * Polls a job until it ends, at most `ctx.waitMaxMs`, sending MCP progress notifications when the
 * client asked for them (a progress token): so a client that resets its timeout on progress
 * waits as long as the job runs. Answers the last state and whether it has ended.
 */
export const waitForJob = async <T extends { status: string }>(
  ctx: ToolContext,
  extra: Extra,
  what: string,
  read: () => Promise<T>,
  describe: (state: T) => string,
): Promise<{ state: T; ended: boolean }> => {
  let tick = 0;
  let last: T | undefined;
  try {
    const state = await pollUntil(what, read, hasEnded, {
      intervalMs: ctx.pollMs,
      timeoutMs: ctx.waitMaxMs,
      signal: extra.signal,
      onProgress: (s) => {
        last = s;
        const token = extra._meta?.progressToken;
        if (token === undefined) return;
        // Progress must grow with each notification: it counts polls; the message says where the job is.
        void extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: ++tick, message: describe(s) },
          })
          .catch(() => undefined);
      },
    });
    return { state, ended: true };
  } catch (err) {
    if ((err as Error).name === 'WaitTimeoutError' && last) return { state: last, ended: false };
    throw err;
  }
};

export const progressText = (
  kind: string,
  s: { progress?: { done: number; total: number; queued: number }; creditsUsed?: number },
) =>
  s.progress
    ? `${kind}: ${s.progress.done}/${s.progress.total} pages, ${s.progress.queued} queued, ${s.creditsUsed ?? 0} credits`
    : kind;

type PageOf = { data: RowLike[]; next: string | null; cursor?: string | null };
const PAGE = 100;

/**
 * The pages of a paged list shaped for an agent: the first 100 rows with their bodies (for the
 * excerpt), then rows with links only until the index holds 500. Answers the cursor to go on
 * from, or null when every row was read.
 */
export const readShapedPages = async (
  read: (q: { cursor?: string; limit: number; formats: string }) => Promise<PageOf>,
  cursor?: string,
) => {
  const first = await read({ ...(cursor ? { cursor } : {}), limit: PAGE, formats: 'markdown,links' });
  const rows = [...first.data];
  let page: PageOf = first;
  while (rows.length < LIMITS.indexPages && page.data.length === PAGE && page.next && page.cursor) {
    page = await read({ cursor: page.cursor, limit: PAGE, formats: 'links' });
    rows.push(...page.data);
  }
  const more = page.next !== null && !!page.cursor;
  return { ...shapeMultiPage(rows, first.data), cursor: more ? page.cursor! : null };
};
