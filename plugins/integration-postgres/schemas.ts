import { Type, type Static } from '../../core/schema.ts';

export const PostgresOptions = Type.Object(
  {
    allowPrivateNetworks: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Let connections reach loopback, private, link-local addresses and Unix sockets (a database on the same network, tests). Off, such hosts are refused, written or resolved: they could read this server\'s own database.',
      }),
    ),
  },
  { additionalProperties: false, default: {} },
);
export type PostgresOptions = Static<typeof PostgresOptions>;

// PostgreSQL truncates longer identifiers to 63 bytes; a NUL cannot be in one.
const Identifier = (description: string, more: { default?: string } = {}) =>
  Type.String({ minLength: 1, maxLength: 63, pattern: '^[^\\u0000]+$', description, ...more });

export const TableConfig = Type.Object(
  {
    schema: Type.Optional(Identifier('The schema of `table`.', { default: 'public' })),
    table: Type.Optional(Identifier('The table or view to sync (exactly one of `table` and `query`).')),
    query: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100_000,
        pattern: '^[^\\u0000]+$',
        description: 'One SELECT (or WITH … SELECT) statement whose rows are synced, without a semicolon or parameters; it runs read-only.',
      }),
    ),
    key_column: Identifier('The column whose value tells a row apart from every other (a primary key); rows where it is NULL are skipped.'),
    updated_at_column: Type.Optional(
      Identifier('A timestamptz, timestamp or date column that changes whenever the row does: with it, runs after the first read only what changed.'),
    ),
    columns: Type.Optional(
      Type.Array(Identifier('A column to sync.'), {
        minItems: 1,
        maxItems: 1600,
        uniqueItems: true,
        description: 'The columns to sync (default: all of them); the key column is always synced.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TableConfig = Static<typeof TableConfig>;

/** The source kind this plugin adds: one table, view or query of a PostgreSQL database. */
export const POSTGRES_TABLE_KIND = 'postgres.table';
