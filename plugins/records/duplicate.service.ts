import { inTransaction, type Db } from '../../core/db.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { notFound } from '../../core/errors.ts';
import { positionBetween } from './positions.ts';
import { insertCopy } from './record-writes.ts';
import type { RecordService } from './records.service.ts';
import type { ApiRecord } from './schemas.ts';

/** Copies of records: the writable cells of the source (and the links that can be shared), placed right after it. */
export class RecordDuplicateService {
  constructor(
    private readonly db: Db,
    private readonly records: RecordService,
  ) {}

  /**
   * A new record with the source's cells of every live writable field, as stored (a user cell
   * naming someone who has since left is copied too); number, version, created_* and updated_*
   * are its own. Links are copied where a record may have several (many-to-many, and the one
   * side of a one-to-many: the copy gets the same parent), not a parent's children, nor links into a
   * database the caller cannot see. It goes between the source and the next live record in manual order.
   */
  async duplicate(principal: UserPrincipal, workspaceId: string, databaseId: string, id: string): Promise<ApiRecord> {
    const userId = principal.user.id;
    return inTransaction(this.db, async (trx) => {
      const table = await this.records.open(trx, workspaceId, databaseId);
      const source = await table.find(trx, id);
      if (!source) throw notFound('No such record in this database.');
      const position = positionBetween(source.position, await table.neighbourPosition(trx, source, 'after'));
      const writable = table.fields.flatMap((f) => (f.column_name && !f.fieldType.readOnly ? [f.column_name] : []));
      await this.records.admit(trx, workspaceId, 1);
      const row = await insertCopy(trx, table, source.id, writable, { position, userId });
      for (const field of table.fields) if (!field.column_name && field.fieldType.store) await field.fieldType.store.duplicate(trx, field, source.id, row.id, { workspaceId, userId });
      await table.reactToWrites(trx, [row], { workspaceId, userId });
      const [record] = await this.records.present(trx, table, [row]);
      await this.records.changed(trx, principal, table, [{ kind: 'created', recordId: record.id, before: null, after: record, duplicatedFrom: source.id }], {
        events: { name: 'record.created', workspaceId, actorId: userId, payload: { database_id: databaseId, record, duplicated_from: source.id } },
      });
      return (await this.records.shownTo(principal, trx, table, [row], [record]))[0];
    });
  }
}
