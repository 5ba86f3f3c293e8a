import type { Database as Storage, Db } from '../../core/db.ts';
import { workspaceHoldSql } from '../workspaces/public.ts';
import type { DatabasePlace, HeldDatabases } from './held-databases.ts';

const workspaceHold = workspaceHoldSql('d.workspace_id');

/**
 * Holds the workspace row (the workspaces plugin's hold, in its SQL: its deletion waits) and the database row
 * FOR SHARE, and answers the database's schema version. A change to the fields bumps that version holding the
 * row (schema-change.ts), so until commit the fields of that version are the fields; where the database sits is
 * remembered for the transaction (HeldDatabases). One statement on the write path of every record. `$1` database id,
 * `$2` workspace id.
 */
const HOLD_DATABASE = `SELECT d.schema_version, d.workspace_id, d.space_id, d.created_by FROM databases d ${workspaceHold.join}
 WHERE d.id = $1 AND d.workspace_id = $2 FOR SHARE OF d ${workspaceHold.lock}`;

/**
 * The database's table, workspace, schema version and the orders its indexes serve (view-indexes.ts), then its live
 * fields, title first, each with the live field its `options.target_field_id` names in another database (lookups,
 * rollups): `$1` database id.
 */
const READ_FIELDS = `SELECT d.table_name, d.workspace_id, d.schema_version, d.sort_indexes, f.id, f.api_name, f.name, f.type, f.options, f.column_name, f.is_title, f.synced,
       tf.id AS target_id, tf.api_name AS target_api_name, tf.type AS target_type, tf.options AS target_options, tf.column_name AS target_column_name
  FROM databases d JOIN fields f ON f.database_id = d.id
  LEFT JOIN fields tf ON tf.id::text = f.options->>'target_field_id' AND tf.deleted_at IS NULL
 WHERE d.id = $1 AND f.deleted_at IS NULL
 ORDER BY f.is_title DESC, f.position`;

/** One live field of a database as READ_FIELDS answers it, with the field it targets. */
export type CatalogFieldRow = Record<string, any>;

export interface StoredTable {
  id: string;
  workspace_id: string;
  table_name: string;
}

/**
 * Where each database keeps its records and what its fields are, for the plugins that read and write records
 * (records, favorites, views): exported as `databases.catalog`. Its statements are prepared on PostgreSQL.
 */
export class TableCatalog {
  private readonly holdStatement: (values: unknown[], trx: Db) => Promise<Array<DatabasePlace & { schema_version: number }>>;
  private readonly fieldsStatement: (values: unknown[], trx?: Db) => Promise<CatalogFieldRow[]>;

  constructor(
    private readonly storage: Storage,
    private readonly held: HeldDatabases,
  ) {
    this.holdStatement = storage.prepared('databases.catalog.hold', HOLD_DATABASE);
    this.fieldsStatement = storage.prepared('databases.catalog.fields', READ_FIELDS);
  }

  /** Holds the database (and its workspace) until `trx` ends; its schema version, or undefined when it is not in that workspace. */
  async hold(trx: Db, workspaceId: string, databaseId: string): Promise<number | undefined> {
    const [held] = await this.holdStatement([databaseId, workspaceId], trx);
    if (!held) return undefined;
    this.held.remember(trx, databaseId, { workspace_id: held.workspace_id, space_id: held.space_id, created_by: held.created_by });
    return Number(held.schema_version);
  }

  /** The live fields of a database with its table, workspace and schema version on each row; none when it is gone. */
  fieldRows(databaseId: string, trx?: Db): Promise<CatalogFieldRow[]> {
    return this.fieldsStatement([databaseId], trx);
  }

  /** Every database's table (with its workspace), or those of one workspace. */
  async tables(db: Db = this.storage.knex, workspaceId?: string): Promise<StoredTable[]> {
    const q = db('databases').select('id', 'workspace_id', 'table_name').orderBy('id');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    return (await q) as StoredTable[];
  }

  /** Names of the databases among `ids` that exist. */
  async names(db: Db, ids: string[]): Promise<Array<{ id: string; name: string }>> {
    if (ids.length === 0) return [];
    return (await db('databases').whereIn('id', ids).select('id', 'name')) as Array<{ id: string; name: string }>;
  }

  /**
   * Keeps a database from being deleted until `trx` ends (FOR SHARE; `key` takes FOR KEY SHARE, which lets its
   * row be updated meanwhile). Its table, or undefined when it is gone.
   */
  async keep(trx: Db, databaseId: string, lock: 'share' | 'key' = 'share'): Promise<StoredTable | undefined> {
    const q = trx('databases').where({ id: databaseId });
    if (lock === 'key') q.forKeyShare();
    else q.forShare();
    return (await q.first('id', 'workspace_id', 'table_name')) as StoredTable | undefined;
  }
}
