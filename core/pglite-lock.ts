import fs from 'node:fs';
import path from 'node:path';
import { StartupError } from './errors.ts';
import { checkWritableDir } from './preflight.ts';
import { processAlive } from './process-alive.ts';

const LOCK_FILE = 'tessera.lock';

/** PGlite corrupts a data directory opened by two processes; refuse the second one. */
export function lockDataDir(dir: string, dataDir: string): () => void {
  checkWritableDir(dir, dataDir, 'the embedded database lives');
  const file = path.join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(fs.readFileSync(file, 'utf8'));
      if (holder && holder !== process.pid && processAlive(holder)) {
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
