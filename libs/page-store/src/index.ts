export {
  decodeBodies,
  decodeBodiesAsync,
  encodeBodies,
  encodeBodiesAsync,
  type StoredBodies,
} from './stored-bodies.js';
