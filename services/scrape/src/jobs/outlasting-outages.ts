import { asApiError } from '@tidemark/errors';

/**
 * The first pause after a failure that may pass, doubled after each until the longest: at most
 * 5 s, so a page goes on within seconds of the service's return (at 30 s a batch ran on up to half
 * a minute after billing was back); a try in an outage is one failed call and one claim.
 */
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 5_000;
/** How long one delivery of a page waits a service out before it fails as it used to. */
const OUTAGE_GIVE_UP_MS = 10 * 60_000;

/**
 * Runs `attempt`, and again after a pause while it fails because a service is out of reach
 * (`unavailable`: billing restarting, a rolling upgrade), for up to OUTAGE_GIVE_UP_MS; then, or
 * on any other error, throws it (an `internal` one, which may be a defect that fails every time,
 * is left to the message's five deliveries as before). A batch page waits billing out this way
 * with what it has fetched and read, as a crawl's lease holder does, instead of failing its
 * message: five deliveries (1 + 2 + 4 + 8 s of backoff) outlasted only ~15 s of a restart, and
 * each fetched the page again. Its message is kept meanwhile (the bus's heartbeat). `stopping`
 * (the worker stops) ends a pause at once and throws: the message goes back for another worker,
 * rather than keeping the stop waiting for the outage.
 */
export async function outlastingOutages<T>(
  attempt: (tries: number) => Promise<T>,
  onPause?: (err: unknown, pauseMs: number) => void,
  stopping?: AbortSignal,
): Promise<T> {
  const since = performance.now();
  let pause = FIRST_PAUSE_MS;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt(tries);
    } catch (err) {
      if (asApiError(err).code !== 'unavailable' || performance.now() - since >= OUTAGE_GIVE_UP_MS) throw err;
      if (stopping?.aborted) throw err;
      onPause?.(err, pause);
      await pauseFor(pause, stopping);
      if (stopping?.aborted) throw err;
      pause = Math.min(LONGEST_PAUSE_MS, pause * 2);
    }
  }
}

/** Resolves after `ms`, or at once when `stopping` is aborted. */
const pauseFor = (ms: number, stopping?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stopping?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stopping?.addEventListener('abort', done, { once: true });
  });
