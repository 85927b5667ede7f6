export * from './guard.js';
export * from './agents.js';
export * from './networks.js';
export { EMBEDDING, judgeAddress, REFUSED_IPV4, REFUSED_IPV6, type Refusal, type RefusedRange } from './ranges.js';
