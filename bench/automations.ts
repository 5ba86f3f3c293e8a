/**
 * `npm run bench -- automations`: the automations figures on PostgreSQL, in one server with default job polling
 * (jobs.pollingIntervalSeconds 2: a run queued by a write wakes this process's worker at commit, so polling is not on
 * the path). Three parts:
 * 1. the write path: BENCH_AUTOMATION_WRITES (1,000) record creates without automations and as many with 5 enabled
 *    `record_created` automations whose conditions never match, in ten alternating rounds (target: mean ≤ +10 %);
 * 2. latency: 100 sequential writes each triggering a one-action `update_record` run; the time from the record's
 *    `created_at` to the run's `finished_at` (target: p50 ≤ 100 ms);
 * 3. burst: BENCH_AUTOMATION_BURST (10,000) triggering writes from 16 clients at once; when the last run finished
 *    after the last write, and how many runs were lost (target: all within 60 s, none lost).
 */
import os from 'node:os';
import { expect } from './lib/api.ts';
import { fmt } from './lib/format.ts';
import { startServer } from './lib/server.ts';
import { postgresStorage } from './lib/storage.ts';
import { Client } from './records/client.ts';
import { percentile } from './records/report.ts';
import { createBenchDatabase } from './records/setup.ts';

const WRITES = Number(process.env.BENCH_AUTOMATION_WRITES ?? 1000);
const BURST = Number(process.env.BENCH_AUTOMATION_BURST ?? 10000);
const LATENCY_WRITES = 100;
/** Alternating rounds of the write-path comparison. */
const ROUNDS = 10;
const BURST_CLIENTS = 16;

