import { EventEmitter } from 'node:events';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import ClientPGLite from 'knex-pglite';
import { guardHeldConnection, type StrayQueries } from './held-connection.ts';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import type { Logger } from 'pino';
import { StartupError } from './errors.ts';

export type Db = Knex;

/**
 * The channel cache signals travel on (core/cache.ts). Every pooled connection listens on it:
 * PostgreSQL hands a session its own transaction's notifications before COMMIT returns, so
 * the writing process hears its own change before it answers.
 */
export const SIGNAL_CHANNEL = 'tessera_cache';
export type Trx = Knex.Transaction;
export type DatabaseKind = 'postgres' | 'pglite';

// Postgres returns bigint/numeric as strings; counts and sequences in Tessera fit in a JS number.
pg.types.setTypeParser(20, (v) => Number(v));

export interface DatabaseOptions {
  /** PostgreSQL connection string; when absent, PGlite is used. */
  url?: string;
  /** PGlite data directory; `undefined` with no url = in memory. */
  dataDir?: string;
  /** PostgreSQL schema to work in (tests use one per kernel). */
  schema?: string;
  poolMax?: number;
  /** Where knex's own warnings and errors go (else plain text on the console). */
  logger?: Logger;
  /** In memory only: start from this PGlite data-directory dump instead of running initdb (tests; see `emptyClusterDump`). */
  seed?: Blob;
  /** PGlite: a query sent outside the transaction its code runs in (see held-connection.ts); default `log`. */
  strayQueries?: StrayQueries;
}

/**
 * A dump of a freshly initialised PGlite cluster. Loading it takes a fraction of initdb's
 * time, which dominates starting an in-memory database.
 */
export async function emptyClusterDump(): Promise<Blob> {
  const pglite = await PGlite.create('memory://', { extensions: { pg_trgm } });
  try {
    return await pglite.dumpDataDir('none');
  } finally {
    await pglite.close();
  }
}

function knexLog(logger?: Logger): Knex.Config['log'] {
  if (!logger) return undefined;
  return {
    warn: (message: unknown) => logger.warn({ source: 'knex' }, String(message)),
    error: (message: unknown) => logger.error({ source: 'knex' }, String(message)),
    deprecate: (method: string, alternative: string) => logger.warn({ source: 'knex' }, `${method} is deprecated; use ${alternative}`),
    debug: (message: unknown) => logger.debug({ source: 'knex' }, String(message)),
  };
}

/** A statement written with `$1` placeholders, and per-query driver options (see `repeated`). */
export interface NativeStatement {
  sql: string;
  bindings: readonly unknown[];
  options?: Record<string, unknown>;
}

export interface Database {
  kind: DatabaseKind;
  knex: Db;
  schema: string;
  /** Runs raw `$1`-style SQL on the knex connection (or transaction) given; used by pg-boss. */
  executeSql(text: string, values?: unknown[], on?: Db): Promise<{ rows: any[] }>;
  /**
   * A constant `$1`-style statement for a per-request hot path: on PostgreSQL it is a named
   * prepared statement, parsed and planned once per connection (a transaction's included).
   * `name` must be unique per text (prefix it with the plugin id).
   */
  prepared<R = any>(name: string, text: string): (values: unknown[], trx?: Db) => Promise<R[]>;
  /**
   * Runs a built query (knex), preparing it on PostgreSQL when its text repeats: the second
   * time a text is seen it becomes a named statement (by its hash), parsed and planned once per
   * connection; past MAX_PREPARED texts per process, new ones run unprepared. For queries whose
   * best plan does not depend on their values (PostgreSQL may settle on one generic plan).
   * `version` must change whenever the tables' columns may have changed type: a prepared
   * statement whose result types change fails ("cached plan must not change result type").
   */
  repeated<R = any>(query: Knex.QueryBuilder | Knex.Raw | NativeStatement, version: string, trx?: Db): Promise<R[]>;
  /**
   * Runs `fn` while holding a PostgreSQL session advisory lock named `name`, so several
   * processes starting at once do their set-up one after another. PGlite: one process owns
   * the directory, so `fn` just runs.
   */
  withSetupLock<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Payloads notified on SIGNAL_CHANNEL that a connection of this database heard. */
  onSignal(listener: (payload: string) => void): void;
  close(): Promise<void>;
}

/**
 * knex-pglite derives the SQL command from knex's method name, so `del()` reports "DEL" and
 * knex returns the raw result instead of the affected row count; name it as PostgreSQL does.
 */
class PGliteClient extends (ClientPGLite as unknown as new (config: unknown) => { processResponse(obj: any, runner: unknown): unknown }) {
  override processResponse(obj: any, runner: unknown): unknown {
    return super.processResponse(obj?.method === 'del' ? { ...obj, method: 'delete' } : obj, runner);
  }
}

