import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import type { Db } from './db.ts';

export interface Migration {
  up(knex: Knex): Promise<void>;
  down?(knex: Knex): Promise<void>;
  /** `{ transaction: false }`: each statement commits on its own (DDL on many tables, whose locks one transaction could not hold). */
  config?: { transaction?: boolean };
}

/** Lists `*.ts`/`*.js` files of a directory in name order and imports them (works under tsx). */
class DirectorySource implements Knex.MigrationSource<string> {
  constructor(private readonly dir: string) {}

  async getMigrations(): Promise<string[]> {
    if (!fs.existsSync(this.dir)) return [];
    return fs
      .readdirSync(this.dir)
      .filter((f) => /\.(ts|js|mjs)$/.test(f) && !f.endsWith('.d.ts'))
      .sort();
  }

  getMigrationName(file: string): string {
    return file.replace(/\.(ts|js|mjs)$/, '');
  }

  async getMigration(file: string): Promise<Knex.Migration> {
    const mod = (await import(pathToFileURL(path.join(this.dir, file)).href)) as Migration & { default?: Migration };
    const m = mod.default ?? mod;
    return { up: m.up, down: m.down ?? (async () => {}), ...(m.config ? { config: m.config } : {}) };
  }
}

/** The migration table of an owner: kernel first, then one per plugin. */
export function migrationTable(owner: string): string {
  return `knex_migrations_${owner.replace(/-/g, '_')}`;
}

export async function migrateDirectory(db: Db, owner: string, dir: string): Promise<string[]> {
  const source = new DirectorySource(dir);
  const tableName = migrationTable(owner);
  // knex's migrator spends about ten statements (tables, lock, list) finding nothing to do; one or two tell.
  if (await allApplied(db, tableName, (await source.getMigrations()).map((f) => source.getMigrationName(f)))) return [];
  const [, applied] = (await db.migrate.latest({ migrationSource: source, tableName })) as [number, string[]];
  return applied;
}

async function allApplied(db: Db, tableName: string, names: string[]): Promise<boolean> {
  const [{ exists }] = (await db.raw('SELECT to_regclass(?) IS NOT NULL AS exists', [tableName])).rows as { exists: boolean }[];
  if (!exists) return false;
  const done = new Set((await db(tableName).select('name')).map((r: { name: string }) => r.name));
  return names.every((n) => done.has(n));
}
