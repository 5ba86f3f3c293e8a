/**
 * `npm run bench -- public`: the public form figures on PostgreSQL. A form view of the records benchmark's database
 * (title required, status, priority, email, notes), published; then, with no credential, sequential requests on one
 * connection: the form's description, a submission that creates a record (target p50 ≤ 10 ms), a honeypot
 * submission (counted, nothing written), and, for what the form adds, the same values created by a signed-in
 * `POST …/records` with a write token (the machine is shared: compare lines of one run). The per-address limit is raised for the run (BENCH_PLUGIN_OPTIONS): every
 * request comes from one address, and still pays for its counter. Environment as bench/records.ts (BENCH_ITERATIONS,
 * BENCH_WARMUP, BENCH_BUDGET).
 */
import os from 'node:os';
import { expect } from './lib/api.ts';
import { startServer } from './lib/server.ts';
import { postgresStorage } from './lib/storage.ts';
import { Client } from './records/client.ts';
import { Report } from './records/report.ts';
import { sample } from './records/sample.ts';
import { createBenchDatabase, STATUS_LABELS } from './records/setup.ts';

const env = process.env;
const submissionBody = (i: number) =>
  JSON.stringify({ values: { title: `Request ${i}`, email: `person${i}@example.test`, status: STATUS_LABELS[i % STATUS_LABELS.length], priority: i % 10, notes: 'Sent from the public form.' } });
const options = { iterations: Number(env.BENCH_ITERATIONS ?? 500), budgetMs: Number(env.BENCH_BUDGET ?? 30) * 1000, minimum: 50, warmup: Number(env.BENCH_WARMUP ?? 50) };

console.log(`Tessera public forms benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
const storage = postgresStorage(1);
console.log(`\n${storage.label}`);
const report = new Report(true);
const server = await startServer(storage, null, 'server.ts', { BENCH_PLUGIN_OPTIONS: JSON.stringify({ public: { submissionsPerMinute: 1_000_000 } }) });
try {
  const bench = await createBenchDatabase(server.url);
  const views = `${server.url}${bench.records.replace(/\/records$/, '/views')}`;
  const view = await expect(201, 'form view', views, 'POST', bench.admin.session, {
    name: 'Intake',
    type: 'form',
    hidden_fields: ['owner', 'rating'],
    field_order: ['title', 'email', 'status', 'priority', 'notes'],
    options: { title: 'New task', required_fields: ['title'] },
  });
  const { token } = await expect(201, 'publish', `${views}/${view.id}/publish`, 'POST', bench.admin.session);
  const path = `/api/v1/public/forms/${token}`;
  report.note(`sequential requests without a credential on one connection; ${options.warmup} warm-up, then up to ${options.iterations} (≥ 50, ${options.budgetMs / 1000} s budget)`);
  const client = new Client(server.url, {});
  try {
    report.latency('GET the form', await sample(client, { ...options, status: 200 }, () => ({ method: 'GET', path })), []);
    const submission = (i: number) => ({ method: 'POST', path, body: submissionBody(i) });
    report.latency('POST a submission (creates a record)', await sample(client, { ...options, status: 201 }, submission), [{ stat: 'p50', ms: 10 }]);
    report.latency('POST a honeypot submission (nothing written)', await sample(client, { ...options, status: 201 }, (i) => ({ ...submission(i), body: JSON.stringify({ values: {}, hp: 'x' }) })), []);
  } finally {
    client.close();
  }
  const signedIn = new Client(server.url, bench.pat);
  try {
    report.latency('baseline: POST …/records, same values, write PAT', await sample(signedIn, { ...options, status: 201 }, (i) => ({ method: 'POST', path: bench.records, body: submissionBody(i) })), []);
  } finally {
    signedIn.close();
  }
} finally {
  await server.stop();
  await storage.cleanup();
}
process.exitCode = report.invalid ? 1 : 0;
