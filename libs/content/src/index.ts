export type { ContentFormat, ContentOptions, ContentResult, FieldSpec, Head } from './types.js';
export { parseDocument } from './parse-document.js';
export { extractContent } from './extract-content.js';
export { readHead } from './head.js';
export { collectLinks } from './links.js';
export { readFields, type FieldValues } from './fields.js';
export { detectLanguage, primaryLanguage } from './language.js';
export { explainRemovals, type Removal, type RemovalOptions } from './removals.js';
