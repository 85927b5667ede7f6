/**
 * Reads `read` until `ok` holds of what it answered, every `everyMs`, and answers that; past
 * `timeoutMs` it fails naming `what` and the last answer (its start).
 */
export const until = async <T>(
  what: string,
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  { timeoutMs, everyMs, shown = 400 }: { timeoutMs: number; everyMs: number; shown?: number },
): Promise<T> => {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, shown)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
};
