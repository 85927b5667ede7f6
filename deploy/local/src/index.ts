export { startFleet, type Fleet } from './fleet.js';
export { startProcessFleet, type ProcessFleet, type ProcessFleetOptions, type ServiceName } from './process-fleet.js';
