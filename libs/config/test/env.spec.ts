import { describe, expect, it } from '@jest/globals';
import { envBoolean } from '../src/index.js';

describe('envBoolean', () => {
  it("reads '0' and 'false' as false, which z.coerce.boolean gets wrong", () => {
    for (const v of ['0', 'false', 'no', 'off', 'FALSE']) expect(envBoolean.parse(v)).toBe(false);
    for (const v of ['1', 'true', 'yes', 'on']) expect(envBoolean.parse(v)).toBe(true);
    expect(envBoolean.safeParse('maybe').success).toBe(false);
  });
});