const LOCK_FILE = 'tessera.lock';

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** PGlite corrupts a data directory opened by two processes; refuse the second one. */
function lockDataDir(dir: string): () => void {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(fs.readFileSync(file, 'utf8'));
      if (holder && holder !== process.pid && pidAlive(holder)) {
        throw new StartupError(
          `The embedded database in "${dir}" is already open in process ${holder}. Stop it, or set DATA_DIR to another directory.`,
          'database_locked',
        );
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new StartupError(`Could not lock the embedded database in "${dir}".`, 'database_locked');
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const schema = opts.schema ?? 'public';
  const searchPath = schema === 'public' ? ['public'] : [schema, 'public'];
  const signals = new EventEmitter();
  if (opts.url) {
    // JIT off unless the URL's own `options` speak for the session: PostgreSQL compiles any
    // statement estimated above jit_above_cost, and a page of records with lookups over a link is
    // one (correlated subqueries): 15–18 ms of compiling per page of 100 projects showing ~100
    // tasks each, out of ~97 ms, for at most ~5 ms won on a full scan of a million rows. A SET, not
    // a startup `options`: connection poolers (PgBouncer) refuse startup parameters they do not know.
    const session = urlSetsOptions(opts.url) ? '' : 'SET jit = off; ';
    const knex = knexFactory({
      client: 'pg',
      connection: opts.url,
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
    return wrap('postgres', knex, schema, signals, async () => knex.destroy());
  }

  const dir = opts.dataDir ? path.resolve(opts.dataDir, 'pglite') : undefined;
  const unlock = dir ? lockDataDir(dir) : () => {};
  try {
    const pglite = await PGlite.create(dir ?? 'memory://', { extensions: { pg_trgm }, ...(opts.seed && !dir ? { loadDataDir: opts.seed } : {}) });
    const knex = knexFactory({ client: PGliteClient as never, connection: { pglite } as never, searchPath, log: knexLog(opts.logger) });
    guardHeldConnection(knex, opts.strayQueries ?? 'log', opts.logger);
    if (schema !== 'public') await knex.raw('CREATE SCHEMA IF NOT EXISTS ??', [schema]);
    // PGlite calls listeners as the statement that committed the notification returns.
    await pglite.listen(SIGNAL_CHANNEL, (payload) => signals.emit('signal', payload));
    return wrap('pglite', knex, schema, signals, async () => {
      await knex.destroy();
      if (!pglite.closed) await pglite.close();
      unlock();
    });
  } catch (err) {
    unlock();
    throw err;
  }
}

/** Whether a connection string carries `options` (`-c name=value` for the session). */
function urlSetsOptions(url: string): boolean {
  try {
    return new URL(url).searchParams.has('options');
  } catch {
    return false;
  }
}

/** Named statements one process creates at most (each pooled connection may hold them all). */
const MAX_PREPARED = 256;
/** Texts remembered as seen once, waiting for a second sighting. */
const MAX_SEEN_ONCE = 4096;

/** Which texts `repeated` prepares: the second sighting names a text, up to MAX_PREPARED texts. */
class StatementNames {
  private readonly seenOnce = new Set<string>();
  private readonly names = new Map<string, string>();

  nameFor(sql: string, version: string): string | undefined {
    const text = `${version}\n${sql}`;
    const name = this.names.get(text);
    if (name || this.names.size >= MAX_PREPARED) return name;
    if (!this.seenOnce.has(text)) {
      if (this.seenOnce.size < MAX_SEEN_ONCE) this.seenOnce.add(text);
      return undefined;
    }
    this.seenOnce.delete(text);
    const fresh = `q_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    this.names.set(text, fresh);
    return fresh;
  }
}

function wrap(kind: DatabaseKind, knex: Db, schema: string, signals: EventEmitter, close: () => Promise<void>): Database {
  const statements = new StatementNames();
  /** Runs `$1`-style SQL, as the named statement `name` when given, on `trx`'s connection or a pooled one. */
  const run = async (name: string | undefined, text: string, values: readonly unknown[], trx?: Db, options: Record<string, unknown> = {}) => {
    // Visible to knex 'query' listeners like every other statement.
    if (knex.listenerCount('query') > 0) knex.emit('query', { method: 'raw', sql: text, bindings: values });
    // A transaction's client hands out the transaction's own connection.
    const client = ((trx as any) ?? knex).client;
    const conn = await client.acquireConnection();
    try {
      if (kind === 'pglite') return (await conn.query(text, values, options)).rows;
      return (await conn.query({ ...options, ...(name ? { name } : {}), text, values })).rows;
    } finally {
      await client.releaseConnection(conn);
    }
  };
  return {
    kind,
    knex,
    schema,
    close,
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
        await conn.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
        try {
          return await fn();
        } finally {
          await conn.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
        }
      } finally {
        client.releaseConnection(conn);
      }
    },
    async repeated(query, version, trx) {
      let statement: NativeStatement;
      if ('toSQL' in query) {
        const compiled = query.toSQL();
        // Per-query options (node-postgres `types`, PGlite `parsers`) travel as knex would pass them.
        statement = { ...compiled.toNative(), options: (compiled as { options?: Record<string, unknown> }).options };
      } else statement = query;
      const { sql, bindings, options } = statement;
      return run(kind === 'postgres' ? statements.nameFor(sql, version) : undefined, sql, bindings, trx, options);
    },
    prepared(name, text) {
      return (values, trx) => run(name, text, values, trx);
    },
  };
}

/** The one transaction helper: runs `fn` in `trx` when given, else in a new transaction. */
export function inTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>, trx?: Db): Promise<T> {
  if (trx && (trx as Trx).isTransaction) return fn(trx as Trx);
  return db.transaction(fn);
}

/** Runs `fn` once `trx` has committed (at once when `trx` is no transaction); never when it rolls back. */
export function afterCommit(trx: Db | undefined, fn: () => void): void {
  const t = trx as (Db & { isTransaction?: boolean; executionPromise?: Promise<unknown> }) | undefined;
  if (t?.isTransaction && t.executionPromise) t.executionPromise.then(fn, () => {});
  else fn();
}
