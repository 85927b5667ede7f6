import { InternalError } from '@tidemark/errors';

// What every mapper needs of proto3's presence rules: an absent optional field is the REST
// answer's null, and a message field the contract always sets but the wire left empty is a
// broken peer (a 500 that names the field), never a guessed default.

export const nullable = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

export const required = <T>(value: T | undefined, field: string): T => {
  if (value === undefined) throw new InternalError(new Error(`the answer has no ${field}`));
  return value;
};
