import { NodeSDK } from '@opentelemetry/sdk-node';

let sdk: NodeSDK | undefined;

/**
 * Starts the OpenTelemetry SDK once per process when an exporter is configured through the
 * standard OTEL_* variables; without one, tracing stays a no-op and costs nothing.
 */
export const startTelemetry = (serviceName: string): void => {
  if (sdk) return;
  const exporter = process.env.OTEL_TRACES_EXPORTER;
  if (!exporter || exporter === 'none') return;
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  sdk = new NodeSDK();
  sdk.start();
};

export const stopTelemetry = async (): Promise<void> => {
  await sdk?.shutdown();
  sdk = undefined;
};
