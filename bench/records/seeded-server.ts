import { startServer, type Server } from '../lib/server.ts';
import type { Storage } from '../lib/storage.ts';
import { seedRecords, type Seeded, type SeedOptions } from './seed.ts';
import { createBenchDatabase, type BenchDatabase } from './setup.ts';

export interface SeededServer {
  server: Server;
  bench: BenchDatabase;
  seeded: Seeded;
}

/**
 * A bench server on `storage` with the bench database made through the API and `count` records seeded by SQL. On
 * PGlite the server stops while the bench fills the directory (one process owns it) and starts again on it. The
 * caller cleans the storage up; a server this started is stopped when it fails.
 */
export async function seededServer(
  storage: Storage,
  count: number,
  opts: { profileDir?: string | null; env?: Record<string, string>; seed?: SeedOptions; progress?: (line: string) => void } = {},
): Promise<SeededServer> {
  const start = () => startServer(storage, opts.profileDir ?? null, 'server.ts', opts.env ?? {});
  let server: Server | null = await start();
  try {
    const bench = await createBenchDatabase(server.url);
    if (storage.kind === 'pglite') {
      await server.stop();
      server = null;
    }
    const db = await storage.open();
    let seeded: Seeded;
    try {
      seeded = await seedRecords(db, bench, count, opts.progress ?? (() => {}), opts.seed);
      opts.progress?.('');
    } finally {
      await db.close();
    }
    server ??= await start();
    return { server, bench, seeded };
  } catch (err) {
    await server?.stop();
    throw err;
  }
}
