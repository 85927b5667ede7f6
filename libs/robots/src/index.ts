export {
  allowAllRobots,
  disallowAllRobots,
  MAX_ROBOTS_BYTES,
  parseRobots,
  productToken,
  robotsFromResponse,
  type ParseOptions,
  type RobotsRules,
} from './parse.js';
export { normalizePath, pathOf } from './normalize.js';
export { patternMatches } from './match.js';
