import type { Db } from '../../core/db.ts';
import { limitExceeded } from '../../core/errors.ts';

/** PostgreSQL's most columns in a table; dropped columns still count. */
const MAX_COLUMNS = 1600;

/**
 * How many fields a database may hold: `maxFields` live fields (an option), and what its records
 * table can still take, since a field's column stays when the field is deleted (restore brings
 * its values back) and PostgreSQL never gives a column number back. Callers have begun a schema
 * change, so the counts hold until they commit.
 */
export class FieldLimits {
  constructor(private readonly maxFields: number) {}

  /** 422 `limit_exceeded` unless `live` more live fields, `columns` of which add a column, fit in the database. */
  async assertRoom(trx: Db, databaseId: string, add: { live: number; columns: number }): Promise<void> {
    const { rows } = await trx.raw(
      `SELECT (SELECT count(*)::int FROM fields WHERE database_id = d.id AND deleted_at IS NULL) AS live,
              (SELECT count(*)::int FROM pg_attribute WHERE attrelid = to_regclass(d.table_name) AND attnum > 0) AS columns
         FROM databases d WHERE d.id = ?`,
      [databaseId],
    );
    const { live, columns } = rows[0] as { live: number; columns: number };
    if (live + add.live > this.maxFields) {
      throw limitExceeded(`This database has ${live} fields; it may have at most ${this.maxFields} (the databases plugin's maxFields).`, { limit: this.maxFields });
    }
    if (columns + add.columns > MAX_COLUMNS) {
      throw limitExceeded(
        `This database's table has used all ${MAX_COLUMNS} columns PostgreSQL allows: deleted fields keep theirs. Restore a deleted field, or convert one, instead of adding another.`,
        { limit: MAX_COLUMNS },
      );
    }
  }
}
