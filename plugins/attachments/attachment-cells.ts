import type { Db } from '../../core/db.ts';
import type { CellContext, CellProblem, CellStore, CellWrite, FieldMeta } from '../databases/public.ts';
import type { BlobRefs } from './blob-refs.ts';

/**
 * Attachment cells as record writes store them: the cell is the record's attachments in the field, in `position`
 * order. A write names the ones to keep, in order; the others are deleted with their record's write, and their bytes
 * once it commits if nothing else names them.
 */
export class AttachmentCells implements CellStore {
  constructor(private readonly refs: BlobRefs) {}

  /** Every id must be an attachment uploaded to that record's field; held until commit so a concurrent delete waits. */
  async check(trx: Db, field: FieldMeta<any>, cells: CellWrite[], _ctx: CellContext): Promise<CellProblem[]> {
    const ids = [...new Set(cells.flatMap((c) => c.value as string[]))];
    const rows = ids.length === 0 ? [] : ((await trx('attachments').whereIn('id', ids).forUpdate().select('id', 'record_id', 'field_id')) as Array<{ id: string; record_id: string; field_id: string }>);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const problems: CellProblem[] = [];
    for (const cell of cells) {
      (cell.value as string[]).forEach((id, i) => {
        const row = byId.get(id);
        if (!row || row.record_id !== cell.recordId || row.field_id !== field.id) {
          problems.push({ recordId: cell.recordId, pointer: `${cell.pointer}/${i}`, detail: `No attachment ${id} uploaded to this record's "${field.api_name}" field.` });
        }
      });
    }
    return problems;
  }

  async write(trx: Db, field: FieldMeta<any>, cells: CellWrite[]): Promise<void> {
    const released: string[] = [];
    for (const cell of cells) {
      const ids = cell.value as string[];
      const gone = (await trx('attachments').where({ record_id: cell.recordId, field_id: field.id }).whereNotIn('id', ids).delete().returning('blob_key')) as Array<{ blob_key: string }>;
      released.push(...gone.map((g) => g.blob_key));
      if (ids.length > 0) {
        await trx.raw('UPDATE attachments a SET position = p.n - 1 FROM unnest(?::uuid[]) WITH ORDINALITY AS p(id, n) WHERE a.id = p.id', [ids]);
      }
    }
    await this.refs.release(trx, released);
  }

  /** The copy's cell names the same bytes: new attachments, one blob each. */
  async duplicate(trx: Db, field: FieldMeta<any>, sourceId: string, copyId: string): Promise<void> {
    await trx.raw(
      `INSERT INTO attachments (workspace_id, database_id, record_id, field_id, blob_key, name, position, created_by, created_at)
       SELECT workspace_id, database_id, ?, field_id, blob_key, name, position, created_by, created_at FROM attachments
       WHERE record_id = ? AND field_id = ? AND position IS NOT NULL ORDER BY position`,
      [copyId, sourceId, field.id],
    );
  }
}
