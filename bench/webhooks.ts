/**
 * `npm run bench -- webhooks`: the outbound webhooks figures on PostgreSQL. 1,000 record writes (sequential POSTs with
 * the editor's token) with three webhooks disabled, then 1,000 with the three enabled, in the same server; every
 * delivery goes to a receiver on loopback (`webhooks.allowPrivateNetworks`) in a process of its own
 * (bench/webhook-receiver.ts). Prints the write latencies of both halves, how long after the last write the 3,000th
 * delivery arrived, and how many were lost or duplicated. Targets: all 3,000 within 10 s of the last write, none lost,
 * none duplicated, the writes' mean at most 10 % slower with the webhooks on. BENCH_WEBHOOK_WRITES (1000),
 * BENCH_WEBHOOK_CONCURRENCY (the option `webhooks.concurrency`, 16), BENCH_WEBHOOK_MAX_DELAY_MS (`webhooks.maxDelayMs`,
 * 10,000; 0 sends at once).
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from './lib/api.ts';
import { fmt } from './lib/format.ts';
import { startServer } from './lib/server.ts';
import { postgresStorage } from './lib/storage.ts';
import { Client } from './records/client.ts';
import { percentile } from './records/report.ts';
import { createBenchDatabase } from './records/setup.ts';

/** A webhooks option set from the environment, or nothing (the plugin's default). */
const numberOption = (name: string, variable: string) => (process.env[variable] ? { [name]: Number(process.env[variable]) } : {});
const WRITES = Number(process.env.BENCH_WEBHOOK_WRITES ?? 1000);
const HOOKS = 3;

console.log(`Tessera webhooks benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);

interface Report {
  distinct: number;
  received: number;
  lastAt: number;
}
const receiver = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'webhook-receiver.ts'), [], { execArgv: ['--import', 'tsx'] });
const port = await new Promise<number>((resolve) => receiver.once('message', (m: { port: number }) => resolve(m.port)));
const report = () => new Promise<Report>((resolve) => {
  receiver.once('message', (m: Report) => resolve(m));
  receiver.send('report');
});

const storage = postgresStorage(1);
console.log(`\n${storage.label} — ${fmt(WRITES)} writes without, then with, ${HOOKS} webhooks`);
const server = await startServer(storage, null, 'server.ts', { BENCH_PLUGIN_OPTIONS: JSON.stringify({ webhooks: { allowPrivateNetworks: true, ...numberOption('concurrency', 'BENCH_WEBHOOK_CONCURRENCY'), ...numberOption('maxDelayMs', 'BENCH_WEBHOOK_MAX_DELAY_MS') } }) });
let failed = false;
try {
  const bench = await createBenchDatabase(server.url);
  const api = `${server.url}/api/v1/workspaces/${bench.workspaceId}/webhooks`;
  const hooks: string[] = [];
  for (let i = 0; i < HOOKS; i++) {
    hooks.push((await expect(201, 'webhook', api, 'POST', bench.admin.session, { url: `http://127.0.0.1:${port}/hook${i}`, events: ['record.created'], enabled: false })).id);
  }
  const client = new Client(server.url, bench.pat);
  const writes = async (label: string) => {
    const ms: number[] = [];
    for (let i = 0; i < WRITES; i++) {
      const answer = await client.request('POST', bench.records, JSON.stringify({ values: { title: `${label} ${i}` } }));
      if (answer.status !== 201) throw new Error(`write ${i}: ${answer.status} ${answer.text}`);
      ms.push(answer.ms);
    }
    const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
    console.log(`  writes ${label.padEnd(8)} mean ${fmt(mean, 2)} ms, p50 ${fmt(percentile(ms, 50), 2)} ms, p95 ${fmt(percentile(ms, 95), 2)} ms`);
    return mean;
  };
  try {
    await writes('warm-up');
    const without = await writes('without');
    for (const id of hooks) await expect(200, 'enable', `${api}/${id}`, 'PATCH', bench.admin.session, { enabled: true });
    const withHooks = await writes('with');
    const lastWrite = Date.now();
    const expected = WRITES * HOOKS;
    const deadline = lastWrite + 30_000;
    let got = await report();
    while (got.distinct < expected && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      got = await report();
    }
    await new Promise((r) => setTimeout(r, 1000));
    got = await report();
    const after = got.distinct >= expected ? (got.lastAt - lastWrite) / 1000 : Infinity;
    const duplicated = got.received - got.distinct;
    const lost = expected - got.distinct;
    const slower = (withHooks / without - 1) * 100;
    console.log(`  deliveries: ${fmt(got.distinct)} of ${fmt(expected)} distinct, the last ${fmt(after, 2)} s after the last write (target ≤ 10 s)`);
    console.log(`  lost ${fmt(lost)} (target 0), duplicated ${fmt(duplicated)} (target 0)`);
    console.log(`  write path with webhooks: ${slower >= 0 ? '+' : ''}${fmt(slower, 1)} % mean (target ≤ +10 %)`);
    failed = after > 10 || lost > 0 || duplicated > 0 || slower > 10;
    console.log(failed ? '  MISSED a target' : '  all targets met');
  } finally {
    client.close();
  }
} finally {
  await server.stop();
  await storage.cleanup();
  receiver.send('stop');
}
process.exitCode = failed ? 1 : 0;
