/**
 * `npm run bench:relations` (also `npm run bench -- relations`): issue 5's benchmarks on
 * PostgreSQL — 1,000,000 tasks (the records bench's database) linked one-to-many to 10,000
 * projects: a page of 100 tasks with 2 lookups and 1 rollup of their project, a page of 100
 * projects with 2 lookups and 1 rollup over their ~100 tasks each, and tasks filtered through
 * the link (`project.status = x`) sorted by an indexed field; and bulk creates of 100 tasks
 * without and with an auto-link rule (task notes ↔ project name). Environment as bench/records.ts
 * (BENCH_ITERATIONS, BENCH_WARMUP, BENCH_BUDGET); BENCH_CHILDREN (1000000), BENCH_PARENTS (10000).
 */
import os from 'node:os';
import { expect } from './lib/api.ts';
import { fmt } from './lib/format.ts';
import { startServer } from './lib/server.ts';
import { postgresStorage } from './lib/storage.ts';
import { Client } from './records/client.ts';
import { Report, type LatencyTarget } from './records/report.ts';
import { sample } from './records/sample.ts';
import { seedRecords } from './records/seed.ts';
import { createBenchDatabase, STATUS_LABELS } from './records/setup.ts';
import { newRecordValues } from './records/values.ts';
import { columnNameOf, tableNameOf } from '../plugins/databases/names.ts';

const env = process.env;
const CHILDREN = Number(env.BENCH_CHILDREN ?? 1_000_000);
const PARENTS = Number(env.BENCH_PARENTS ?? 10_000);
const options = { iterations: Number(env.BENCH_ITERATIONS ?? 300), budgetMs: Number(env.BENCH_BUDGET ?? 30) * 1000, minimum: 50, warmup: Number(env.BENCH_WARMUP ?? 30), status: 200 };
const p50 = (ms: number): LatencyTarget[] => [{ stat: 'p50', ms }];

