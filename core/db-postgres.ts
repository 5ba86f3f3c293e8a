import type { EventEmitter } from 'node:events';
import knexFactory from 'knex';
import pg from 'pg';
import { StartupError } from './errors.ts';
import { knexLog } from './knex-log.ts';
import { SIGNAL_CHANNEL, type DatabaseOptions, type Db } from './db-types.ts';

// Postgres returns bigint/numeric as strings; counts and sequences in Tessera fit in a JS number.
pg.types.setTypeParser(20, (v) => Number(v));

/** A pool on PostgreSQL whose connections work in `schema` and hear cache signals; creates the schema. */
export async function openPostgres(url: string, opts: DatabaseOptions, schema: string, searchPath: string[], signals: EventEmitter): Promise<Db> {
  // JIT off unless the URL's own `options` speak for the session: PostgreSQL compiles any
  // statement estimated above jit_above_cost, and a page of records with lookups over a link is
  // one (correlated subqueries): 15–18 ms of compiling per page of 100 projects showing ~100
  // tasks each, out of ~97 ms, for at most ~5 ms won on a full scan of a million rows. A SET, not
  // a startup `options`: connection poolers (PgBouncer) refuse startup parameters they do not know.
  const session = urlSetsOptions(url) ? '' : 'SET jit = off; ';
  const knex = knexFactory({
    client: 'pg',
    connection: url,
    searchPath,
    pool: {
      min: 0,
      max: opts.poolMax ?? 10,
      afterCreate: (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => {
        conn.on('notification', (msg) => msg.channel === SIGNAL_CHANNEL && signals.emit('signal', msg.payload ?? ''));
        conn.query(`${session}LISTEN ${SIGNAL_CHANNEL}`).then(() => done(null, conn), (err: Error) => done(err, conn));
      },
    },
    log: knexLog(opts.logger),
  });
  try {
    await knex.raw('select 1');
  } catch (err) {
    await knex.destroy();
    throw new StartupError(`Cannot connect to PostgreSQL (DATABASE_URL): ${(err as Error).message}`, 'database_unreachable');
  }
  if (schema !== 'public') {
    // CREATE SCHEMA IF NOT EXISTS is not safe against a concurrent twin; a transaction lock makes it so.
    await knex.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`tessera:schema:${schema}`]);
      await trx.raw('CREATE SCHEMA IF NOT EXISTS ??', [schema]);
    });
  }
  return knex;
}

/** Whether a connection string carries `options` (`-c name=value` for the session). */
function urlSetsOptions(url: string): boolean {
  try {
    return new URL(url).searchParams.has('options');
  } catch {
    return false;
  }
}
