import pg from 'pg';
import { CursorExpired, SourceRefused, SourceUnavailable, type SourceInput, type SourceKind, type SourcePage, type SourceRow } from '../sources/public.ts';
import { systemResolver, type Resolver } from './address.ts';
import { isListing, readCursor, type ChangesCursor, type Cursor, type ListingCursor } from './cursor.ts';
import { ConnectionFailed } from './failures.ts';
import { changesPage, listingPage, PAGE_SIZE, type Statement } from './page-sql.ts';
import { POSTGRES_TABLE_KIND, TableConfig } from './schemas.ts';
import { Session, STATEMENT_TIMEOUT_MS, withSession, type SessionOptions } from './session.ts';
import { describeSource, propertiesOf, relationOf, type DescribedSource } from './source-plan.ts';

type Row = Record<string, string | null>;

export interface PostgresTableKindOptions {
  /** The plugin's option; a source may also be allowed by the sources plugin's own (`input.allowPrivateNetworks`). */
  allowPrivateNetworks: boolean;
  resolver?: Resolver;
}

/** What a failure means to a run: the provider failed (SourceUnavailable), unless it is an abort or an expired cursor. */
function unavailable(err: unknown): unknown {
  if (err instanceof SourceRefused) return new SourceUnavailable(err.detail);
  if (err instanceof ConnectionFailed) return new SourceUnavailable(err.message);
  if (err instanceof pg.DatabaseError) {
    if (err.code === '57014') return new SourceUnavailable(`PostgreSQL canceled a read that took over ${STATEMENT_TIMEOUT_MS / 1000} s: ${err.message}.`);
    return new SourceUnavailable(`PostgreSQL refused the read: ${err.message}.`);
  }
  return err;
}

function rowOf(source: DescribedSource, row: Row): SourceRow {
  const values: Record<string, unknown> = {};
  source.columns.forEach((column, i) => {
    const text = row[`c${i}`];
    values[column.name] = text === null ? null : column.type.decode(text);
  });
  return { key: row.k!, values };
}

async function rowsOf(session: Session, statement: Statement): Promise<Row[]> {
  return (await session.read<Row>(statement.sql, statement.params)).rows;
}

/**
 * The statement a cursor leads to, run for no row: PostgreSQL reads the cursor's values as the key's and updated-at's
 * types when it binds them, so one they no longer fit (the key column changed type) is told apart here from a failure
 * of the source's own rows later.
 */
async function checkCursor(session: Session, source: DescribedSource, cursor: Cursor): Promise<void> {
  try {
    await rowsOf(session, isListing(cursor) ? listingPage(source, cursor, 0) : changesPage(source, cursor, 0));
  } catch (err) {
    if (err instanceof pg.DatabaseError && err.code?.startsWith('22')) throw new CursorExpired(`The cursor no longer fits the source: ${err.message}.`);
    throw err;
  }
}

/** The full listing, from the cursor's key on; its last page's cursor is where the first incremental read starts. */
async function* listing(session: Session, source: DescribedSource, from: ListingCursor | null): AsyncGenerator<SourcePage> {
  let cursor = from;
  for (;;) {
    const rows = await rowsOf(session, listingPage(source, cursor));
    const values = rows.map((row) => rowOf(source, row));
    const last = rows.at(-1);
    const maxUpdatedAt = last ? (last.m ?? null) : (cursor?.max_updated_at ?? null);
    if (rows.length < PAGE_SIZE) {
      yield { rows: values, cursor: maxUpdatedAt === null ? null : { updated_since: maxUpdatedAt }, snapshot: true };
      return;
    }
    cursor = { after_key: last!.k!, ...(source.updatedAt ? { max_updated_at: maxUpdatedAt } : {}) };
    yield { rows: values, cursor, snapshot: true };
  }
}

/** What changed since the cursor, page by page; the last page's cursor is where the next incremental read starts. */
async function* changes(session: Session, source: DescribedSource, from: ChangesCursor): AsyncGenerator<SourcePage> {
  let cursor = from;
  for (;;) {
    const rows = await rowsOf(session, changesPage(source, cursor));
    const last = rows.at(-1);
    if (last) cursor = { updated_since: cursor.updated_since, after: [last.u!, last.k!] };
    yield { rows: rows.map((row) => rowOf(source, row)), cursor, snapshot: false };
    if (rows.length < PAGE_SIZE) return;
  }
}

async function* read(input: SourceInput<TableConfig> & { cursor: unknown }, options: SessionOptions): AsyncGenerator<SourcePage> {
  let session: Session | undefined;
  try {
    session = await Session.open(input.credentials, options);
    const source = await describeSource(session, input.config);
    const cursor = readCursor(input.cursor, source.updatedAt !== undefined);
    if (cursor) await checkCursor(session, source, cursor);
    if (cursor === null || isListing(cursor)) yield* listing(session, source, cursor);
    else yield* changes(session, source, cursor);
  } catch (err) {
    throw unavailable(err);
  } finally {
    await session?.close();
  }
}

/**
 * Plans both reads for no row, so a key or updated-at column PostgreSQL cannot order by (json, point) is refused with
 * the config rather than failing the first run.
 */
async function probe(session: Session, source: DescribedSource): Promise<void> {
  try {
    await rowsOf(session, listingPage(source, null, 0));
  } catch (err) {
    if (err instanceof pg.DatabaseError) throw new SourceRefused('/config/key_column', `PostgreSQL cannot read the source in "${source.key.name}" order: ${err.message}.`);
    throw err;
  }
  if (!source.updatedAt) return;
  try {
    await rowsOf(session, changesPage(source, { updated_since: '-infinity' }, 0));
  } catch (err) {
    if (err instanceof pg.DatabaseError)
      throw new SourceRefused('/config/updated_at_column', `PostgreSQL cannot read the source in "${source.updatedAt.name}" order: ${err.message}.`);
    throw err;
  }
}

/**
 * The `postgres.table` kind: one table, view or query of a PostgreSQL database, read a page at a time through a
 * read-only session, fully (every row, in key order) or, with an updated-at column and a cursor from an earlier read,
 * only the rows changed since. Exported so tests use it without a kernel.
 */
export function postgresTableKind(options: PostgresTableKindOptions): SourceKind<TableConfig> {
  const sessionOptions = (input: SourceInput<TableConfig>): SessionOptions => ({
    allowPrivateNetworks: options.allowPrivateNetworks || input.allowPrivateNetworks,
    resolver: options.resolver ?? systemResolver,
    signal: input.signal,
  });
  return {
    id: POSTGRES_TABLE_KIND,
    name: 'PostgreSQL table or query',
    provider: 'postgres',
    configSchema: TableConfig,
    async check(input) {
      relationOf(input.config);
      try {
        await withSession(input.credentials, sessionOptions(input), async (session) => {
          const source = await describeSource(session, input.config);
          await probe(session, source);
        });
      } catch (err) {
        throw err instanceof SourceRefused ? err : unavailable(err);
      }
    },
    async properties(input) {
      try {
        return await withSession(input.credentials, sessionOptions(input), async (session) => propertiesOf(await describeSource(session, input.config)));
      } catch (err) {
        throw unavailable(err);
      }
    },
    read: (input) => read(input, sessionOptions(input)),
  };
}
