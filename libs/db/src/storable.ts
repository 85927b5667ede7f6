/**
 * What PostgreSQL can hold. A text column refuses NUL (`invalid byte sequence 0x00`), and jsonb
 * refuses both `\u0000` and a lone UTF-16 surrogate (`unsupported Unicode escape sequence`);
 * a lone surrogate in a text column turns into U+FFFD on the way anyway. Everything taken from
 * the web passes `storable` before it is written (pages, links, map rows, robots.txt, change
 * entries, events), so one hostile byte cannot fail a write and wedge the work that carries it.
 * Invalid UTF-8 never gets this far: bytes are decoded with replacement (U+FFFD) on the way in.
 */

/** Why a string cannot be stored as it is, or null when it can. */
export const unstorableReason = (s: string): string | null => {
  if (s.includes('\0')) return 'contains a NUL character (\\u0000)';
  if (!s.isWellFormed()) return 'contains a lone UTF-16 surrogate (not valid Unicode)';
  return null;
};

/** The string without NUL characters, lone surrogates replaced by U+FFFD. */
export const storableText = (s: string): string =>
  !s.includes('\0') && s.isWellFormed() ? s : s.replaceAll('\0', '').toWellFormed();

/**
 * A copy of `value` in which every string (object keys included) is `storableText`; the same
 * value when nothing needed cleaning. Buffers, dates and other non-plain objects pass as they are.
 */
export const storable = <T>(value: T): T => clean(value) as T;

const clean = (value: unknown): unknown => {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      const c = clean(v);
      if (c !== v) (out ??= value.slice())[i] = c;
    }
    return out ?? value;
  }
  if (value === null || typeof value !== 'object') return value;
  // A plain object of any realm: its prototype is an Object.prototype (whose own prototype is
  // null). Objects that crossed from a worker thread are built in another realm than a test's.
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto !== null && Object.getPrototypeOf(proto) !== null) return value;
  let out: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(value)) {
    const ck = storableText(k);
    const cv = clean(v);
    if (ck !== k || cv !== v) {
      out ??= { ...(value as Record<string, unknown>) };
      if (ck !== k) delete out[k];
      out[ck] = cv;
    }
  }
  return out ?? value;
};
