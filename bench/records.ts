/**
 * `npm run bench:records`: issue 4's records benchmarks — sequential p50/p99 of list, query,
 * search, get, create and patch at 100,000 records, a bulk-create load rate, then query,
 * search and paging at 1,000,000 records; on PostgreSQL (against targets) and on PGlite
 * (figures only). See bench/README.md.
 *
 *   --pg | --pglite     only that database (default: both, PostgreSQL first)
 *   --small | --large   only the 100,000-record set or only the 1,000,000-record set
 *   --cpu-prof          write a V8 CPU profile of each server to a temporary directory (printed)
 * Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); BENCH_ITERATIONS
 * measured requests per line (default 500), BENCH_WARMUP (50), BENCH_BUDGET seconds after which a
 * line stops early once it has 50 requests (30); BENCH_LOAD_SECONDS (10); record counts
 * BENCH_SMALL (100000), BENCH_LARGE (1000000), BENCH_PGLITE_SMALL and BENCH_PGLITE_LARGE
 * (default the PostgreSQL counts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmt } from './lib/format.ts';
import { startServer, type Server } from './lib/server.ts';
import { pgliteStorage, postgresStorage, type Storage } from './lib/storage.ts';
import { floorEnv, floorStatements, type FloorTable } from './floor-sql.ts';
import { Client } from './records/client.ts';
import { PostgresAlone } from './records/postgres-alone.ts';
import { percentile, Report, type LatencyTarget, type Timings } from './records/report.ts';
import { sample, sampleInTurn, type Request } from './records/sample.ts';
import { BENCH_INDEXED, type Seeded, type SeedOptions } from './records/seed.ts';
import { seededServer } from './records/seeded-server.ts';
import { STATUS_LABELS, type BenchDatabase } from './records/setup.ts';
import { newRecordValues } from './records/values.ts';

const env = process.env;
const ITERATIONS = Number(env.BENCH_ITERATIONS ?? 500);
const WARMUP = Number(env.BENCH_WARMUP ?? 50);
const BUDGET_MS = Number(env.BENCH_BUDGET ?? 30) * 1000;
const LOAD_SECONDS = Number(env.BENCH_LOAD_SECONDS ?? 10);
const LOAD_CLIENTS = 4;
const SMALL = Number(env.BENCH_SMALL ?? 100_000);
const LARGE = Number(env.BENCH_LARGE ?? 1_000_000);
const PGLITE_SMALL = Number(env.BENCH_PGLITE_SMALL ?? SMALL);
const PGLITE_LARGE = Number(env.BENCH_PGLITE_LARGE ?? LARGE);
const args = new Set(process.argv.slice(2));
const profileDir = args.has('--cpu-prof') ? fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-prof-')) : null;

/** The query of issue 4: two filters on indexed fields, sorted by a third. */
const FILTER_SORT = {
  filter: { and: [{ field: 'status', op: 'eq', value: STATUS_LABELS[1] }, { field: 'priority', op: 'gte', value: 3 }] },
  sorts: [{ field: 'amount', direction: 'asc' }],
  limit: 100,
};
const UNINDEXED_SORT = { sorts: [{ field: 'due', direction: 'asc' }], limit: 100 };
/** A query nobody planned for (issue 21): three fields no view sorts or filters on. */
const AD_HOC = {
  filter: { and: [{ field: 'rating', op: 'gte', value: 4 }, { field: 'done', op: 'eq', value: false }] },
  sorts: [{ field: 'due', direction: 'asc' }],
  limit: 100,
};
/** The pages of 1,000 (issue 21): sorted by a field nothing indexed before their own queries. */
const BY_EMAIL = [{ field: 'email', direction: 'desc' }];
/** Queries of one shape the adaptive indexes may take before the target applies. */
const TEACHING_QUERIES = 20;

interface Run {
  storage: Storage;
  client: Client;
  bench: BenchDatabase;
  seeded: Seeded;
  count: number;
  report: Report;
  server: Server;
}

