import { randomBytes } from 'node:crypto';
import { FRAME_PROBE_TOKEN } from './hidden-render.js';

/**
 * Single-page apps render after the load event: a bundle waits on a timer, fetches its data,
 * draws in an animation frame. A render is captured once the page has settled: no DOM mutation
 * for `SETTLE_QUIET_MS`, no request in flight for as long, and none of the page's short timers
 * still to run — or once `SETTLE_MAX_MS` (bounded by the page's time budget) has passed, when
 * the page is captured as it stands (a ticking clock or an endless animation never settles).
 *
 * The page is watched from inside (`SETTLE_WATCH_SCRIPT`, run first in every document of a lane,
 * main world, like the frame watch of hidden-render.ts) and from the network (render.service.ts
 * counts the requests in flight). Timers are counted only when they are one-shot, due within
 * `TIMER_HORIZON_MS` when set, and not the fourth or later link of a chain of timers each set
 * by the last (a clock re-arming itself, a poll): those are how a page keeps itself busy, not
 * how it finishes rendering. `setInterval` is never counted, nor are animation frames on a page
 * that is shown (an animation asks for them forever); a hidden page that asks for frames is
 * shown first (hidden-render.ts), so they run.
 */

/** How long the DOM and the network must both be still. */
export const SETTLE_QUIET_MS = 100;
/** The longest a page is waited for after its wait condition, within its own time budget. */
export const SETTLE_MAX_MS = 10_000;
/** A one-shot timer due within this long when it is set is waited for. */
export const TIMER_HORIZON_MS = 3_000;
/** Timers set by timers: links of a chain past this one are not waited for. */
const TIMER_CHAIN = 3;

/** Names the page-world probe per pool process, so no page can know it in advance. */
const TOKEN = `tm${randomBytes(6).toString('hex')}`;

/**
 * Counts the DOM's last mutation and the short timers pending. setTimeout, clearTimeout,
 * requestIdleCallback and cancelIdleCallback are wrapped in Proxies (their toString stays
 * native); the counts are read through a non-enumerable Symbol-keyed function.
 */
export const SETTLE_WATCH_SCRIPT = `(() => {
  const now = () => performance.now();
  let last = now();
  let chain = 0;
  const pending = new Set();
  const track = (setter, clearer, delayOf) => {
    const set = window[setter], clear = window[clearer];
    if (typeof set !== 'function') return;
    window[setter] = new Proxy(set, { apply(target, self, args) {
      const cb = args[0];
      if (typeof cb !== 'function') return Reflect.apply(target, self, args);
      const link = chain + 1;
      const counted = delayOf(args) <= ${TIMER_HORIZON_MS} && link <= ${TIMER_CHAIN};
      const key = { kind: setter };
      const id = Reflect.apply(target, self, [function () {
        pending.delete(key);
        const before = chain;
        chain = link;
        try { return cb.apply(this, arguments); } finally { chain = before; }
      }, ...args.slice(1)]);
      if (counted) { key.id = id; pending.add(key); }
      return id;
    } });
    if (typeof clear === 'function')
      window[clearer] = new Proxy(clear, { apply(target, self, args) {
        for (const key of pending) if (key.id === args[0] && key.kind === setter) pending.delete(key);
        return Reflect.apply(target, self, args);
      } });
  };
  track('setTimeout', 'clearTimeout', (args) => Number(args[1]) || 0);
  track('requestIdleCallback', 'cancelIdleCallback', (args) => (args[1] && Number(args[1].timeout)) || 0);
  new MutationObserver(() => { last = now(); })
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  Object.defineProperty(window, Symbol(${JSON.stringify(TOKEN)}), {
    value: () => ({ quietMs: now() - last, timers: pending.size }), enumerable: false, configurable: false, writable: false,
  });
})()`;

/** What the page says of itself: DOM quiet for, short timers pending, animation frames asked for. */
export interface SettleProbe {
  quietMs: number;
  timers: number;
  frames: number;
  observed: boolean;
}

/** Reads both watches in one round trip; null when the page has neither (treated as unsettled). */
export const SETTLE_PROBE = `(() => {
  const find = (token) => {
    const key = Object.getOwnPropertySymbols(window).find((s) => s.description === token);
    return key ? window[key]() : null;
  };
  const settle = find(${JSON.stringify(TOKEN)});
  const frames = find(${JSON.stringify(FRAME_PROBE_TOKEN)});
  if (!settle) return null;
  return { quietMs: settle.quietMs, timers: settle.timers, frames: frames ? frames.frames : 0, observed: frames ? frames.observed : false };
})()`;

/** Whether the page has settled, by its own account and the network's. */
export const isSettled = (probe: SettleProbe, networkQuietMs: number, inFlight: number): boolean =>
  inFlight === 0 && networkQuietMs >= SETTLE_QUIET_MS && probe.quietMs >= SETTLE_QUIET_MS && probe.timers === 0;
