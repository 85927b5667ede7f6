import { z } from 'zod';
import { errorEnvelopeSchema } from '../http/common.schemas.js';
import { PASSWORD_MAX, PASSWORD_MIN } from './password-hash.js';

export const roleEnum = z.enum(['owner', 'admin', 'member', 'viewer']);
export const email = z.string().trim().max(254).email();
export const password = z
  .string()
  .min(PASSWORD_MIN)
  .max(PASSWORD_MAX)
  .describe(`${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
/** A mailed or handed-over code: e-mail confirmation, password reset, invitation. */
export const token = z.string().min(20).max(100);
export const code = z
  .string()
  .regex(/^\d{6}$/, 'six digits')
  .describe('the six digits the authenticator app shows');

export const envelope = (description: string) => ({ description, schema: errorEnvelopeSchema });
