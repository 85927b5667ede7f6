import { createRequire } from 'node:module';
import type { NodeSDK } from '@opentelemetry/sdk-node';

let sdk: NodeSDK | undefined;

/**
 * Starts the OpenTelemetry SDK once per process when an exporter is configured through the
 * standard OTEL_* variables; without one, tracing stays a no-op and costs nothing. The SDK is
 * loaded only then (synchronously, before the caller loads anything it would instrument): it is
 * ~35 MB of resident memory in every process of a fleet that exports nothing.
 */
export const startTelemetry = (serviceName: string): void => {
  if (sdk) return;
  const exporter = process.env.OTEL_TRACES_EXPORTER;
  if (!exporter || exporter === 'none') return;
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  const { NodeSDK: Sdk } = createRequire(import.meta.url)(
    '@opentelemetry/sdk-node',
  ) as typeof import('@opentelemetry/sdk-node');
  sdk = new Sdk();
  sdk.start();
};

export const stopTelemetry = async (): Promise<void> => {
  await sdk?.shutdown();
  sdk = undefined;
};