console.log(`Tessera automations benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const storage = postgresStorage(1);
console.log(`\n${storage.label}`);
const server = await startServer(storage, null, 'server.ts', { BENCH_PLUGIN_OPTIONS: JSON.stringify({ automations: { maxRunsPerMinute: 100000 } }) });
let failed = false;
try {
  const bench = await createBenchDatabase(server.url);
  const databaseId = bench.records.split('/databases/')[1].split('/')[0];
  const api = `${server.url}/api/v1/workspaces/${bench.workspaceId}/automations`;
  const automation = (body: object) => expect(201, 'automation', api, 'POST', bench.admin.session, { database_id: databaseId, enabled: true, ...body });
  const client = new Client(server.url, bench.pat);
  const writes = async (label: string, n: number, title = (i: number) => `${label} ${i}`, log = true) => {
    const ms: number[] = [];
    const made: Array<{ id: string; created_at: string }> = [];
    for (let i = 0; i < n; i++) {
      const answer = await client.request('POST', bench.records, JSON.stringify({ values: { title: title(i) } }));
      if (answer.status !== 201) throw new Error(`write ${i}: ${answer.status} ${answer.text}`);
      ms.push(answer.ms);
      made.push(JSON.parse(answer.text));
    }
    const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
    if (log) console.log(`  writes ${label.padEnd(8)} mean ${fmt(mean, 2)} ms, p50 ${fmt(percentile(ms, 50), 2)} ms, p95 ${fmt(percentile(ms, 95), 2)} ms`);
    return { mean, made };
  };
  const db = await storage.open();
  try {
    // 1. The write path with 5 enabled automations that never match.
    // Rounds alternate without and with (the five switched off and on), so both see the same machine: one sequence
    // after the other moved by ±10 % between runs of the same code on this shared machine.
    await writes('warm-up', Math.min(WRITES, 300));
    const quiet: string[] = [];
    for (let i = 0; i < 5; i++) quiet.push((await automation({ name: `Quiet ${i}`, enabled: false, trigger: { type: 'record_created' }, conditions: { field: 'title', op: 'eq', value: `never ${i}` }, actions: [{ type: 'update_record', values: { notes: 'x' } }] })).id);
    const switchAll = async (enabled: boolean) => {
      for (const id of quiet) await expect(200, 'switch', `${api}/${id}`, 'PATCH', bench.admin.session, { enabled });
    };
    const round = Math.max(1, Math.round(WRITES / ROUNDS));
    const sums = { without: 0, with: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      sums.without += (await writes('without', round, undefined, false)).mean;
      await switchAll(true);
      sums.with += (await writes('with 5', round, undefined, false)).mean;
      await switchAll(false);
    }
    const [without, withFive] = [sums.without / ROUNDS, sums.with / ROUNDS];
    console.log(`  writes without automations mean ${fmt(without, 2)} ms, with 5 enabled ${fmt(withFive, 2)} ms (${ROUNDS} alternating rounds of ${round})`);
    const slower = (withFive / without - 1) * 100;
    console.log(`  write path with 5 non-matching automations: ${slower >= 0 ? '+' : ''}${fmt(slower, 1)} % mean (target ≤ +10 %)`);
    for (const id of quiet) await expect(204, 'delete', `${api}/${id}`, 'DELETE', bench.admin.session);

    // 2. Write → end of a one-action run.
    const one = await automation({ name: 'Latency', trigger: { type: 'record_created' }, conditions: { field: 'title', op: 'starts_with', value: 'lat ' }, actions: [{ type: 'update_record', values: { notes: 'done' } }] });
    const latency: number[] = [];
    for (let i = 0; i < LATENCY_WRITES; i++) {
      const { made } = await writes('latency', 1, () => `lat ${i}`, false);
      const started = Date.now();
      for (;;) {
        const run = await db.knex('automation_runs').where({ automation_id: one.id }).whereRaw("trigger->>'record_id' = ?", [made[0].id]).first('status', 'finished_at');
        if (run?.finished_at) {
          latency.push(run.finished_at.getTime() - new Date(made[0].created_at).getTime());
          break;
        }
        if (Date.now() - started > 10_000) throw new Error('a run did not finish within 10 s');
        await new Promise((r) => setTimeout(r, 2));
      }
    }
    const p50 = percentile(latency, 50);
    console.log(`  write → end of a one-action update_record run: p50 ${fmt(p50, 1)} ms, p95 ${fmt(percentile(latency, 95), 1)} ms (target p50 ≤ 100 ms; default polling, jobs.pollingIntervalSeconds 2)`);
    await expect(204, 'delete', `${api}/${one.id}`, 'DELETE', bench.admin.session);

    // 3. A burst of triggering writes.
    const burst = await automation({ name: 'Burst', trigger: { type: 'record_created' }, conditions: { field: 'title', op: 'starts_with', value: 'burst ' }, actions: [{ type: 'update_record', values: { notes: 'done' } }] });
    const clients = Array.from({ length: BURST_CLIENTS }, () => new Client(server.url, bench.pat));
    const began = Date.now();
    let next = 0;
    await Promise.all(
      clients.map(async (c) => {
        for (let i = next++; i < BURST; i = next++) {
          const answer = await c.request('POST', bench.records, JSON.stringify({ values: { title: `burst ${i}` } }));
          if (answer.status !== 201) throw new Error(`burst write ${i}: ${answer.status} ${answer.text}`);
        }
      }),
    );
    const lastWrite = Date.now();
    console.log(`  burst: ${fmt(BURST)} writes from ${BURST_CLIENTS} clients in ${fmt((lastWrite - began) / 1000, 1)} s`);
    let done = 0;
    while (Date.now() - lastWrite < 120_000) {
      done = Number((await db.knex('automation_runs').where({ automation_id: burst.id }).whereIn('status', ['succeeded', 'failed']).count({ n: '*' }))[0].n);
      if (done >= BURST) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const after = (Date.now() - lastWrite) / 1000;
    const all = Number((await db.knex('automation_runs').where({ automation_id: burst.id }).count({ n: '*' }))[0].n);
    const succeeded = Number((await db.knex('automation_runs').where({ automation_id: burst.id, status: 'succeeded' }).count({ n: '*' }))[0].n);
    console.log(`  burst runs: ${fmt(all)} made, ${fmt(succeeded)} succeeded, ${fmt(done)} finished ${fmt(after, 1)} s after the last write (${fmt((Date.now() - began) / 1000, 1)} s after the first; target all ${fmt(BURST)} within 60 s, none lost)`);
    for (const c of clients) c.close();
    failed = slower > 10 || p50 > 100 || done < BURST || after > 60;
    console.log(failed ? '  MISSED a target' : '  all targets met');
    console.log(`  load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    client.close();
    await db.close();
  }
} finally {
  await server.stop();
  await storage.cleanup();
}
process.exitCode = failed ? 1 : 0;
