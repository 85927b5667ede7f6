import { createHash, randomBytes } from 'node:crypto';

/** Session, e-mail and invite tokens: 256 random bits, stored as a SHA-256 only. */
export const mintToken = (): string => randomBytes(32).toString('base64url');
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Addresses are compared lower-cased. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
