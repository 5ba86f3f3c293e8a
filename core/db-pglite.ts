import type { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import knexFactory from 'knex';
import ClientPGLite from 'knex-pglite';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { guardHeldConnection } from './held-connection.ts';
import { knexLog } from './knex-log.ts';
import { lockDataDir } from './pglite-lock.ts';
import { trimWal, type NeededWal } from './pglite-wal-trim.ts';
import { SIGNAL_CHANNEL, type DatabaseOptions, type Db, type PgliteRuntime } from './db-types.ts';

/**
 * knex-pglite derives the SQL command from knex's method name, so `del()` reports "DEL" and
 * knex returns the raw result instead of the affected row count; name it as PostgreSQL does.
 */
class PGliteClient extends (ClientPGLite as unknown as new (config: unknown) => { processResponse(obj: any, runner: unknown): unknown }) {
  override processResponse(obj: any, runner: unknown): unknown {
    return super.processResponse(obj?.method === 'del' ? { ...obj, method: 'delete' } : obj, runner);
  }
}

export interface OpenPglite {
  knex: Db;
  dumpCluster(): Promise<Blob>;
  close(): Promise<void>;
}

/** Where the embedded database of `dataDir` (DATA_DIR) keeps its files. */
export function pgliteDirOf(dataDir: string): string {
  return path.resolve(dataDir, 'pglite');
}

/** Whether `dir` (see `pgliteDirOf`) already holds a database: opening it resumes that one, whatever seed is given. */
export function holdsDatabase(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'PG_VERSION'));
}

/**
 * An in-memory cluster's files are in memory already, so PostgreSQL's buffer pool only holds second copies of its
 * pages: a small one loses little, and zeroing the default 128 MB took two thirds of each start (1.2 s against 0.4 s
 * for a migrated cluster of all the built-ins).
 */
const IN_MEMORY = { startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'] };

/** Embedded PostgreSQL in `DATA_DIR/pglite` (locked to this process), or in memory. */
export async function openPglite(opts: DatabaseOptions, schema: string, searchPath: string[], signals: EventEmitter): Promise<OpenPglite> {
  const dir = opts.dataDir ? pgliteDirOf(opts.dataDir) : undefined;
  const unlock = dir ? lockDataDir(dir, opts.dataDir!) : () => {};
  try {
    const pglite = await PGlite.create(dir ?? 'memory://', {
      extensions: { pg_trgm },
      ...(opts.seed && !(dir && holdsDatabase(dir)) ? { loadDataDir: opts.seed } : {}),
      ...(opts.runtime && !dir ? { pgliteWasmModule: opts.runtime.wasmModule, fsBundle: opts.runtime.fsBundle } : {}),
      ...(dir ? {} : IN_MEMORY),
    });
    const knex = knexFactory({ client: PGliteClient as never, connection: { pglite } as never, searchPath, log: knexLog(opts.logger) });
    guardHeldConnection(knex, opts.strayQueries ?? 'log', opts.logger);
    if (schema !== 'public') await knex.raw('CREATE SCHEMA IF NOT EXISTS ??', [schema]);
    // PGlite calls listeners as the statement that committed the notification returns.
    await pglite.listen(SIGNAL_CHANNEL, (payload) => signals.emit('signal', payload));
    return {
      knex,
      dumpCluster: () => trimmedDump(pglite),
      async close() {
        await knex.destroy();
        if (!pglite.closed) await pglite.close();
        unlock();
      },
    };
  } catch (err) {
    unlock();
    throw err;
  }
}

/**
 * A dump of a freshly initialised PGlite cluster. Loading it takes a fraction of initdb's
 * time, which dominates starting an in-memory database. The cluster keeps only the `postgres`
 * database PGlite connects to: the two templates (which nothing here copies) are half of its
 * files, and loading them took half of every in-memory start (800 ms against 470 ms).
 */
export async function emptyClusterDump(): Promise<Blob> {
  const pglite = await PGlite.create('memory://', { extensions: { pg_trgm }, ...IN_MEMORY });
  try {
    await pglite.exec(`UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`);
    await pglite.exec('DROP DATABASE template0');
    await pglite.exec('DROP DATABASE template1');
    return await trimmedDump(pglite);
  } finally {
    await pglite.close();
  }
}

/** PGlite's engine, compiled, and its file bundle, read from the installed package. */
export async function loadPgliteRuntime(): Promise<PgliteRuntime> {
  const dist = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  const [wasm, bundle] = await Promise.all([fs.promises.readFile(path.join(dist, 'pglite.wasm')), fs.promises.readFile(path.join(dist, 'pglite.data'))]);
  return { wasmModule: await WebAssembly.compile(wasm), fsBundle: new HeldBlob(new Uint8Array(bundle)) };
}

/**
 * Bytes PGlite reads at every start (a seed, its file bundle), kept in the JavaScript heap as well. PGlite reads them
 * with `arrayBuffer()`, which Node's Blob answers by reading its own copy back in chunks: about a tenth of a test
 * kernel's start for a migrated cluster and the bundle, against a few milliseconds for a copy (a copy: PGlite may keep
 * what it is given).
 */
export class HeldBlob extends Blob {
  constructor(private readonly held: Uint8Array<ArrayBuffer>) {
    super([held]);
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return this.held.slice().buffer;
  }
}

/** The cluster as a dump to start from, checkpointed in a fresh WAL segment so that little WAL goes with it (see trimWal). */
async function trimmedDump(pglite: PGlite): Promise<Blob> {
  await pglite.exec('SELECT pg_switch_wal(); CHECKPOINT');
  const segments = `SELECT pg_walfile_name(redo_lsn) AS first, pg_walfile_name(pg_current_wal_insert_lsn()) AS last FROM pg_control_checkpoint()`;
  const [{ first }] = (await pglite.query<NeededWal>(segments)).rows;
  const dump = new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer());
  const [{ last }] = (await pglite.query<NeededWal>(segments)).rows;
  return new HeldBlob(trimWal(dump, { first, last }));
}