const ms = (target: number, stat: LatencyTarget['stat'] = 'p50'): LatencyTarget[] => [{ stat, ms: target }];

function options(status = 200) {
  return { iterations: ITERATIONS, budgetMs: BUDGET_MS, minimum: Math.min(ITERATIONS, 50), warmup: WARMUP, status };
}

/**
 * One request checked before a line is measured: false when the route does not exist (404/405);
 * throws when the answer has another status or the wrong shape.
 */
async function probe(run: Run, request: Request, status: number, check: (body: any) => string | null): Promise<boolean> {
  const answer = await run.client.request(request.method, request.path, request.body);
  if (answer.status === 404 || answer.status === 405) return false;
  if (answer.status !== status) throw new Error(`${request.method} ${request.path}: ${answer.status} ${answer.text.slice(0, 300)}`);
  const wrong = check(JSON.parse(answer.text));
  if (wrong) throw new Error(`${request.method} ${request.path}: ${wrong}`);
  return true;
}

const pageOf = (n: number) => (body: any) => (body.data?.length === n ? null : `expected ${n} records, got ${body.data?.length}`);

async function measureRead(run: Run, name: string, request: Request, targets: LatencyTarget[], expected = 100): Promise<Timings> {
  if (!(await probe(run, request, 200, pageOf(expected)))) throw new Error(`${request.method} ${request.path}: not found`);
  const timings = await sample(run.client, options(), () => request);
  run.report.latency(name, timings, targets);
  return timings;
}

async function measureQuery(run: Run, name: string, body: object, targets: LatencyTarget[]): Promise<void> {
  const request = { method: 'POST', path: `${run.bench.records}/query`, body: JSON.stringify(body) };
  if (!(await probe(run, request, 200, pageOf(100)))) {
    run.report.unavailable(name, 'R/query not available');
    return;
  }
  run.report.latency(name, await sample(run.client, options(), () => request), targets);
}

/**
 * Adaptive indexes (issue 21): the first ad-hoc query, then the rest of TEACHING_QUERIES of its shape, the wait for the
 * indexes they taught, the same query measured against `target`, and what those indexes cost a bulk create of 100
 * (measured before the first query and after the indexes, so both see the same table). On PostgreSQL the first query
 * is also compared with PostgreSQL alone answering it by one sequential scan, timed beside the server (target: at most
 * 20 % more).
 * The records it created.
 */
async function measureAdaptive(run: Run, target: LatencyTarget[]): Promise<number> {
  const query = { method: 'POST', path: `${run.bench.records}/query`, body: JSON.stringify(AD_HOC) };
  const bodies = Array.from({ length: 10 }, (_, b) => JSON.stringify({ records: Array.from({ length: 100 }, (_, k) => ({ values: newRecordValues(run.bench, b * 100 + k) })) }));
  const create = (i: number): Request => ({ method: 'POST', path: run.bench.records, body: bodies[i % bodies.length] });
  const writes = { ...options(201), iterations: Math.min(ITERATIONS, 100) };
  const before = await sample(run.client, writes, create);
  const scan = run.storage.kind === 'postgres' ? await sequentialScanMs(run) : null;
  const first = await run.client.request(query.method, query.path, query.body);
  if (first.status !== 200) throw new Error(`ad-hoc query: ${first.status} ${first.text.slice(0, 300)}`);
  for (let i = 1; i < TEACHING_QUERIES; i++) await run.client.request(query.method, query.path, query.body);
  const waited = await untilIndexed(run, ['rating', 'done', 'due']);
  run.report.note(`${'adaptive: the first ad-hoc query'.padEnd(44)} ${fmt(first.ms, 1)} ms (rating ≥ 4 and not done, sorted by due; no index on them)`);
  if (scan !== null) {
    const ratio = first.ms / scan;
    run.report.note(
      // The issue's target is for 1,000,000 records, where a scan is long enough to compare with one request.
      `${'adaptive: the first query / one seq scan'.padEnd(44)} ${fmt(ratio, 2)}× (PostgreSQL alone: ${fmt(scan, 1)} ms, best of 3, beside the server` +
        (run.count >= LARGE ? `; target ≤ 1.2×) ${ratio <= 1.2 ? 'PASS' : 'MISS'}` : ')'),
    );
  }
  run.report.note(`${'adaptive: indexes ready'.padEnd(44)} ${fmt(waited, 1)} s after the ${TEACHING_QUERIES}th query (rating, done, due)`);
  run.report.latency(`adaptive: the same query, after ${TEACHING_QUERIES} of its shape`, await sample(run.client, options(), () => query), target, true);
  const after = await sample(run.client, writes, create);
  const ratio = percentile(after.ms, 50) / percentile(before.ms, 50);
  run.report.note(
    `${'adaptive: POST R (100) with the 3 indexes'.padEnd(44)} p50 ${fmt(percentile(after.ms, 50), 1)} ms against ${fmt(percentile(before.ms, 50), 1)} ms without: ` +
      `${fmt(ratio, 2)}×${run.storage.targeted ? ` (target ≤ 1.25×) ${ratio <= 1.25 ? 'PASS' : 'MISS'}` : ''}`,
  );
  return (2 * writes.warmup + before.ms.length + after.ms.length - before.bad - after.bad) * 100;
}

