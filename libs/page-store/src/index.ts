export { decodeBodies, decodeBodiesAsync, encodeBodies, type StoredBodies } from './stored-bodies.js';
