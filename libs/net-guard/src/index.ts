export * from './guard.js';
export * from './agents.js';
export { BLOCKED_RANGES } from './blocked-ranges.js';
