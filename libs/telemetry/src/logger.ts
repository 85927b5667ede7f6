import { pino, type Logger } from 'pino';

export type { Logger };

/** One root logger per service; modules take `logger.child({ module })`. */
export const createLogger = (service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger =>
  pino({
    name: service,
    level,
    base: { service },
    serializers: { err: pino.stdSerializers.err },
  });
