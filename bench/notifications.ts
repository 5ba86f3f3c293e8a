/**
 * `npm run bench:notifications` (also `npm run bench -- notifications`): issue 17's notification figures on
 * PostgreSQL — the badge (`GET …/notifications/unread-count`) of one user holding 100,000 notifications, first with
 * 1% of them unread (a user who reads their inbox), then with every one unread (the worst case, no target), and the
 * first page of their inbox. Seeded by SQL, then VACUUM ANALYZE. Environment as bench/records.ts (BENCH_ITERATIONS,
 * BENCH_WARMUP, BENCH_BUDGET); BENCH_NOTIFICATIONS (100000).
 */
import os from 'node:os';
import { fmt } from './lib/format.ts';
import { startServer } from './lib/server.ts';
import { postgresStorage } from './lib/storage.ts';
import { Client } from './records/client.ts';
import { Report, type LatencyTarget } from './records/report.ts';
import { sample } from './records/sample.ts';
import { createBenchDatabase } from './records/setup.ts';

const env = process.env;
const COUNT = Number(env.BENCH_NOTIFICATIONS ?? 100_000);
const options = { iterations: Number(env.BENCH_ITERATIONS ?? 300), budgetMs: Number(env.BENCH_BUDGET ?? 30) * 1000, minimum: 50, warmup: Number(env.BENCH_WARMUP ?? 30), status: 200 };
const p50 = (ms: number): LatencyTarget[] => [{ stat: 'p50', ms }];

console.log(`Tessera notifications benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
const storage = postgresStorage(1);
console.log(`\n${storage.label} — ${fmt(COUNT)} notifications for one user`);
const report = new Report(true);
const server = await startServer(storage);
try {
  const bench = await createBenchDatabase(server.url);
  const db = await storage.open();
  const started = Date.now();
  const setUnread = async (every: number) => {
    // Notification n is unread when n is a multiple of `every`.
    await db.knex.raw('UPDATE notifications SET read_at = CASE WHEN (data->>?)::int % ? = 0 THEN NULL ELSE created_at END WHERE user_id = ?', ['n', every, bench.editor.id]);
    await db.knex.raw('VACUUM ANALYZE notifications');
  };
  try {
    await db.knex.raw(
      `INSERT INTO notifications (workspace_id, user_id, type, actor_id, subject_type, subject_id, subject_title, data, created_at)
         SELECT ?::uuid, ?::uuid, (ARRAY['mention','comment','record_updated','assigned'])[g % 4 + 1], ?::uuid, 'record', gen_random_uuid(),
                'Record ' || g, jsonb_build_object('n', g), now() - (? - g) * interval '1 minute'
           FROM generate_series(1, ?) g`,
      [bench.workspaceId, bench.editor.id, bench.admin.id, COUNT, COUNT],
    );
    await setUnread(100);
    report.note(`seeded by SQL in ${fmt((Date.now() - started) / 1000, 1)} s, then VACUUM ANALYZE`);
    report.note(`sequential requests with the user's PAT; ${options.warmup} warm-up, then up to ${options.iterations} (≥ 50, ${options.budgetMs / 1000} s budget)`);
    const client = new Client(server.url, bench.pat);
    const path = `/api/v1/workspaces/${bench.workspaceId}/notifications`;
    const count = async () => JSON.parse((await client.request('GET', `${path}/unread-count`)).text).count as number;
    try {
      const badge = { method: 'GET', path: `${path}/unread-count` };
      report.note(`  (the badge says ${fmt(await count())})`);
      // The same route for a user with no notification: what the request costs before its one count.
      const empty = new Client(server.url, bench.admin.session);
      try {
        report.latency('unread-count, a user with none (baseline)', await sample(empty, options, () => badge), []);
      } finally {
        empty.close();
      }
      report.latency(`unread-count, ${fmt(COUNT)} notifications, 1% unread`, await sample(client, options, () => badge), p50(2));
      report.latency('inbox, first page of 50', await sample(client, options, () => ({ method: 'GET', path })), []);
      report.latency('unread, first page of 50', await sample(client, options, () => ({ method: 'GET', path: `${path}?status=unread` })), []);
      await setUnread(1);
      report.note(`  (the badge says ${fmt(await count())})`);
      report.latency(`unread-count, all ${fmt(COUNT)} unread (no target)`, await sample(client, options, () => badge), []);
    } finally {
      client.close();
    }
  } finally {
    await db.close();
  }
} finally {
  await server.stop();
  await storage.cleanup();
}
process.exitCode = report.invalid ? 1 : 0;
