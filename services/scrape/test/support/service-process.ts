import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

export interface ServiceProcess {
  /** host:port its gRPC server listens on. */
  grpcUrl: string;
  stop(): Promise<void>;
}

/**
 * Another service of the fleet, run as a process of its own from its entry point (src/main.ts),
 * configured by `env` as in production: a service's tests reach the others over gRPC only, as
 * the service itself does (services never import each other). Its gRPC port (it binds port 0)
 * is read from the line it logs once listening: `{"grpcPort": …, "msg": "<service> started"}`.
 */
export const startServiceProcess = async (
  service: string,
  env: Record<string, string>,
  timeoutMs = 90_000,
): Promise<ServiceProcess> => {
  const child = spawn(process.execPath, ['--import', 'tsx', `services/${service}/src/main.ts`], {
    cwd: root,
    // Jest's NODE_OPTIONS (vm modules) are not the service's.
    env: { ...process.env, NODE_OPTIONS: '', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));

  const port = await new Promise<number>((resolve, reject) => {
    let pending = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${service} did not start in ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    // Read every line (an unread pipe would stall the child), and look for the start line.
    child.stdout.on('data', (b: Buffer) => {
      pending += b.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        let entry: { msg?: string; grpcPort?: number };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          continue;
        }
        if (entry.msg === `${service} started` && typeof entry.grpcPort === 'number') {
          clearTimeout(timer);
          resolve(entry.grpcPort);
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${service} exited with ${code} before it started: ${stderr}`));
    });
  });

  return {
    grpcUrl: `127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
};
