import type { Db } from '../../core/db.ts';
import type { FieldTypeRegistry } from './field-types/registry.ts';
import { FIELD_COLUMNS, toField, type FieldRow } from './fields.view.ts';
import { beginSchemaChange } from './schema-change.ts';
import type { Field } from './schemas.ts';

/** A field another plugin makes and keeps (a link, made by the relations plugin with its relation). */
export interface NewManagedField {
  id: string;
  workspace_id: string;
  database_id: string;
  name: string;
  api_name: string;
  type: string;
  options: Record<string, unknown>;
  position: number;
  created_by: string;
}

/**
 * The fields table for the plugins whose field types it does not manage itself (`managedBy`): they create,
 * read, re-option and delete their fields here, in their own transaction, instead of writing the table.
 * Exported as `databases.managedFields`.
 */
export class ManagedFields {
  constructor(private readonly types: FieldTypeRegistry) {}

  /** Every field of a database, deleted ones included (their names and api names stay taken). */
  async ofDatabase(db: Db, databaseId: string): Promise<FieldRow[]> {
    return (await db('fields').where({ database_id: databaseId }).select(FIELD_COLUMNS)) as FieldRow[];
  }

  /** Fields by id, as the API shows them. */
  async byIds(db: Db, ids: string[]): Promise<Map<string, Field>> {
    const rows = (await db('fields').whereIn('id', ids).select(FIELD_COLUMNS)) as FieldRow[];
    return new Map(rows.map((row) => [row.id, toField(row, this.types)]));
  }

  /** Options and storage of one field; undefined when it is gone. */
  async find<O extends object = Record<string, unknown>>(db: Db, id: string): Promise<{ id: string; database_id: string; column_name: string | null; options: O } | undefined> {
    return (await db('fields').where({ id }).first('id', 'database_id', 'column_name', 'options')) as { id: string; database_id: string; column_name: string | null; options: O } | undefined;
  }

  /** Inserts fields that have no column of their own. */
  async insert(trx: Db, fields: NewManagedField[]): Promise<void> {
    await trx('fields').insert(fields.map((f) => ({ ...f, options: JSON.stringify(f.options), column_name: null })));
  }

  /** Sets one top-level key of the options of `ids`, leaving the rest of their options as they are. */
  async setOption(trx: Db, ids: string[], key: string, value: unknown): Promise<void> {
    await trx('fields')
      .whereIn('id', ids)
      .update({ options: trx.raw(`jsonb_set(options, ?::text[], ?::jsonb)`, [[key], JSON.stringify(value)]), updated_at: trx.fn.now() });
  }

  /** Whether a field of `type` holds, under the options key `key`, an array containing one of `items`. */
  async anyHolds(db: Db, type: string, key: string, items: object[]): Promise<boolean> {
    const q = db('fields').where({ type });
    q.where((w) => {
      for (const item of items) w.orWhereRaw('options -> ? @> ?::jsonb', [key, JSON.stringify([item])]);
    });
    return !!(await q.first('id'));
  }

  /**
   * Marks fields as a source's (`synced`: only its syncs write them) or makes them ordinary again; the database's
   * schema changes with it, so every process reads the fields anew.
   */
  async setSynced(trx: Db, databaseId: string, ids: string[], synced: boolean): Promise<void> {
    if (ids.length === 0) return;
    await beginSchemaChange(trx, databaseId);
    await trx('fields').where({ database_id: databaseId }).whereIn('id', ids).update({ synced, updated_at: trx.fn.now() });
  }

  /** Deletes fields and every field reading through them (a lookup, rollup or count names its link in `link_field_id`). */
  async deleteWithReaders(trx: Db, ids: string[]): Promise<void> {
    await trx('fields').whereRaw(`options->>'link_field_id' = ANY(?::text[])`, [ids]).delete();
    await trx('fields').whereIn('id', ids).delete();
  }
}
