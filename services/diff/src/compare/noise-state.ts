// What the noise filter remembers between runs, as plain JSON the caller stores (one object per
// project) and hands back to the next comparison. Parsed with zod, so a state written by an
// older version or damaged in storage starts over instead of failing a run.

import { z } from 'zod';

/** One comparison of a page: the run ordinal and the keys of the blocks that changed in it. */
const observationSchema = z.object({ run: z.number().int(), keys: z.array(z.string()) });

const pageNoiseSchema = z.object({
  /** Versions of the page recorded so far (the newest is version v). */
  v: z.number().int().min(0),
  /** Block fingerprint → newest version it was seen in; only the last N versions are kept. */
  seen: z.record(z.string(), z.number().int()),
  /** The last N comparisons in which the page's content changed. */
  obs: z.array(observationSchema),
});

export const noiseStateSchema = z.object({
  format: z.literal(1),
  /** Ordinal of the last comparison recorded (one per compared run). */
  run: z.number().int().min(0),
  pages: z.record(z.string(), pageNoiseSchema),
});

export type PageNoise = z.infer<typeof pageNoiseSchema>;
export type NoiseState = z.infer<typeof noiseStateSchema>;

export const emptyNoiseState = (): NoiseState => ({ format: 1, run: 0, pages: {} });

/** A stored state, or a fresh one when it is missing or unreadable. */
export function parseNoiseState(stored: unknown): NoiseState {
  const parsed = noiseStateSchema.safeParse(stored);
  return parsed.success ? parsed.data : emptyNoiseState();
}
