import { InternalError } from '@tidemark/errors';

// What every mapper needs of proto3's presence rules: an absent optional field is the REST
// answer's null, and a message field the contract always sets but the wire left empty is a
// broken peer (a 500 that names the field), never a guessed default.

export const nullable = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

export const required = <T>(value: T | undefined, field: string): T => {
  if (value === undefined) throw new InternalError(new Error(`the answer has no ${field}`));
  return value;
};

/**
 * A request document as google.protobuf.Struct carries it: JSON values only, so keys whose value
 * is undefined are left out as JSON leaves them (Struct would send them as empty values).
 */
export const toStruct = (value: object): Record<string, unknown> =>
  JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
