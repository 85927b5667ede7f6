import { expect } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';

/** Points a schema's `$ref`s into the document's components, as OpenAPI 3.1 reads them. */
const rehome = (node: any): any =>
  Array.isArray(node)
    ? node.map(rehome)
    : node && typeof node === 'object'
      ? Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === '$ref' ? `openapi${v}` : rehome(v)]))
      : node;

/**
 * Checks real answers against the gateway's OpenAPI document (GET /docs/openapi.json): the
 * route and status must be declared, and the body must validate against the declared schema
 * (a response declared without one has no body).
 */
export const openApiChecker = (doc: any) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi', components: doc.components }, 'openapi');
  return {
    conforms(path: string, method: string, res: { status: number; body: unknown }) {
      const declared = doc.paths[path]?.[method]?.responses?.[String(res.status)];
      expect([path, method, res.status, declared !== undefined]).toEqual([path, method, res.status, true]);
      const schema = declared.content?.['application/json']?.schema;
      if (!schema) return expect(res.body).toBeUndefined();
      const validate = ajv.compile(rehome(schema));
      const valid = validate(res.body);
      expect([path, method, res.status, valid ? [] : validate.errors]).toEqual([path, method, res.status, []]);
    },
    /** A validator for a schema of the document (to show a check can fail). */
    compile: (schema: unknown) => ajv.compile(rehome(schema)),
  };
};
