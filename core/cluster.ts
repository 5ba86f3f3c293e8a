import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { Kernel } from './kernel.ts';
import { StartupError } from './errors.ts';
import { checkPortFree } from './preflight.ts';
import { createLogger } from './logger.ts';
import type { KernelConfig } from './config.ts';
import type { Plugin } from './plugin.ts';

export interface ServeOptions {
  config: KernelConfig;
  plugins: Plugin[];
  /** PostgreSQL schema (benchmarks and tests isolate themselves in one). */
  schema?: string;
}

export interface Served {
  port: number;
  workers: number;
  /** In a single process, the kernel; in a primary, null (the kernels live in the workers). */
  kernel: Kernel | null;
  logger: Logger;
  stop(): Promise<void>;
}

type WorkerMessage = { tessera: 'listening'; port: number };
const STOP = 'tessera:stop';

/**
 * Serves the API: one kernel in this process, or — with `workers` > 1 — a primary that
 * migrates once, then forks that many stateless kernels sharing the port (node:cluster).
 * Forked workers re-run the same entry script and land in `serveWorker`.
 */
export async function serve(opts: ServeOptions): Promise<Served> {
  if (cluster.isWorker) return serveWorker(opts);
  // Before the migrations, which may take a while: the port is taken for good only after them.
  await checkPortFree(opts.config.port, opts.config.host);
  if (opts.config.workers > 1) return servePrimary(opts);
  const kernel = await Kernel.start({ config: opts.config, plugins: opts.plugins, schema: opts.schema });
  const server = await kernel.listen();
  return { port: (server.address() as { port: number }).port, workers: 1, kernel, logger: kernel.logger, stop: () => kernel.stop() };
}

async function serveWorker(opts: ServeOptions): Promise<Served> {
  // The primary has migrated; workers racing for the migration lock would only wait on each other.
  const config = { ...opts.config, migrateOnStart: false };
  const kernel = await Kernel.start({ config, plugins: opts.plugins, schema: opts.schema });
  const server = await kernel.listen();
  const port = (server.address() as { port: number }).port;
  const stop = () => kernel.stop().then(() => process.exit(0));
  process.on('message', (m) => m === STOP && void stop());
  // Ctrl-C reaches the whole process group; the primary coordinates, the worker just drains.
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  process.send?.({ tessera: 'listening', port } satisfies WorkerMessage);
  return { port, workers: 1, kernel, logger: kernel.logger, stop };
}

async function servePrimary(opts: ServeOptions): Promise<Served> {
  const { config } = opts;
  const logger = createLogger(config.logLevel).child({ role: 'primary' });
  if (!config.databaseUrl) {
    throw new StartupError('Config key "/workers" above 1 needs PostgreSQL (DATABASE_URL): the embedded database serves one process.', 'config_invalid');
  }
  if (config.migrateOnStart) {
    const migrator = await Kernel.start({ config, plugins: opts.plugins, schema: opts.schema, mode: 'migrate', logger });
    await migrator.stop();
  }
  let stopping = false;
  const workers = new Set<Worker>();
  const fork = () =>
    new Promise<number>((resolve, reject) => {
      const worker = cluster.fork();
      workers.add(worker);
      worker.on('message', (m: WorkerMessage) => m?.tessera === 'listening' && resolve(m.port));
      worker.once('exit', (code, signal) => {
        workers.delete(worker);
        reject(new StartupError(`A worker exited (${signal ?? code}) before listening.`, 'worker_failed'));
        if (!stopping) {
          logger.error({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
          fork().catch((err) => logger.error({ err }, 'could not restart a worker'));
        }
      });
    });
  const ports = await Promise.all(Array.from({ length: config.workers }, fork)).catch(async (err) => {
    stopping = true;
    for (const w of workers) w.kill();
    throw err;
  });
  return {
    port: ports[0],
    workers: config.workers,
    kernel: null,
    logger,
    async stop() {
      stopping = true;
      await Promise.all(
        [...workers].map((w) => new Promise<void>((resolve) => {
          w.once('exit', () => resolve());
          w.send(STOP);
        })),
      );
    },
  };
}
