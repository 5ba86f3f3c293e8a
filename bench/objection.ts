/**
 * `npm run bench -- objection`: what objection's model layer costs over the knex query it builds, on the
 * shape of a plugin-owned resource table (comments, webhooks, automations…): create, read by id, a page of 50,
 * patch. Both sides run the same statements on the same table in the same run, one after the other, on
 * PostgreSQL (`DATABASE_URL`, default the local server) and on PGlite in memory.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import objection from 'objection';
import { openDatabase, type Database, type Db } from '../core/db.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1000);
const TABLE = 'bench_notes';

class Note extends objection.Model {
  static override tableName = TABLE;
  declare id: string;
  declare workspace_id: string;
  declare title: string;
  declare body: string;
  declare created_by: string;
  declare created_at: Date;
  declare updated_at: Date;
}

interface Side {
  create(row: Record<string, unknown>): Promise<unknown>;
  get(id: string): Promise<unknown>;
  page(workspaceId: string): Promise<unknown[]>;
  patch(id: string, title: string): Promise<unknown>;
}

function knexSide(db: Db): Side {
  return {
    create: async (row) => (await db(TABLE).insert(row).returning('*'))[0],
    get: (id) => db(TABLE).where({ id }).first(),
    page: (ws) => db(TABLE).where({ workspace_id: ws }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(50),
    patch: async (id, title) => (await db(TABLE).where({ id }).update({ title, updated_at: db.fn.now() }).returning('*'))[0],
  };
}

function objectionSide(db: Db): Side {
  const Bound = Note.bindKnex(db);
  return {
    create: (row) => Bound.query().insert(row).returning('*'),
    get: (id) => Bound.query().findById(id),
    page: (ws) => Bound.query().where({ workspace_id: ws }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(50),
    patch: (id, title) => Bound.query().patch({ title, updated_at: db.fn.now() as never }).where({ id }).returning('*').first(),
  };
}

async function median(fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 100; i += 1) await fn(i);
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    const start = performance.now();
    await fn(i);
    times.push((performance.now() - start) * 1000);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

async function measure(label: string, database: Database): Promise<void> {
  const db = database.knex;
  await db.schema.createTable(TABLE, (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable();
    t.text('title').notNullable();
    t.text('body').notNullable();
    t.uuid('created_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['workspace_id', 'created_at', 'id']);
  });
  const workspaces = Array.from({ length: 10 }, () => randomUUID());
  const user = randomUUID();
  const row = (i: number) => ({ id: randomUUID(), workspace_id: workspaces[i % 10], title: `Note ${i}`, body: 'A sentence or two, as people write them.', created_by: user });
  const ids: string[] = [];
  const sides = { knex: knexSide(db), objection: objectionSide(db) };
  const figures: Record<string, Record<string, number>> = { knex: {}, objection: {} };
  // Interleaved per operation so both sides see the same table size and the same moment of a shared machine.
  for (const side of ['knex', 'objection'] as const) {
    figures[side].create = await median(async (i) => {
      const r = row(i);
      ids.push(r.id);
      await sides[side].create(r);
    });
  }
  for (const side of ['knex', 'objection'] as const) figures[side].get = await median((i) => sides[side].get(ids[i % ids.length]));
  for (const side of ['knex', 'objection'] as const) figures[side].page = await median((i) => sides[side].page(workspaces[i % 10]));
  for (const side of ['knex', 'objection'] as const) figures[side].patch = await median((i) => sides[side].patch(ids[i % ids.length], `Renamed ${i}`));
  console.log(`\n${label} (median µs of ${ROUNDS} sequential calls, table of ${ids.length} rows)`);
  console.log('  operation   knex   objection   ratio');
  for (const op of ['create', 'get', 'page', 'patch']) {
    const k = figures.knex[op];
    const o = figures.objection[op];
    console.log(`  ${op.padEnd(9)} ${k.toFixed(0).padStart(6)} ${o.toFixed(0).padStart(10)} ${(o / k).toFixed(2).padStart(7)}`);
  }
}

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_${randomBytes(4).toString('hex')}`;
const pg = await openDatabase({ url, schema });
try {
  await measure('PostgreSQL', pg);
} finally {
  await pg.knex.raw(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pg.close();
}
const lite = await openDatabase({});
try {
  await measure('PGlite (in memory)', lite);
} finally {
  await lite.close();
}