/**
 * Issue 21: a cursor page of 1,000 sorted by a field nothing indexed (`email`), the first and the 50th, target p50 ≤
 * 12 ms at any depth. Its queries may teach an index on `email` while they are measured: p99 shows the ones before.
 */
async function measureDeepUnindexed(run: Run): Promise<void> {
  const page = (cursor?: string) => ({ method: 'POST', path: `${run.bench.records}/query`, body: JSON.stringify({ sorts: BY_EMAIL, limit: 1000, ...(cursor ? { cursor } : {}) }) });
  run.report.latency('query: page of 1,000 sorted by email, first', await sample(run.client, options(), () => page()), ms(12));
  let cursor: string | undefined;
  for (let i = 1; i < 50; i++) {
    const answer = await run.client.request('POST', page(cursor).path, page(cursor).body);
    if (answer.status !== 200) throw new Error(`page ${i} sorted by email: ${answer.status} ${answer.text.slice(0, 300)}`);
    cursor = (JSON.parse(answer.text) as { next_cursor: string }).next_cursor;
  }
  run.report.latency('query: page of 1,000 sorted by email, 50th', await sample(run.client, options(), () => page(cursor)), ms(12));
}

/**
 * PostgreSQL alone answering the ad-hoc query (every column, 100 rows) by one sequential scan of the table, index
 * scans off, best of three, in milliseconds: the least any server could spend on it before an index exists.
 */
async function sequentialScanMs(run: Run): Promise<number> {
  const db = await run.storage.open();
  const c = run.bench.columns;
  try {
    for (const scan of ['indexscan', 'indexonlyscan', 'bitmapscan']) await db.knex.raw(`SET enable_${scan} = off`);
    let best = Infinity;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      await db.knex.raw('SELECT * FROM ?? WHERE deleted_at IS NULL AND ?? >= 4 AND ?? IS NOT TRUE ORDER BY ?? ASC NULLS LAST, id LIMIT 100', [run.bench.table, c.rating, c.done, c.due]);
      best = Math.min(best, performance.now() - started);
    }
    return best;
  } finally {
    await db.close();
  }
}

