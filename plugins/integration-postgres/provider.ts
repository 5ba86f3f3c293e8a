import type { Credentials, IntegrationProvider, TestOutcome } from '../integrations/public.ts';
import { systemResolver, type AddressRules } from './address.ts';
import { ConnectionFailed } from './failures.ts';
import { withSession } from './session.ts';
import { POSTGRES_TABLE_KIND } from './schemas.ts';

/** `user@host[:port]/database`: what a connection reads as, and where. */
function accountId(user: string, host: string, port: number, database: string): string {
  return `${user}@${host}${port === 5432 ? '' : `:${port}`}/${database}`;
}

/** Connects and asks who the session is, in a read-only transaction. Never throws; no detail contains the password. */
export async function testConnection(credentials: Credentials, rules: AddressRules): Promise<TestOutcome> {
  try {
    return await withSession(credentials, rules, async (session) => {
      const { rows } = await session.read<{ user: string; database: string; version: string }>(
        'SELECT current_user AS "user", current_database() AS "database", version() AS "version"',
      );
      const { user, database, version } = rows[0];
      const { host, port } = session.target;
      // version() reads "PostgreSQL 16.4 (Debian 16.4-1) on x86_64-pc-linux-gnu, compiled by …": its first two words.
      const product = version.split(' ').slice(0, 2).join(' ');
      const id = accountId(user, host, port, database);
      return { ok: true, detail: `Connected to ${database} on ${host} as ${user} (${product}).`, account: { id, name: id } };
    });
  } catch (err) {
    if (err instanceof ConnectionFailed) return { ok: false, detail: err.message };
    return { ok: false, detail: `PostgreSQL answered the test with an error: ${(err as Error).message}` };
  }
}

export interface PostgresProviderOptions {
  allowPrivateNetworks: boolean;
  resolver?: AddressRules['resolver'];
}

/** The PostgreSQL provider, as the plugin adds it to `integrations.providers`; tests call it directly. */
export function postgresProvider(options: PostgresProviderOptions): IntegrationProvider {
  const rules: AddressRules = { allowPrivateNetworks: options.allowPrivateNetworks, resolver: options.resolver ?? systemResolver };
  return {
    id: 'postgres',
    name: 'PostgreSQL',
    categories: ['database'],
    auth: {
      type: 'api_key',
      fields: [{ name: 'url', label: 'Connection URL (postgres://user:password@host:port/database)', secret: true }],
    },
    test: (credentials) => testConnection(credentials, rules),
    sources: [POSTGRES_TABLE_KIND],
  };
}
