export * from './bus.js';
export * from './subjects.js';
export * from './event-consumer.js';
export * from './stalled-work-watchdog.js';
