import type { Db } from '../../core/db.ts';
import type { RecordService } from '../records/public.ts';

/** A live record's title cell as plain text (as CSV writes it), read in `trx`; empty when it has none. */
export async function recordTitle(records: RecordService, trx: Db, workspaceId: string, databaseId: string, recordId: string): Promise<string> {
  const table = await records.open(trx, workspaceId, databaseId);
  const field = table.fields.find((f) => f.is_title);
  const row = await table.find(trx, recordId);
  if (!field || !row) return '';
  const [record] = await records.present(trx, table, [row], [field]);
  const value = record.values[field.api_name];
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : field.fieldType.csv.format(value, field);
}
