import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { openPostgres } from './db-postgres.ts';
import { openPglite } from './db-pglite.ts';
import { statementRunners } from './db-statements.ts';
import type { Database, DatabaseKind, DatabaseOptions, Db } from './db-types.ts';
import { timeKnexStatements } from './server-timing.ts';

/** How often a setup lock held elsewhere is asked for again. */
const SETUP_LOCK_POLL_MS = 25;

export { SIGNAL_CHANNEL, type Database, type DatabaseKind, type DatabaseOptions, type Db, type NativeStatement, type PgliteRuntime, type Trx } from './db-types.ts';
export { inTransaction, inSavepoint, afterCommit, afterRollback } from './db-transactions.ts';
export { countRows } from './db-count.ts';
export { combineWrites, combineWritesWithinLimit } from './db-combine.ts';
export { emptyClusterDump, HeldBlob, holdsDatabase, loadPgliteRuntime, pgliteDirOf } from './db-pglite.ts';

/** Opens PostgreSQL when `url` is given, else PGlite (in `dataDir`, or in memory). */
export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const schema = opts.schema ?? 'public';
  const searchPath = schema === 'public' ? ['public'] : [schema, 'public'];
  const signals = new EventEmitter();
  if (opts.url) {
    const knex = await openPostgres(opts.url, opts, schema, searchPath, signals);
    return wrap('postgres', knex, schema, signals, { close: () => knex.destroy() });
  }
  const { knex, close, dumpCluster } = await openPglite(opts, schema, searchPath, signals);
  return wrap('pglite', knex, schema, signals, { close, dumpCluster });
}

function wrap(kind: DatabaseKind, knex: Db, schema: string, signals: EventEmitter, own: Pick<Database, 'close' | 'dumpCluster'>): Database {
  timeKnexStatements(knex);
  return {
    kind,
    knex,
    schema,
    ...own,
    ...statementRunners(kind, knex),
    onSignal(listener) {
      signals.on('signal', listener);
    },
    async executeSql(text, values, on = knex) {
      const client = (on as any).client;
      const conn = await client.acquireConnection();
      try {
        // PGlite's extended protocol takes one statement; pg-boss sends multi-statement DDL without values.
        if (kind === 'pglite' && (!values || values.length === 0)) {
          const results = await conn.exec(text);
          return results[results.length - 1] ?? { rows: [] };
        }
        return await conn.query(text, values);
      } finally {
        await client.releaseConnection(conn);
      }
    },
    async withSetupLock(name, fn) {
      if (kind === 'pglite') return fn();
      const client = (knex as any).client;
      const conn = await client.acquireConnection();
      try {
        // Polled, not waited for inside pg_advisory_lock: a statement waiting there keeps its snapshot open, and a
        // holder running CREATE INDEX CONCURRENTLY (view indexes) waits for every older snapshot to end, so the holder
        // would wait on its waiter for ever. Between tries the waiter holds no snapshot.
        while (!(await conn.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [name])).rows[0].locked) await sleep(SETUP_LOCK_POLL_MS);
        try {
          return await fn();
        } finally {
          await conn.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
        }
      } finally {
        client.releaseConnection(conn);
      }
    },
  };
}
