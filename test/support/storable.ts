import { expect } from '@jest/globals';

/** Every string in `value` (keys too) holds no NUL and no lone surrogate: what PostgreSQL can store. */
export const expectStorable = (value: unknown, where = 'value'): void => {
  const bad: string[] = [];
  const walk = (v: unknown, path: string) => {
    if (typeof v === 'string') {
      if (v.includes('\0') || !v.isWellFormed()) bad.push(path);
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (k.includes('\0') || !k.isWellFormed()) bad.push(`${path} key ${JSON.stringify(k)}`);
        walk(x, `${path}.${k}`);
      }
  };
  walk(value, where);
  expect(bad).toEqual([]);
};
