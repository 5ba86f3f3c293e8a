import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, type Database } from '../../core/db.ts';

export const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Where a bench server keeps its data: a fresh PostgreSQL schema or a fresh PGlite directory, removed by `cleanup`. */
export interface Storage {
  kind: 'postgres' | 'pglite';
  label: string;
  workers: number;
  /** The environment bench/server.ts reads. */
  env: Record<string, string>;
  /** Whether the targets apply (they are stated for PostgreSQL). */
  targeted: boolean;
  /**
   * The same database as the server's, for direct SQL. PGlite: only while the server is stopped
   * (one process owns the directory).
   */
  open(): Promise<Database>;
  cleanup(): Promise<void>;
}

export function postgresStorage(workers: number): Storage {
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const blobs = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-blobs-'));
  return {
    kind: 'postgres',
    label: `PostgreSQL (${new URL(PG_URL).host}, schema ${schema}), ${workers === 1 ? '1 process' : `${workers} cluster workers`}`,
    workers,
    env: { BENCH_DATABASE_URL: PG_URL, BENCH_SCHEMA: schema, BENCH_WORKERS: String(workers), BENCH_DATA_DIR: blobs },
    targeted: true,
    // One connection, so session settings (SET …) hold for every statement.
    open: () => openDatabase({ url: PG_URL, schema, poolMax: 1 }),
    async cleanup() {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_jobs" CASCADE`);
      await client.end();
      fs.rmSync(blobs, { recursive: true, force: true });
    },
  };
}

export function pgliteStorage(): Storage {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-'));
  return {
    kind: 'pglite',
    label: `PGlite (DATA_DIR ${dir}), 1 process`,
    workers: 1,
    env: { BENCH_DATABASE_URL: '', BENCH_SCHEMA: '', BENCH_WORKERS: '1', BENCH_DATA_DIR: dir },
    targeted: false,
    open: () => openDatabase({ dataDir: dir }),
    async cleanup() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
