import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TidemarkError } from '@tidemark/sdk';

/** A tool refuses its input (beyond what its schema checks): answered as a validation envelope. */
export class ToolRefusal extends Error {
  constructor(
    message: string,
    readonly code = 'validation',
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A tool's answer: the object as structured content and as its JSON text (for clients that read text). */
export const ok = (value: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: value,
});

/** The spec's envelope `{error, code, request_id}` as a tool error. */
export const envelope = (error: string, code: string, requestId: string | null = null): CallToolResult => {
  const body = { error, code, request_id: requestId ?? `agent_${randomUUID()}` };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
};

/** What a failed call becomes: the API's own envelope when it answered, else one of ours. */
export const failure = (err: unknown): CallToolResult => {
  if (err instanceof TidemarkError) return envelope(err.message, err.code, err.requestId);
  if (err instanceof ToolRefusal) return envelope(err.message, err.code);
  if (err instanceof Error && err.name === 'WaitTimeoutError') return envelope(err.message, 'timeout');
  if (err instanceof Error && err.name === 'AbortError') return envelope('the call was cancelled', 'cancelled');
  return envelope('internal error', 'internal');
};
