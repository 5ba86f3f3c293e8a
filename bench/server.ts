/**
 * The server under load, in its own process(es) so the load generator does not share its core.
 * Storage from the environment: BENCH_DATABASE_URL + BENCH_SCHEMA (PostgreSQL) or BENCH_DATA_DIR (PGlite);
 * BENCH_WORKERS > 1 serves with that many cluster workers, as `WORKERS` does for `npm start`; BENCH_PLUGINS_OFF
 * (comma-separated ids) turns those built-in plugins off, for a run with and without them; BENCH_PLUGIN_OPTIONS (JSON,
 * `{ <plugin id>: options }`) sets plugins' options: a rate limit a benchmark would otherwise run into, the webhooks
 * suite's loopback receiver.
 * Tells the parent `{ port }` once listening; stops gracefully on the message "stop"; on "settle", fans out the events
 * recorded so far and answers "settled".
 */
import cluster from 'node:cluster';
import { loadConfig } from '../core/config.ts';
import { serve } from '../core/cluster.ts';
import { builtinPlugins } from '../plugins/index.ts';

const config = loadConfig({
  env: {},
  input: {
    logLevel: 'warn',
    port: 0,
    host: '127.0.0.1',
    databaseUrl: process.env.BENCH_DATABASE_URL || undefined,
    dataDir: process.env.BENCH_DATA_DIR!,
    workers: Number(process.env.BENCH_WORKERS || 1),
    jobs: { enabled: true },
    plugins: {
      ...Object.fromEntries(Object.entries(JSON.parse(process.env.BENCH_PLUGIN_OPTIONS || '{}') as Record<string, Record<string, unknown>>).map(([id, options]) => [id, { options }])),
      ...Object.fromEntries((process.env.BENCH_PLUGINS_OFF ?? '').split(',').filter(Boolean).map((id) => [id, { enabled: false }])),
    },
  },
});
const served = await serve({ config, plugins: builtinPlugins, schema: process.env.BENCH_SCHEMA || undefined });
if (!cluster.isWorker) {
  process.send!({ port: served.port });
  process.on('message', async (message) => {
    // Fans out every event recorded so far (one process only), then says so: a bench counts the work that follows a write.
    if (message === 'settle') {
      await served.kernel?.events.settle();
      process.send!('settled');
      return;
    }
    if (message !== 'stop') return;
    await served.stop();
    process.exit(0);
  });
}
