import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * One root logger per service; modules take `logger.child({ module })`. Lines go to stdout
 * unless `opts.destination` names another file descriptor (2: stderr, for a process whose stdout
 * is a protocol, like the tool server over stdio).
 */
export const createLogger = (
  service: string,
  level = process.env.LOG_LEVEL ?? 'info',
  opts: { destination?: number } = {},
): Logger => {
  const options = { name: service, level, base: { service }, serializers: { err: pino.stdSerializers.err } };
  return opts.destination === undefined ? pino(options) : pino(options, pino.destination(opts.destination));
};
