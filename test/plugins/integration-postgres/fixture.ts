import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { SourceInput, SourceKind, SourcePage } from '../../../plugins/sources/public.ts';
import type { TableConfig } from '../../../plugins/integration-postgres/schemas.ts';

/** The PostgreSQL that CI always runs, whatever DATABASE_URL says: these tests read it as a user's database. */
export const TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

export interface Scratch {
  /** A schema of its own, random, so parallel runs on one server never meet. */
  schema: string;
  /** A read-write client of the test's own, to make tables and change rows behind the plugin's back. */
  admin: pg.Client;
  drop(): Promise<void>;
}

export async function scratchSchema(): Promise<Scratch> {
  const schema = `pgsrc_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  return {
    schema,
    admin,
    async drop() {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/** What the sources plugin hands a kind: the config, the connection's credentials, a signal; private networks allowed. */
export function inputFor(config: TableConfig, more: Partial<SourceInput<TableConfig> & { cursor: unknown }> = {}): SourceInput<TableConfig> & { cursor: unknown } {
  return {
    config,
    credentials: { url: TEST_DATABASE_URL },
    signal: new AbortController().signal,
    allowPrivateNetworks: true,
    now: new Date(),
    cursor: null,
    ...more,
  };
}

/** Every page a read yields, in order. */
export async function pagesOf(kind: SourceKind<TableConfig>, input: SourceInput<TableConfig> & { cursor: unknown }): Promise<SourcePage[]> {
  const pages: SourcePage[] = [];
  for await (const page of kind.read(input)) pages.push(page);
  return pages;
}
