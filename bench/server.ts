/**
 * The server under load, in its own process so the load generator does not share its core.
 * Storage from the environment: BENCH_DATABASE_URL + BENCH_SCHEMA (PostgreSQL) or BENCH_DATA_DIR (PGlite).
 * Tells the parent `{ port }` once listening; stops gracefully on the message "stop".
 */
import { Kernel } from '../core/kernel.ts';
import { loadConfig } from '../core/config.ts';
import { builtinPlugins } from '../plugins/index.ts';

const config = loadConfig({
  env: {},
  input: {
    logLevel: 'warn',
    databaseUrl: process.env.BENCH_DATABASE_URL || undefined,
    dataDir: process.env.BENCH_DATA_DIR!,
    jobs: { enabled: true },
  },
});
const kernel = await Kernel.start({ config, plugins: builtinPlugins, schema: process.env.BENCH_SCHEMA || undefined });
const server = await kernel.listen(0, '127.0.0.1');
process.send!({ port: (server.address() as { port: number }).port });
process.on('message', async (message) => {
  if (message !== 'stop') return;
  await kernel.stop();
  process.exit(0);
});
