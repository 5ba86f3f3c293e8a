import { loadConfig } from '../core/config.ts';
import { Kernel } from '../core/kernel.ts';
import { builtinPlugins } from '../plugins/index.ts';
import { runCli } from './cli.ts';

/** Applies kernel migrations, then every enabled plugin's, in dependency order. */
await runCli(async () => {
  const config = loadConfig();
  const kernel = await Kernel.start({ config, plugins: builtinPlugins, mode: 'migrate' });
  await kernel.stop();
  process.stdout.write(`migrations applied (${kernel.database.kind})\n`);
});
