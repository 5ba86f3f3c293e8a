import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { StrayQueries } from './held-connection.ts';

export type Db = Knex;
export type Trx = Knex.Transaction;
export type DatabaseKind = 'postgres' | 'pglite';

/**
 * The channel cache signals travel on (core/cache.ts). Every pooled connection listens on it:
 * PostgreSQL hands a session its own transaction's notifications before COMMIT returns, so
 * the writing process hears its own change before it answers.
 */
export const SIGNAL_CHANNEL = 'tessera_cache';

/** What every PGlite instance loads before its data: compiled once, it spares each further instance ~0.1 s. */
export interface PgliteRuntime {
  wasmModule: WebAssembly.Module;
  fsBundle: Blob;
}

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
  /** PGlite's compiled engine and file bundle, for a process that opens many in-memory databases (tests; see `loadPgliteRuntime`). */
  runtime?: PgliteRuntime;
  /** PGlite: a query sent outside the transaction its code runs in (see held-connection.ts); default `log`. */
  strayQueries?: StrayQueries;
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
  /** PGlite: the whole cluster as a dump another in-memory database can start from (`seed`); absent on PostgreSQL. */
  dumpCluster?(): Promise<Blob>;
  close(): Promise<void>;
}
