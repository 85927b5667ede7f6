/**
 * Pairs a generated proto enum with the names the REST API and the services use for its values:
 * `CHANGE_KIND_ADDED` ↔ `'added'`, `DATASET_LLMS_FULL` ↔ `'llms-full'`, `MAP_METHOD_SITEMAP_XML`
 * ↔ `'sitemap.xml'` (the name upper-cased, every run of other characters an underscore, after
 * the enum's prefix). Both sides of a call use the same codec, so the vocabulary is written once.
 * Building one checks that the names and the enum cover each other exactly.
 */
export interface ProtoEnum<N extends string, E extends number> {
  readonly names: readonly N[];
  toProto(name: N): E;
  /** Throws on the zero value or a value this build does not know: a broken contract. */
  fromProto(value: E): N;
}

export const protoEnum = <E extends number, const N extends string>(
  enumObject: Record<string, E | string>,
  prefix: string,
  names: readonly N[],
): ProtoEnum<N, E> => {
  const byName = new Map<N, E>();
  const byValue = new Map<number, N>();
  for (const name of names) {
    const key = `${prefix}_${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
    const value = enumObject[key];
    if (typeof value !== 'number') throw new Error(`proto enum ${prefix}: no value ${key} for "${name}"`);
    byName.set(name, value);
    byValue.set(value, name);
  }
  for (const [key, value] of Object.entries(enumObject)) {
    if (typeof value !== 'number' || value <= 0) continue; // reverse entries, UNSPECIFIED, UNRECOGNIZED
    if (!byValue.has(value)) throw new Error(`proto enum ${prefix}: ${key} has no name`);
  }
  return {
    names,
    toProto: (name) => {
      const value = byName.get(name);
      if (value === undefined) throw new Error(`proto enum ${prefix}: unknown name "${name}"`);
      return value;
    },
    fromProto: (value) => {
      const name = byValue.get(value);
      if (name === undefined) throw new Error(`proto enum ${prefix}: unknown value ${value}`);
      return name;
    },
  };
};
