import { z } from 'zod';

export const errorEnvelopeSchema = z
  .object({
    error: z.string().describe('what happened'),
    code: z.string().describe('what it means: one of the codes listed by GET /v1/meta'),
    request_id: z.string().describe('same as the X-Request-Id header'),
    details: z.object({}).passthrough().optional().describe('for validation errors: fields[] with field and message'),
  })
  .meta({ id: 'Error' });

export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    next: z.string().nullable().describe('ready-made URL of the following page, or null when finished'),
    cursor: z.string().nullable().describe('cursor of the following page, or null'),
  });

export const idParam = z.object({ id: z.string().min(1).max(100) });