/** Seconds until the database's indexes on `fields` are ready, asked as its admin (GET …/indexes). */
async function untilIndexed(run: Run, fields: string[]): Promise<number> {
  const started = performance.now();
  const url = `${run.server.url}${run.bench.records.replace(/\/records$/, '/indexes')}`;
  for (;;) {
    const res = await fetch(url, { headers: run.bench.admin.session });
    const body = (await res.json()) as { data: Array<{ api_name: string; indexes: Array<{ state: string }> }> };
    if (fields.every((f) => body.data.find((x) => x.api_name === f)?.indexes.some((i) => i.state === 'ready'))) return (performance.now() - started) / 1000;
    if (performance.now() - started > 120_000) throw new Error(`adaptive indexes never came: ${JSON.stringify(body.data)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function floorTable(run: Run): FloorTable {
  const c = run.bench.columns;
  return { table: run.bench.table, columns: Object.values(c), title: c.title, status: c.status, priority: c.priority, amount: c.amount };
}

function postgresAlone(run: Run): Promise<PostgresAlone> {
  return PostgresAlone.connect(run.storage.env.BENCH_DATABASE_URL, run.storage.env.BENCH_SCHEMA, floorStatements(floorTable(run)));
}

/**
 * Tessera's p50 over a yardstick's, from requests sampled in turn, as one report line: `detail` follows Tessera's p50
 * in the brackets, and a `target` adds the verdict.
 */
function ratioNote(run: Run, label: string, ours: Timings, bare: Timings, yardstick: string, detail: string, target?: number): void {
  const ratio = percentile(ours.ms, 50) / percentile(bare.ms, 50);
  const verdict = target === undefined ? '' : ` ${ratio <= target ? 'PASS' : 'MISS'}`;
  run.report.note(`${label.padEnd(44)} ${fmt(ratio, 2)}× ${yardstick}, alternated (Tessera p50 ${fmt(percentile(ours.ms, 50), 2)} ms${detail})${verdict}`);
}

/**
 * The floor (issue 21): bare koa + pg (bench/floor.ts) serving the same table's first page of 100 and one record
 * by id, and PostgreSQL alone (bench/records/postgres-alone.ts) running the same statements, and the filter + sort
 * of `FILTER_SORT`, straight from this process; then the page of 1,000 sorted by email against the floor's and
 * PostgreSQL alone's first 1,000 records in manual order (both read down an index). Each ratio comes from requests
 * alternated between Tessera and the yardsticks (`sampleInTurn`): on this shared machine two samples taken a minute
 * apart moved the list's ratio between 1.25× and 2.8× from run to run.
 */
async function measureFloor(run: Run): Promise<void> {
  const floor = await startServer(run.storage, null, 'floor.ts', floorEnv(floorTable(run)));
  const client = new Client(floor.url, {});
  const alone = await postgresAlone(run);
  try {
    const ids = run.seeded.ids;
    const R = run.bench.records;
    const [list, floorList, aloneList] = await sampleInTurn(
      [
        { client: run.client, next: () => ({ method: 'GET', path: `${R}?limit=100` }) },
        { client, next: () => ({ method: 'GET', path: '/list?limit=100' }) },
        { client: alone, next: () => ({ method: 'GET', path: '/list?limit=100' }) },
      ],
      options(),
    );
    const byId = (i: number) => ids[(i * 7919) % ids.length];
    const [one, floorOne, aloneOne] = await sampleInTurn(
      [
        { client: run.client, next: (i) => ({ method: 'GET', path: `${R}/${byId(i)}` }) },
        { client, next: (i) => ({ method: 'GET', path: `/one/${byId(i)}` }) },
        { client: alone, next: (i) => ({ method: 'GET', path: `/one/${byId(i)}` }) },
      ],
      options(),
    );
    const [query, aloneQuery] = await sampleInTurn(
      [
        { client: run.client, next: () => ({ method: 'POST', path: `${R}/query`, body: JSON.stringify(FILTER_SORT) }) },
        { client: alone, next: () => ({ method: 'GET', path: `/query?status=${run.bench.statusIds[1]}&limit=${FILTER_SORT.limit}` }) },
      ],
      options(),
    );
    // The page of 1,000 of `measureDeepUnindexed` (down the index its queries taught), against the floor's first 1,000.
    const sortedPage = JSON.stringify({ sorts: BY_EMAIL, limit: 1000 });
    const [thousand, floorThousand, aloneThousand] = await sampleInTurn(
      [
        { client: run.client, next: () => ({ method: 'POST', path: `${R}/query`, body: sortedPage }) },
        { client, next: () => ({ method: 'GET', path: '/list?limit=1000' }) },
        { client: alone, next: () => ({ method: 'GET', path: '/list?limit=1000' }) },
      ],
      options(),
    );
    // Issue 36: a cursor page of 1,000 at any depth against the floor's own page of 1,000, in manual order, alternated.
    const deep = await cursorAt(run, Math.min(49_000, Math.max(0, run.count - 1000)));
    const [firstPage, deepPage, floorPage1000] = await sampleInTurn(
      [
        { client: run.client, next: () => ({ method: 'GET', path: `${R}?limit=1000` }) },
        { client: run.client, next: () => ({ method: 'GET', path: `${R}?limit=1000&cursor=${deep}` }) },
        { client, next: () => ({ method: 'GET', path: '/list?limit=1000' }) },
      ],
      options(),
    );
    run.report.latency('floor: koa + pg, the same page of 100', floorList, []);
    run.report.latency('floor: koa + pg, one record', floorOne, []);
    run.report.latency('floor: koa + pg, a page of 1,000', floorThousand, []);
    run.report.latency('PostgreSQL alone: the page of 100', aloneList, []);
    run.report.latency('PostgreSQL alone: one record', aloneOne, []);
    run.report.latency('PostgreSQL alone: filter + sort (query)', aloneQuery, []);
    run.report.latency('PostgreSQL alone: a page of 1,000', aloneThousand, []);
    for (const [name, ours, bare, target] of [['list page of 100', list, floorList, 1.3], ['get one', one, floorOne, 1.2]] as const) {
      ratioNote(run, `floor ratio: ${name}`, ours, bare, 'the floor', `; target ≤ ${target}×`, target);
    }
    run.report.latency('page of 1,000 by cursor, first (manual order)', firstPage, []);
    run.report.latency('page of 1,000 by cursor, 50th (manual order)', deepPage, []);
    for (const [name, ours] of [['first', firstPage], ['50th', deepPage]] as const) {
      ratioNote(run, `floor ratio: cursor page of 1,000, ${name}`, ours, floorPage1000, 'the floor', `; the floor ${fmt(percentile(floorPage1000.ms, 50), 2)} ms; target ≤ 1.2×`, 1.2);
    }
    const floorPage = `the floor ${fmt(percentile(floorThousand.ms, 50), 2)} ms in manual order`;
    ratioNote(run, 'floor ratio: page of 1,000', thousand, floorThousand, 'the floor', ` sorted by email; ${floorPage}; no target: the 12 ms is for Tessera`);
    for (const [name, ours, bare] of [['list page of 100', list, aloneList], ['get one', one, aloneOne], ['filter + sort', query, aloneQuery], ['page of 1,000', thousand, aloneThousand]] as const) {
      ratioNote(run, `PostgreSQL alone ratio: ${name}`, ours, bare, 'PostgreSQL alone', '; no target');
    }
  } finally {
    client.close();
    await alone.close();
    await floor.stop();
  }
}

/** The cursor after the first `depth` records in manual order, walked with pages of 1,000. */
async function cursorAt(run: Run, depth: number): Promise<string> {
  let cursor = '';
  for (let seen = 0; seen < depth; seen += 1000) {
    const answer = await run.client.request('GET', `${run.bench.records}?limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
    cursor = encodeURIComponent(JSON.parse(answer.text).next_cursor);
  }
  return cursor;
}

async function measureSmall(run: Run): Promise<void> {
  const R = run.bench.records;
  const { ids, q } = run.seeded;
  // The floor under every line: HTTP, the token lookup and one small answer.
  run.report.latency('reference: GET /api/v1/me (no target)', await sample(run.client, options(), () => ({ method: 'GET', path: '/api/v1/me' })), []);
  await measureRead(run, 'list: GET R?limit=100, first page', { method: 'GET', path: `${R}?limit=100` }, ms(5));
  const depth = Math.floor((run.count * 0.9) / 1000) * 1000;
  const deep = await cursorAt(run, depth);
  await measureRead(run, `list: page after record ${fmt(depth)}`, { method: 'GET', path: `${R}?limit=100&cursor=${deep}` }, ms(5));
  await measureQuery(run, 'query: filter status+priority, sort amount', FILTER_SORT, ms(10));
  await measureRead(run, `search: GET R?q=${q}&limit=100`, { method: 'GET', path: `${R}?q=${q}&limit=100` }, ms(15), Math.min(100, run.seeded.qMatches));

  // PGlite: the issue's target for the embedded database is 20 ms.
  await measureAdaptive(run, ms(run.storage.kind === 'postgres' ? 6 : 20));

  await measureDeepUnindexed(run);

  await probe(run, { method: 'GET', path: `${R}/${ids[0]}` }, 200, (b) => (b.id === ids[0] ? null : 'another record'));
  const one = await sample(run.client, options(), (i) => ({ method: 'GET', path: `${R}/${ids[(i * 7919) % ids.length]}` }));
  run.report.latency('get: GET R/{id} (spread ids)', one, ms(2));
  if (run.storage.kind === 'postgres') await measureFloor(run);

  const patchOne = (i: number): Request => ({
    method: 'PATCH',
    path: `${R}/${ids[(i * 7919) % ids.length]}`,
    body: JSON.stringify({ values: { status: STATUS_LABELS[i % 5], priority: (i % 5) + 1 } }),
  });
  run.report.latency('patch one: PATCH R/{id} (2 cells)', await sample(run.client, options(), patchOne), ms(3));

  const windows = Math.max(1, Math.floor(ids.length / 200));
  const patchBodies = Array.from({ length: windows }, (_, w) =>
    JSON.stringify({ records: ids.slice(w * 200, w * 200 + 200).map((id, k) => ({ id, values: { priority: ((w + k) % 5) + 1, amount: w * 1000 + k } })) }),
  );
  await probe(run, { method: 'PATCH', path: R, body: patchBodies[0] }, 200, (b) =>
    b.data?.length === 200 && b.errors?.length === 0 ? null : `${b.data?.length} updated, ${b.errors?.length} errors`,
  );
  run.report.latency('patch 200: PATCH R { records }', await sample(run.client, options(), (i) => ({ method: 'PATCH', path: R, body: patchBodies[i % windows] })), ms(40));

  const createBodies = Array.from({ length: 10 }, (_, b) =>
    JSON.stringify({ records: Array.from({ length: 100 }, (_, k) => ({ values: newRecordValues(run.bench, b * 100 + k) })) }),
  );
  run.report.latency(
    'bulk create 100: POST R { records }',
    await sample(run.client, options(201), (i) => ({ method: 'POST', path: R, body: createBodies[i % createBodies.length] })),
    ms(14),
  );
  await measureLoad(run, createBodies);
}

/** `LOAD_CLIENTS` clients, one connection each, posting bulks of 100 back to back. */
async function measureLoad(run: Run, bodies: string[]): Promise<void> {
  const clients = Array.from({ length: LOAD_CLIENTS }, () => new Client(run.server.url, run.bench.pat));
  const timings = { ms: [] as number[], bad: 0, firstBad: undefined as string | undefined };
  const started = performance.now();
  const deadline = started + LOAD_SECONDS * 1000;
  await Promise.all(
    clients.map(async (client, c) => {
      for (let i = c; performance.now() < deadline; i += LOAD_CLIENTS) {
        const answer = await client.request('POST', run.bench.records, bodies[i % bodies.length]);
        timings.ms.push(answer.ms);
        if (answer.status !== 201) {
          timings.bad++;
          timings.firstBad ??= `${answer.status} ${answer.text.slice(0, 200)}`;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  for (const client of clients) client.close();
  const created = (timings.ms.length - timings.bad) * 100;
  run.report.rate(
    `load: ${LOAD_CLIENTS} clients × bulks of 100`,
    created / seconds,
    'records',
    10_000,
    timings,
    `(${fmt(created)} in ${fmt(seconds, 1)} s, p50 ${fmt(percentile(timings.ms, 50), 1)} ms per bulk)`,
  );
}

async function measureLarge(run: Run): Promise<void> {
  const R = run.bench.records;
  const { q } = run.seeded;
  await measureQuery(run, 'query: filter status+priority, sort amount', FILTER_SORT, [{ stat: 'p50', ms: 15 }, { stat: 'p99', ms: 40 }]);
  // Before the sort by due, which would teach an index on due itself: the first ad-hoc query is the untaught one.
  run.count += await measureAdaptive(run, ms(15));
  await measureQuery(run, 'query: sort by due (no index), no filter', UNINDEXED_SORT, ms(150));
  await measureRead(run, `search: GET R?q=${q}&limit=100`, { method: 'GET', path: `${R}?q=${q}&limit=100` }, ms(25), Math.min(100, run.seeded.qMatches));
  await measurePaging(run);
  await measureTrash(run);
}

/** The trash page after deleting the 2,000 spread records through the API (last: the other lines count live records). */
async function measureTrash(run: Run): Promise<void> {
  const { ids } = run.seeded;
  for (let i = 0; i < ids.length; i += 200) {
    const answer = await run.client.request('POST', `${run.bench.records}/delete`, JSON.stringify({ ids: ids.slice(i, i + 200) }));
    if (answer.status !== 200) throw new Error(`deleting for the trash: ${answer.status} ${answer.text.slice(0, 300)}`);
  }
  const trash = run.bench.records.replace(/\/records$/, '/trash');
  await measureRead(run, `trash: GET trash?limit=100 (${fmt(ids.length)} deleted)`, { method: 'GET', path: `${trash}?limit=100` }, []);
}

/** Every record in manual order, 1,000 a page: the last pages should cost what the first did. */
async function measurePaging(run: Run): Promise<void> {
  const pages: number[] = [];
  let seen = 0;
  let cursor: string | null = null;
  const started = performance.now();
  do {
    const answer = await run.client.request('GET', `${run.bench.records}?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (answer.status !== 200) throw new Error(`paging: ${answer.status} ${answer.text.slice(0, 300)}`);
    pages.push(answer.ms);
    const body = JSON.parse(answer.text);
    seen += body.data.length;
    cursor = body.next_cursor;
  } while (cursor);
  const seconds = (performance.now() - started) / 1000;
  if (seen !== run.count) throw new Error(`paging saw ${seen} records, not ${run.count}`);
  const tail = pages.slice(-10);
  const last = tail.reduce((a, b) => a + b, 0) / tail.length;
  run.report.note(
    `${'paging: every record, GET R?limit=1000'.padEnd(44)} ${fmt(pages.length)} pages in ${fmt(seconds, 1)} s: first ${fmt(pages[0], 1)} ms, ` +
      `p50 ${fmt(percentile(pages, 50), 1)} ms, last 10 ${fmt(last, 1)} ms (${fmt(last / percentile(pages, 50), 2)}× the p50)`,
  );
}

/** Seeding progress on a terminal, rewritten in place; nothing when the output is a file. */
function progress(line: string): void {
  if (process.stdout.isTTY) process.stdout.write(`\r\x1b[2K${line}`);
}

async function benchmark(make: () => Storage, count: number, measure: (run: Run) => Promise<void>, note = '', seedOptions: SeedOptions = {}): Promise<boolean> {
  const storage = make();
  console.log(`\n${storage.label} — ${fmt(count)} records${note}`);
  const report = new Report(storage.targeted);
  let server: Server | null = null;
  try {
    const { server: started, bench, seeded } = await seededServer(storage, count, { profileDir, seed: seedOptions, progress });
    server = started;
    report.note(
      `seeded by SQL in ${fmt(seeded.seconds, 1)} s (fields and the editor's PAT through the API)${seedOptions.analyze === false ? ', not analysed' : ', then VACUUM ANALYZE'}; ` +
        `bench-made (field, id) indexes on ${BENCH_INDEXED.join(', ')}; q matches ${fmt(seeded.qMatches)} titles`,
    );
    report.note(`sequential requests on one keep-alive connection with the editor's PAT; ${WARMUP} warm-up, then up to ${ITERATIONS} (≥ 50, ${BUDGET_MS / 1000} s budget)`);
    const client = new Client(started.url, bench.pat);
    try {
      await measure({ storage, client, bench, seeded, count, report, server: started });
    } finally {
      client.close();
    }
    return !report.invalid;
  } finally {
    await server?.stop();
    await storage.cleanup();
  }
}

/**
 * Plans that do not flip (issue 21): `q` right after a load that nobody analysed, then after ANALYZE, in five loads of
 * other pseudo-random values; then the search in turn with PostgreSQL alone answering it (the matches from the trigram
 * index first, then sorted), whose own p99 shows how much of the spread is the machine's. PostgreSQL only (the bench
 * reads the server's database beside it).
 */
async function measureFresh(run: Run): Promise<void> {
  const request = { method: 'GET', path: `${run.bench.records}?q=${run.seeded.q}&limit=100` };
  const target: LatencyTarget[] = [{ stat: 'p99', ms: 10 }];
  run.report.latency(`search right after the load: q=${run.seeded.q}`, await sample(run.client, options(), () => request), target);
  const db = await run.storage.open();
  try {
    await db.knex.raw('ANALYZE ??', [run.bench.table]);
  } finally {
    await db.close();
  }
  run.report.latency('search after ANALYZE', await sample(run.client, options(), () => request), target);
  // How much of the spread between p50 and p99 is the machine's: the same search, PostgreSQL alone, in turn with it.
  const alone = await postgresAlone(run);
  try {
    const [ours, bare] = await sampleInTurn([{ client: run.client, next: () => request }, { client: alone, next: () => ({ method: 'GET', path: `/search?q=${run.seeded.q}&limit=100` }) }], options());
    run.report.latency('search, in turn with PostgreSQL alone', ours, []);
    run.report.latency('PostgreSQL alone: the matches first, sorted', bare, []);
    const ratio = percentile(ours.ms, 99) / percentile(bare.ms, 99);
    run.report.note(`${'p99 ratio: search / PostgreSQL alone'.padEnd(44)} ${fmt(ratio, 2)}× (target ≤ 1.5× in each fresh load) ${ratio <= 1.5 ? 'PASS' : 'MISS'}`);
  } finally {
    await alone.close();
  }
}

if (args.has('--fresh')) {
  let fine = true;
  for (let seed = 1; seed <= 5; seed++) fine = (await benchmark(() => postgresStorage(1), SMALL, measureFresh, ` (fresh load ${seed} of 5)`, { seed, analyze: false })) && fine;
  process.exit(fine ? 0 : 1);
}

const storages: Array<{ make: () => Storage; small: number; large: number }> = [];
if (!args.has('--pglite')) storages.push({ make: () => postgresStorage(1), small: SMALL, large: LARGE });
if (!args.has('--pg')) storages.push({ make: pgliteStorage, small: PGLITE_SMALL, large: PGLITE_LARGE });
console.log(`Tessera records benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
let ok = true;
const fewer = (count: number, of: number) => (count < of ? ` (fewer than the ${fmt(of)} of the targets: BENCH_PGLITE_* chose so)` : '');
for (const { make, small, large } of storages) {
  if (!args.has('--large')) ok = (await benchmark(make, small, measureSmall, fewer(small, SMALL))) && ok;
  if (!args.has('--small')) ok = (await benchmark(make, large, measureLarge, fewer(large, LARGE))) && ok;
}
if (profileDir) console.log(`\nCPU profiles: ${profileDir} (open in Chrome DevTools or speedscope)`);
process.exitCode = ok ? 0 : 1;
