import type { z } from 'zod';
import { ValidationError } from '@tidemark/errors';

type Where = 'body' | 'query' | 'path';

const describeIssue = (where: Where, issue: z.core.$ZodIssue): { field: string; message: string } => {
  const path = [where, ...issue.path.map(String)];
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `"${k}"`).join(', ');
    return { field: path.join('.'), message: `unknown key${issue.keys.length > 1 ? 's' : ''} ${keys}` };
  }
  return { field: path.join('.'), message: issue.message };
};

/**
 * Parses one part of a request. The error names the field (`body.config.max_pages: ...`) and
 * lists every problem in details.fields. A bad body is 422; a bad query or path is 400.
 */
export const validate = <S extends z.ZodType>(schema: S, value: unknown, where: Where): z.output<S> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fields = result.error.issues.map((i) => describeIssue(where, i));
  const first = fields[0]!;
  const more = fields.length > 1 ? ` (and ${fields.length - 1} more)` : '';
  throw new ValidationError(`${first.field}: ${first.message}${more}`, { fields }, where === 'body' ? 422 : 400);
};
