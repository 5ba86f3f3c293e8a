import pg from 'pg';
import { SourceRefused, type SourceProperty } from '../sources/public.ts';
import { columnTypeOf, type ColumnType } from './column-types.ts';
import { queryProblem } from './query-guard.ts';
import type { TableConfig } from './schemas.ts';
import type { Session } from './session.ts';

/** What a config reads, as SQL, before anything is asked of the database. */
export interface Relation {
  /** A quoted `schema.table`, or the query in parentheses: what goes after FROM (aliased `src`). */
  sql: string;
  /** Where a refusal of it points. */
  pointer: '/config/table' | '/config/query';
  /** How messages name it, after "the": `table public.orders`, `query`. */
  label: string;
}

export interface Column {
  name: string;
  /** The column as SQL: `src."name"`. */
  sql: string;
  type: ColumnType;
}

/** The types an updated-at column may have: the ones whose text form reads back as the same value, in order. */
const UPDATED_AT_TYPES = ['timestamptz', 'timestamp', 'date'] as const;
export type UpdatedAtType = (typeof UPDATED_AT_TYPES)[number];

/** A source as its database describes it now: what is synced, the key, the updated-at column. */
export interface DescribedSource {
  relation: Relation;
  /** The synced columns in the source's order, the key among them: one property each. */
  columns: Column[];
  key: Column;
  updatedAt?: Column & { sqlType: UpdatedAtType };
}

const quoted = (name: string) => pg.escapeIdentifier(name);

/** The relation a config names; refuses one with both or neither of table and query, or a query that is not one SELECT. */
export function relationOf(config: TableConfig): Relation {
  if ((config.table === undefined) === (config.query === undefined)) {
    if (config.table === undefined) throw new SourceRefused('/config/table', 'Give the table to sync, or a query.');
    throw new SourceRefused('/config/query', 'Give a table or a query, not both.');
  }
  if (config.query !== undefined) {
    const problem = queryProblem(config.query);
    if (problem) throw new SourceRefused('/config/query', problem);
    // On lines of their own, so that a `--` comment ending the query cannot swallow what follows it.
    return { sql: `(\n${config.query}\n)`, pointer: '/config/query', label: 'query' };
  }
  const schema = config.schema ?? 'public';
  const table = config.table!;
  return { sql: `${quoted(schema)}.${quoted(table)}`, pointer: '/config/table', label: `table ${schema}.${table}` };
}

/** What PostgreSQL's refusal to read the relation means to the person who configured it. */
function refusalOf(err: unknown, relation: Relation): unknown {
  if (!(err instanceof pg.DatabaseError)) return err;
  if (relation.pointer === '/config/query') return new SourceRefused(relation.pointer, `PostgreSQL refused the query: ${err.message}.`);
  if (err.code === '42P01') return new SourceRefused(relation.pointer, `The ${relation.label} does not exist (or the connection's user cannot see it).`);
  if (err.code === '42501') return new SourceRefused(relation.pointer, `The connection's user may not read the ${relation.label}: ${err.message}.`);
  return new SourceRefused(relation.pointer, `PostgreSQL refused to read the ${relation.label}: ${err.message}.`);
}

async function typeNames(session: Session, oids: number[]): Promise<Map<number, string>> {
  const { rows } = await session.read<{ oid: string; typname: string }>(
    'SELECT oid::text AS oid, typname::text AS typname FROM pg_catalog.pg_type WHERE oid = ANY($1::oid[])',
    [[...new Set(oids)]],
  );
  return new Map(rows.map((row) => [Number(row.oid), row.typname]));
}

function columnNamed(columns: Map<string, Column & { typname: string }>, name: string, pointer: string, relation: Relation) {
  const column = columns.get(name);
  if (column) return column;
  const names = [...columns.keys()].map((n) => `"${n}"`).join(', ');
  throw new SourceRefused(pointer, `The ${relation.label} has no column "${name}"; its columns: ${names || 'none'}.`);
}

/**
 * Asks the database what the config reads (its result's columns, without reading a row) and checks the config
 * against it. Throws SourceRefused with the config's pointer; ConnectionFailed when the connection fails.
 */
export async function describeSource(session: Session, config: TableConfig): Promise<DescribedSource> {
  const relation = relationOf(config);
  let fields: pg.FieldDef[];
  try {
    fields = (await session.read(`SELECT * FROM ${relation.sql} AS src LIMIT 0`)).fields;
  } catch (err) {
    throw refusalOf(err, relation);
  }
  const names = await typeNames(session, fields.map((f) => f.dataTypeID));
  const columns = new Map<string, Column & { typname: string }>();
  for (const field of fields) {
    if (columns.has(field.name)) throw new SourceRefused(relation.pointer, `The query gives two columns named "${field.name}": name each once (AS).`);
    const typname = names.get(field.dataTypeID) ?? 'unknown';
    columns.set(field.name, { name: field.name, sql: `src.${quoted(field.name)}`, type: columnTypeOf(typname, field.dataTypeModifier), typname });
  }

  const key = columnNamed(columns, config.key_column, '/config/key_column', relation);
  let updatedAt: DescribedSource['updatedAt'];
  if (config.updated_at_column !== undefined) {
    const column = columnNamed(columns, config.updated_at_column, '/config/updated_at_column', relation);
    const sqlType = UPDATED_AT_TYPES.find((t) => t === column.typname);
    if (!sqlType)
      throw new SourceRefused('/config/updated_at_column', `"${column.name}" is of type ${column.typname}; an updated-at column must be a timestamptz, timestamp or date.`);
    updatedAt = { ...column, sqlType };
  }
  config.columns?.forEach((name, i) => columnNamed(columns, name, `/config/columns/${i}`, relation));
  const chosen = new Set(config.columns ?? columns.keys());
  return { relation, columns: [...columns.values()].filter((c) => c === key || chosen.has(c.name)), key, updatedAt };
}

/** One property per synced column, named and keyed by the column; the key column's is the unique one. */
export function propertiesOf(source: DescribedSource): SourceProperty[] {
  return source.columns.map((column) => ({
    key: column.name,
    name: column.name,
    type: column.type.type,
    ...(column.type.options ? { options: column.type.options } : {}),
    ...(column === source.key ? { unique: true } : {}),
  }));
}
