// Memory figures for tests that prove something streams or stays flat. Forced collections make
// heap figures comparable: what is left is what the process holds.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export const MB = 1024 * 1024;

/** The JavaScript heap after two forced collections. */
export const heapAfterGc = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** The heap and the Buffers outside it (where streamed bytes wait). */
export const memoryAfterGc = (): number => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

/**
 * Reads a JSON Lines answer as a slow reader would (a pause every `sampleBytes`), so a sender
 * that buffers instead of waiting shows up in the memory sampled then. Answers the `url` of
 * every line, the bytes read, what was left after the last newline, and the peak memory above
 * where it started.
 */
export const readJsonlSlowly = async (
  res: Response,
  opts: { sampleBytes: number; pauseMs: number },
): Promise<{ urls: Set<string>; bytes: number; rest: string; peak: number }> => {
  const before = memoryAfterGc();
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const urls = new Set<string>();
  let bytes = 0;
  let rest = '';
  let peak = 0;
  let nextSample = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    const lines = (rest + decoder.decode(value, { stream: true })).split('\n');
    rest = lines.pop()!;
    for (const line of lines) urls.add((JSON.parse(line) as { url: string }).url);
    if (bytes >= nextSample) {
      await new Promise((r) => setTimeout(r, opts.pauseMs));
      peak = Math.max(peak, memoryAfterGc() - before);
      nextSample += opts.sampleBytes;
    }
  }
  return { urls, bytes, rest, peak };
};
