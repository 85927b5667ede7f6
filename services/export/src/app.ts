import * as grpc from '@grpc/grpc-js';
import { exportV1 } from '@tidemark/contracts';
import { createPrismaClient, type PrismaClient } from '@tidemark/db';
import { listen, serverStream, shutdown, unaryService } from '@tidemark/rpc';
import { createLogger, type Logger } from '@tidemark/telemetry';
import type { Config } from './config.js';
import { ExportService } from './exports/export.service.js';
import { RunExportRepository } from './repositories/run-export.repository.js';
import { exportRpc } from './rpc/export.rpc.js';

export interface ExportApp {
  exports: ExportService;
  start(): Promise<{ grpcPort: number }>;
  stop(): Promise<void>;
}

export const buildApp = async (
  cfg: Config,
  overrides: { prisma?: PrismaClient; logger?: Logger } = {},
): Promise<ExportApp> => {
  const logger = overrides.logger ?? createLogger('export', cfg.LOG_LEVEL);
  const prisma = overrides.prisma ?? createPrismaClient(cfg.DATABASE_URL);
  const exports = new ExportService(new RunExportRepository(prisma), {
    batchRows: cfg.EXPORT_BATCH_ROWS,
    chunkBytes: cfg.EXPORT_CHUNK_BYTES,
  });
  const rpc = exportRpc(exports);
  const server = new grpc.Server();
  server.addService(exportV1.ExportServiceService, {
    ...unaryService<Pick<exportV1.ExportServiceServer, 'catalog'>>({ catalog: rpc.catalog }, logger),
    stream: serverStream(rpc.stream, logger, 'stream'),
  });

  return {
    exports,
    async start() {
      const grpcPort = await listen(server, cfg.EXPORT_GRPC_LISTEN);
      logger.info({ grpcPort }, 'export started');
      return { grpcPort };
    },
    async stop() {
      await shutdown(server);
      if (!overrides.prisma) await prisma.$disconnect();
    },
  };
};
