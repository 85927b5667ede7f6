import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './exit-codes.js';
import { GLOBAL_OPTIONS } from './context.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** A command's arguments with the global ones (--json, --key, --api); a wrong one is a usage error. */
export const parse = <O extends Options>(args: string[], options: O) => {
  try {
    return parseArgs({ args, options: { ...GLOBAL_OPTIONS, ...options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
};

export const positiveInt = (value: string | undefined, name: string): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} takes a whole number above 0, not "${value}"`);
  return n;
};