console.log(`Tessera relations benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
const storage = postgresStorage(1);
console.log(`\n${storage.label} — ${fmt(CHILDREN)} tasks linked to ${fmt(PARENTS)} projects`);
const report = new Report(true);
const server = await startServer(storage);
try {
  const bench = await createBenchDatabase(server.url);
  const api = `${server.url}/api/v1/workspaces/${bench.workspaceId}`;
  const admin = bench.admin.session;
  const space = (await expect(200, 'spaces', `${api}/spaces`, 'GET', admin)).data[0].id;
  const projects = await expect(201, 'projects', `${api}/databases`, 'POST', admin, { name: 'Projects', space_id: space });
  const tasksDb = bench.records.split('/')[6];
  const pfields = `${api}/databases/${projects.id}/fields`;
  const status = await expect(201, 'project status', pfields, 'POST', admin, { name: 'Status', type: 'single_select', options: { choices: STATUS_LABELS.map((label) => ({ label })) } });
  const budget = await expect(201, 'project budget', pfields, 'POST', admin, { name: 'Budget', type: 'number' });
  const relation = await expect(201, 'relation', `${api}/relations`, 'POST', admin, { from_database_id: projects.id, to_database_id: tasksDb, kind: 'one_to_many', from_field_name: 'Tasks', to_field_name: 'Project' });
  const tfields = `${api}/databases/${tasksDb}/fields`;
  for (const [name, target] of [['Project status', 'status'], ['Project budget', 'budget']]) {
    await expect(201, name, tfields, 'POST', admin, { name, type: 'lookup', options: { link_field_id: 'project', target_field_id: target } });
  }
  await expect(201, 'rollup', tfields, 'POST', admin, { name: 'Project budget max', type: 'rollup', options: { link_field_id: 'project', target_field_id: 'budget', function: 'max' } });
  for (const [name, target] of [['Task titles', 'title'], ['Task amounts', 'amount']]) {
    await expect(201, name, pfields, 'POST', admin, { name, type: 'lookup', options: { link_field_id: 'tasks', target_field_id: target } });
  }
  await expect(201, 'rollup', pfields, 'POST', admin, { name: 'Amount total', type: 'rollup', options: { link_field_id: 'tasks', target_field_id: 'amount', function: 'sum' } });

  const db = await storage.open();
  const started = Date.now();
  try {
    await seedRecords(db, bench, CHILDREN, () => {});
    const ptable = tableNameOf(projects.id);
    const title = columnNameOf(projects.fields.find((f: { is_title: boolean }) => f.is_title).id);
    await db.knex.raw(
      `INSERT INTO ?? (position, created_by, updated_by, ??, ??, ??)
         SELECT 'a' || lpad(g::text, 8, '0'), ?::uuid, ?::uuid, 'Project ' || g, (?::uuid[])[g % 5 + 1], (g % 1000) * 10
           FROM generate_series(1, ?) g ORDER BY g`,
      [ptable, title, columnNameOf(status.id), columnNameOf(budget.id), bench.admin.id, bench.admin.id, status.options.choices.map((c: { id: string }) => c.id), PARENTS],
    );
    // Each task belongs to one project: task n → project n mod PARENTS.
    await db.knex.raw(
      `INSERT INTO ?? (from_id, to_id) SELECT p.id, t.id FROM ?? t JOIN (SELECT id, row_number() OVER (ORDER BY number) - 1 AS k FROM ??) p ON p.k = t.number % ?`,
      [`lnk_${relation.id.replace(/-/g, '')}`, bench.table, ptable, PARENTS],
    );
    await db.knex.raw('VACUUM ANALYZE ??', [ptable]);
    await db.knex.raw('VACUUM ANALYZE ??', [`lnk_${relation.id.replace(/-/g, '')}`]);
  } finally {
    await db.close();
  }
  report.note(`seeded by SQL in ${fmt((Date.now() - started) / 1000, 1)} s: tasks as in the records bench, ${fmt(PARENTS)} projects, ${fmt(CHILDREN)} links`);
  report.note(`sequential requests with the editor's PAT; ${options.warmup} warm-up, then up to ${options.iterations} (≥ 50, ${options.budgetMs / 1000} s budget)`);
  const client = new Client(server.url, bench.pat);
  try {
    const query = (database: string, body: object) => ({ method: 'POST', path: `/api/v1/workspaces/${bench.workspaceId}/databases/${database}/records/query`, body: JSON.stringify(body) });
    const check = async (request: { method: string; path: string; body: string }, expected: number) => {
      const answer = await client.request(request.method, request.path, request.body);
      const body = JSON.parse(answer.text);
      if (answer.status !== 200 || body.data?.length !== expected) throw new Error(`${request.path}: ${answer.status} ${answer.text.slice(0, 300)}`);
      return body.data;
    };
    const tasksPage = query(tasksDb, { limit: 100 });
    const [task] = await check(tasksPage, 100);
    if (task.values.project_status?.length !== 1 || typeof task.values.project_budget_max !== 'number') throw new Error(`lookups missing: ${JSON.stringify(task.values)}`);
    report.latency('page of 100 tasks: 2 lookups + 1 rollup', await sample(client, options, () => tasksPage), p50(60));
    const projectsPage = query(projects.id, { limit: 100 });
    const [project] = await check(projectsPage, 100);
    report.note(`  (each project shows ${fmt(project.values.task_titles.length)} task titles and amounts)`);
    // The page is of the 1M side (tasks); this is the other side, each project carrying ~100 values per lookup.
    report.latency('page of 100 projects: 2 lookups + 1 rollup (no target)', await sample(client, options, () => projectsPage), []);
    const through = query(tasksDb, { filter: { field: 'project.status', op: 'eq', value: STATUS_LABELS[1] }, sorts: [{ field: 'amount' }], limit: 100 });
    await check(through, 100);
    report.latency('filter project.status = x, sort amount', await sample(client, options, () => through), p50(100));
    // A correlated subquery per task (its project's status key), then a top-100 sort: seconds at 1M, so few samples.
    const byLookup = query(tasksDb, { sorts: [{ field: 'project_status' }], limit: 100 });
    await check(byLookup, 100);
    report.latency('sort tasks by a lookup (project status; no target)', await sample(client, { ...options, warmup: 2, minimum: 5 }, () => byLookup), []);

    // Writes: bulk creates of tasks naming their project in `notes`, without and then with an auto-link rule.
    const bulks = Array.from({ length: 10 }, (_, b) => ({
      method: 'POST',
      path: bench.records,
      body: JSON.stringify({ records: Array.from({ length: 100 }, (_, k) => ({ values: { ...newRecordValues(bench, b * 100 + k), notes: `project ${((b * 100 + k) * 37) % PARENTS + 1}` } })) }),
    }));
    const writes = { ...options, status: 201 };
    report.latency('bulk create 100 tasks (no rule; no target)', await sample(client, writes, (i) => bulks[i % bulks.length]), []);
    await expect(201, 'auto-link rule', `${api}/relations/${relation.id}/auto-link-rules`, 'POST', admin, { from_field_id: 'name', to_field_id: 'notes', backfill: false });
    const linked = JSON.parse((await client.request(bulks[0].method, bulks[0].path, bulks[0].body)).text).data;
    if (!linked.every((r: { values: { project: unknown[] } }) => r.values.project.length === 1)) throw new Error('the auto-link rule linked nothing');
    report.latency(`bulk create 100 tasks, auto-linked to ${fmt(PARENTS)} projects by name (no target)`, await sample(client, writes, (i) => bulks[i % bulks.length]), []);
  } finally {
    client.close();
  }
} finally {
  await server.stop();
  await storage.cleanup();
}
process.exitCode = report.invalid ? 1 : 0;
