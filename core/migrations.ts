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

/** The names of the migrations each owner's table records, read in two statements whatever the number of owners. */
export async function appliedMigrations(db: Db): Promise<Map<string, Set<string>>> {
  const { rows: tables } = (await db.raw(
    `SELECT c.relname AS name FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname LIKE 'knex\\_migrations\\_%' AND c.relname NOT LIKE '%\\_lock'`,
  )) as { rows: Array<{ name: string }> };
  const applied = new Map<string, Set<string>>(tables.map((t) => [t.name, new Set<string>()]));
  if (tables.length === 0) return applied;
  const union = tables.map(() => 'SELECT ?::text AS owner, name FROM ??').join(' UNION ALL ');
  const { rows } = (await db.raw(union, tables.flatMap((t) => [t.name, t.name]))) as { rows: Array<{ owner: string; name: string }> };
  for (const row of rows) applied.get(row.owner)!.add(row.name);
  return applied;
}

/**
 * Runs the migrations of `dir` its owner's table does not record. `applied` (from `appliedMigrations`) spares the
 * statements knex's migrator spends finding nothing to do (about ten per owner, 37 owners at every start).
 */
export async function migrateDirectory(db: Db, owner: string, dir: string, applied: Map<string, Set<string>>): Promise<string[]> {
  const source = new DirectorySource(dir);
  const tableName = migrationTable(owner);
  const done = applied.get(tableName);
  const names = (await source.getMigrations()).map((f) => source.getMigrationName(f));
  if (done && names.every((n) => done.has(n))) return [];
  const [, ran] = (await db.migrate.latest({ migrationSource: source, tableName })) as [number, string[]];
  return ran;
}
