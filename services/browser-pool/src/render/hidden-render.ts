import { randomBytes } from 'node:crypto';

/**
 * Lanes render with their window minimized: a hidden page runs its scripts, timers and network
 * as usual (the pool's flags keep hidden renderers from being throttled) but produces no frames,
 * so nothing is painted or rastered for a render nobody looks at — the larger part of a visible
 * render's CPU on a small machine. What a hidden page does not run are frame callbacks:
 * requestAnimationFrame, and IntersectionObserver / ResizeObserver deliveries. A page that used
 * any of them is shown while it settles (dom-settle.ts reads the counts beside its own), and
 * given frames until its DOM stops changing (`SETTLE_FRAMES`); a screenshot render is visible
 * throughout.
 */

/** Names the page-world probe per pool process, so no page can know it in advance. */
const TOKEN = `tm${randomBytes(6).toString('hex')}`;
/** The probe's name, for dom-settle.ts, which reads it beside its own in one round trip. */
export const FRAME_PROBE_TOKEN = TOKEN;

/**
 * Runs first in every document of a lane (main world): wraps requestAnimationFrame and the
 * observers' `observe` with Proxies (their toString stays native), counting animation frames
 * still pending and whether an observer has been given a target. The counts are read through a
 * non-enumerable Symbol-keyed function whose description is the token.
 */
export const FRAME_WATCH_SCRIPT = `(() => {
  const pending = new Set();
  let observed = false;
  const raf = window.requestAnimationFrame, caf = window.cancelAnimationFrame;
  if (typeof raf !== 'function') return;
  window.requestAnimationFrame = new Proxy(raf, { apply(target, self, args) {
    const cb = args[0];
    if (typeof cb !== 'function') return Reflect.apply(target, self, args);
    let id;
    id = Reflect.apply(target, self, [function (ts) { pending.delete(id); return cb.call(this, ts); }]);
    pending.add(id);
    return id;
  } });
  window.cancelAnimationFrame = new Proxy(caf, { apply(target, self, args) { pending.delete(args[0]); return Reflect.apply(target, self, args); } });
  for (const name of ['IntersectionObserver', 'ResizeObserver']) {
    const proto = window[name] && window[name].prototype;
    if (!proto || typeof proto.observe !== 'function') continue;
    proto.observe = new Proxy(proto.observe, { apply(target, self, args) { observed = true; return Reflect.apply(target, self, args); } });
  }
  Object.defineProperty(window, Symbol(${JSON.stringify(TOKEN)}), {
    value: () => ({ frames: pending.size, observed }), enumerable: false, configurable: false, writable: false,
  });
})()`;

/** Frames, at most `max`, until one passes with no change to the DOM (a lazy section has drawn itself). */
export const SETTLE_FRAMES = (max: number) => `new Promise((resolve) => {
  let changed = true, frames = 0;
  const mo = new MutationObserver(() => { changed = true; });
  mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  const tick = () => {
    if (!changed || ++frames > ${max}) { mo.disconnect(); resolve(frames); return; }
    changed = false;
    requestAnimationFrame(() => requestAnimationFrame(tick));
  };
  requestAnimationFrame(tick);
})`;

/** Flags that keep a hidden lane running at full speed (timers, priority) while it renders. */
export const HIDDEN_RENDER_ARGS = [
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
];
