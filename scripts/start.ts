import cluster from 'node:cluster';
import { loadConfig } from '../core/config.ts';
import { serve } from '../core/cluster.ts';
import { builtinPlugins } from '../plugins/index.ts';
import { runCli } from './cli.ts';

await runCli(async () => {
  const config = loadConfig();
  const served = await serve({ config, plugins: builtinPlugins });
  if (cluster.isWorker) return;
  served.logger.info(
    {
      port: served.port,
      host: config.host,
      workers: served.workers,
      database: config.databaseUrl ? 'postgres' : 'pglite',
      plugins: served.kernel?.pluginStatuses().filter((p) => p.state === 'active').map((p) => p.id),
    },
    `Tessera listening on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${served.port}/api/v1 (docs at /api/v1/docs)`,
  );
  const stop = (signal: string) => {
    served.logger.info({ signal }, 'shutting down: finishing in-flight requests');
    served.stop().then(
      () => process.exit(0),
      (err) => {
        served.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
});
