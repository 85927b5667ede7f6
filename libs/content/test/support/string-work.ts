/**
 * The work `run` hands to String.prototype methods, counted as the length of each string one is
 * called on (what it may read or copy; a cut of a string built by concatenation copies all of
 * it). Deterministic, unlike a clock: a test bounds how it grows with its input.
 */
/** Methods that read one character wherever it is: what they cost does not grow with the string. */
const ONE_CHARACTER = new Set(['at', 'charAt', 'charCodeAt', 'codePointAt']);

export function stringWork<T>(run: () => T): { result: T; chars: number } {
  const proto = String.prototype as unknown as Record<string, unknown>;
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  let chars = 0;
  for (const name of Object.getOwnPropertyNames(String.prototype)) {
    const method = proto[name];
    if (name === 'constructor' || typeof method !== 'function') continue;
    originals.set(name, method as (...args: unknown[]) => unknown);
    proto[name] = function (this: unknown, ...args: unknown[]) {
      if (typeof this === 'string') chars += ONE_CHARACTER.has(name) ? 1 : this.length;
      return (method as (...args: unknown[]) => unknown).apply(this, args);
    };
  }
  try {
    return { result: run(), chars };
  } finally {
    for (const [name, method] of originals) proto[name] = method;
  }
}
