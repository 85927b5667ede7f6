import { describe, expect, it } from '@jest/globals';
import { changeKindEnum, CHANGE_KINDS, diffV1, markupChangeKindEnum, protoEnum } from '../src/index.js';

describe('protoEnum', () => {
  it('pairs every name with its proto value, both ways', () => {
    expect(changeKindEnum.toProto('unverified')).toBe(diffV1.ChangeKind.CHANGE_KIND_UNVERIFIED);
    expect(CHANGE_KINDS.map((k) => changeKindEnum.fromProto(changeKindEnum.toProto(k)))).toEqual([...CHANGE_KINDS]);
    expect(markupChangeKindEnum.fromProto(diffV1.MarkupChangeKind.MARKUP_CHANGE_KIND_ATTR)).toBe('attr');
  });

  it('spells a name with dots or dashes as the enum key does', () => {
    enum Method {
      METHOD_UNSPECIFIED = 0,
      METHOD_SITEMAP_XML = 1,
      METHOD_LLMS_FULL = 2,
    }
    const codec = protoEnum(Method, 'METHOD', ['sitemap.xml', 'llms-full'] as const);
    expect([codec.toProto('sitemap.xml'), codec.toProto('llms-full')]).toEqual([1, 2]);
    expect(codec.fromProto(Method.METHOD_LLMS_FULL)).toBe('llms-full');
  });

  it('refuses names and an enum that do not cover each other, and values it does not know', () => {
    enum Kind {
      KIND_UNSPECIFIED = 0,
      KIND_A = 1,
      KIND_B = 2,
      UNRECOGNIZED = -1,
    }
    expect(() => protoEnum(Kind, 'KIND', ['a', 'c'])).toThrow('no value KIND_C for "c"');
    expect(() => protoEnum(Kind, 'KIND', ['a'])).toThrow('KIND_B has no name');
    const codec = protoEnum(Kind, 'KIND', ['a', 'b']);
    expect(() => codec.fromProto(Kind.KIND_UNSPECIFIED)).toThrow('unknown value 0');
    expect(() => codec.fromProto(Kind.UNRECOGNIZED)).toThrow('unknown value -1');
  });
});
