import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt at N=2^15 (~64 MB·ms of work per guess): the cost is kept in each hash so it can rise. */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

const derive = (password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) =>
    scrypt(
      password.normalize('NFKC'),
      salt,
      KEY_LENGTH,
      { ...opts, maxmem: 128 * opts.N! * opts.r! * 2 },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );

/** `scrypt$N$r$p$<salt b64>$<key b64>` */
export const hashPassword = async (password: string): Promise<string> => {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
};

/** A stored hash nobody's password matches: checked against when the account is unknown, so timing tells nothing. */
const DECOY = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

export const verifyPassword = async (password: string, stored: string | null | undefined): Promise<boolean> => {
  const parts = (stored ?? DECOY).split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, key] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return (
    stored !== null && stored !== undefined && expected.length === actual.length && timingSafeEqual(expected, actual)
  );
};

/** A wrong password and an unknown address get the same words, so they do not tell which exist. */
export const WRONG_PASSWORD = 'wrong e-mail or password';
