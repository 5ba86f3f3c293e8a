import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Plugin } from './plugin.ts';
import type { KernelConfig } from './config.ts';
import type { Database } from './db.ts';
import type { PluginStatus } from './kernel.ts';

/** A database as a kernel left it right after migrating: a PGlite cluster dump, or the SQL that recreates a PostgreSQL schema. */
type Template = { kind: 'pglite'; dump: Blob } | { kind: 'postgres'; schema: string; sql: string };

/** What a test kernel does about templates: start from one, copy its own database after migrating, or neither. */
export interface TemplateUse {
  template?: Template;
  /** The kernel's `onMigrated`. */
  capture?: (database: Database, statuses: readonly PluginStatus[]) => Promise<void>;
  /** Once the kernel started or failed: a kernel that failed before capturing leaves the copy to the next one. */
  done(): void;
}

const pluginIds = new WeakMap<Plugin, number>();
let nextPluginId = 1;

/**
 * Which migrations and job queues a kernel sets up: its plugin objects (by identity: the same
 * objects register the same jobs) and the configuration that enables, resolves or configures them.
 */
export function migrationsKey(plugins: readonly Plugin[], config: KernelConfig): string {
  const ids = plugins.map((p) => {
    if (!pluginIds.has(p)) pluginIds.set(p, nextPluginId++);
    return pluginIds.get(p);
  });
  return JSON.stringify([ids, config.plugins, config.baseDir]);
}

/**
 * Starting points for test kernels. Running every migration is a large part of a test kernel's
 * start: the second kernel of a key copies its database once it has migrated, and later kernels of
 * that key start from the copy and find nothing left to migrate. A key seen once costs no copy.
 */
export class MigratedTemplates {
  private readonly sightings = new Map<string, number>();
  /** `null`: the copy was not taken (a plugin failed, or pg_dump is missing); kernels of the key migrate. */
  private readonly templates = new Map<string, Promise<Template | null>>();

  async use(key: string, databaseUrl: string | undefined): Promise<TemplateUse> {
    const template = this.templates.get(key);
    if (template) return { template: (await template) ?? undefined, done: () => {} };
    const seen = (this.sightings.get(key) ?? 0) + 1;
    this.sightings.set(key, seen);
    if (seen < 2) return { done: () => {} };
    let settle!: (t: Template | null) => void;
    let captured = false;
    this.templates.set(key, new Promise((resolve) => (settle = resolve)));
    return {
      capture: async (database, statuses) => {
        captured = true;
        settle(statuses.some((s) => s.state === 'failed') ? null : await copy(database, databaseUrl).catch(() => null));
      },
      done: () => {
        if (captured) return;
        this.templates.delete(key);
        settle(null);
      },
    };
  }
}

/** Recreates a PostgreSQL template under `schema` (and its job schema), before a kernel opens it. */
export async function restorePostgresTemplate(template: Template & { kind: 'postgres' }, url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(template.sql.split(template.schema).join(schema));
  } finally {
    await client.end();
  }
}

async function copy(database: Database, url: string | undefined): Promise<Template> {
  if (database.dumpCluster) return { kind: 'pglite', dump: await database.dumpCluster() };
  const { schema } = database;
  const { stdout } = await promisify(execFile)(
    'pg_dump',
    ['--dbname', url!, '--schema', schema, '--schema', `${schema}_jobs`, '--inserts', '--no-owner', '--no-privileges'],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  // psql meta-commands (`\restrict`) are not SQL.
  return { kind: 'postgres', schema, sql: stdout.split('\n').filter((line) => !line.startsWith('\\')).join('\n') };
}
