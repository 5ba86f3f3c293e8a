import { createHash } from 'node:crypto';
import type { Database, DatabaseKind, Db, NativeStatement } from './db-types.ts';
import { timedStatement } from './server-timing.ts';

/** Named statements one process creates at most (each pooled connection may hold them all). */
const MAX_PREPARED = 256;
/** Texts remembered as seen once, waiting for a second sighting. */
const MAX_SEEN_ONCE = 4096;

/** Which texts `repeated` prepares: the second sighting names a text, up to MAX_PREPARED texts. */
class StatementNames {
  private readonly seenOnce = new Set<string>();
  private readonly names = new Map<string, string>();

  nameFor(sql: string, version: string): string | undefined {
    const text = `${version}\n${sql}`;
    const name = this.names.get(text);
    if (name || this.names.size >= MAX_PREPARED) return name;
    if (!this.seenOnce.has(text)) {
      if (this.seenOnce.size < MAX_SEEN_ONCE) this.seenOnce.add(text);
      return undefined;
    }
    this.seenOnce.delete(text);
    const fresh = `q_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    this.names.set(text, fresh);
    return fresh;
  }
}

/** A database's `prepared` and `repeated`: `$1`-style statements, named (prepared) on PostgreSQL. */
export function statementRunners(kind: DatabaseKind, knex: Db): Pick<Database, 'prepared' | 'repeated'> {
  const statements = new StatementNames();
  /** Runs `$1`-style SQL, as the named statement `name` when given, on `trx`'s connection or a pooled one. */
  const run = async (name: string | undefined, text: string, values: readonly unknown[], trx?: Db, options: Record<string, unknown> = {}) => {
    // A transaction's client hands out the transaction's own connection.
    const client = ((trx as any) ?? knex).client;
    const conn = await client.acquireConnection();
    try {
      // Visible to knex 'query' listeners like every other statement, with the connection and transaction knex tags its own with.
      if (knex.listenerCount('query') > 0) knex.emit('query', { method: 'raw', sql: text, bindings: values, __knexUid: conn.__knexUid, __knexTxId: conn.__knexTxId });
      return await timedStatement(async () => {
        if (kind === 'pglite') return (await conn.query(text, values, options)).rows;
        return (await conn.query({ ...options, ...(name ? { name } : {}), text, values })).rows;
      });
    } finally {
      await client.releaseConnection(conn);
    }
  };
  return {
    async repeated(query, version, trx) {
      let statement: NativeStatement;
      if ('toSQL' in query) {
        const compiled = query.toSQL();
        // Per-query options (node-postgres `types`, PGlite `parsers`) travel as knex would pass them.
        statement = { ...compiled.toNative(), options: (compiled as { options?: Record<string, unknown> }).options };
      } else statement = query;
      const { sql, bindings, options } = statement;
      return run(kind === 'postgres' ? statements.nameFor(sql, version) : undefined, sql, bindings, trx, options);
    },
    prepared(name, text) {
      return (values, trx) => run(name, text, values, trx);
    },
  };
}
