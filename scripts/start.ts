import { loadConfig } from '../core/config.ts';
import { Kernel } from '../core/kernel.ts';
import { builtinPlugins } from '../plugins/index.ts';
import { runCli } from './cli.ts';

await runCli(async () => {
  const config = loadConfig();
  const kernel = await Kernel.start({ config, plugins: builtinPlugins });
  await kernel.listen();
  kernel.logger.info(
    { port: config.port, host: config.host, database: kernel.database.kind, plugins: kernel.pluginStatuses().filter((p) => p.state === 'active').map((p) => p.id) },
    `Tessera listening on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}/api/v1 (docs at /api/v1/docs)`,
  );
  const stop = (signal: string) => {
    kernel.logger.info({ signal }, 'shutting down: finishing in-flight requests');
    kernel.stop().then(
      () => process.exit(0),
      (err) => {
        kernel.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
});
