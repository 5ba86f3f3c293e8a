import { inTransaction, type Db } from '../../core/db.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { invalidField, notFound, type ErrorDetail } from '../../core/errors.ts';
import { storeOutsideCells } from './outside-cells.ts';
import { changedBefore } from './codec.ts';
import type { MoveRecordBody } from './move.schemas.ts';
import { positionBetween } from './positions.ts';
import type { RecordRow } from './record-row.ts';
import type { RecordTable } from './record-table.ts';
import { updateLockedRecord } from './record-writes.ts';
import type { RecordService } from './records.service.ts';
import type { ApiRecord } from './schemas.ts';

/** Where a record goes: right before or after another, or (null) to the end. */
type Anchor = { side: 'before' | 'after'; row: RecordRow } | null;

/** Moves a record in manual order, optionally changing its cells in the same transaction. */
export class RecordMoveService {
  constructor(
    private readonly db: Db,
    private readonly records: RecordService,
  ) {}

  /**
   * The record is locked, its anchor and cells checked (every error reported at once), then it
   * gets a position between the anchor and the anchor's neighbour on the other side (itself
   * left out). Like any update it bumps `version` and sets `updated_*`.
   */
  async move(principal: UserPrincipal, workspaceId: string, databaseId: string, id: string, body: MoveRecordBody): Promise<ApiRecord> {
    if (body.before_id !== undefined && body.after_id !== undefined) throw invalidField('/after_id', 'Send `before_id` or `after_id`, not both.');
    const userId = principal.user.id;
    return inTransaction(this.db, async (trx) => {
      const table = await this.records.open(trx, workspaceId, databaseId);
      const before = await table.find(trx, id, true);
      if (!before) throw notFound('No such record in this database.');
      const errors: ErrorDetail[] = [];
      const anchor = await this.anchor(trx, table, id, body, errors);
      // Throws with the anchor's error too: past this line `anchor` null means "to the end".
      const [decoded] = await this.records.decode(trx, table, workspaceId, [{ values: body.values ?? {}, base: '' }], errors);
      const position = await this.positionAt(trx, table, id, anchor);
      await table.fillComputed(trx, [before], table.fields);
      const after = await updateLockedRecord(trx, table, id, { ...decoded.columns, position }, userId);
      await storeOutsideCells(trx, [{ recordId: id, cells: decoded.cells }], { workspaceId, userId });
      await table.reactToWrites(trx, [{ id, columns: decoded.columns }], { workspaceId, userId });
      const [beforeRecord, afterRecord] = await this.records.present(trx, table, [before, after]);
      await this.records.changed(trx, principal, table, [{ kind: 'updated', recordId: id, before: beforeRecord, after: afterRecord }], {
        events: { name: 'record.updated', workspaceId, actorId: userId, payload: { database_id: databaseId, before: changedBefore(beforeRecord, afterRecord), after: afterRecord } },
      });
      return (await this.records.shownTo(principal, trx, table, [after], [afterRecord]))[0];
    });
  }

  private async anchor(trx: Db, table: RecordTable, id: string, body: MoveRecordBody, errors: ErrorDetail[]): Promise<Anchor> {
    const side = body.before_id !== undefined ? 'before' : 'after';
    const anchorId = body.before_id ?? body.after_id;
    if (anchorId === undefined) return null;
    const pointer = `/${side}_id`;
    if (anchorId === id) {
      errors.push({ pointer, detail: 'A record cannot be placed next to itself.' });
      return null;
    }
    const row = await table.find(trx, anchorId);
    if (!row) {
      errors.push({ pointer, detail: `No live record ${anchorId} in this database.` });
      return null;
    }
    return { side, row };
  }

  private async positionAt(trx: Db, table: RecordTable, id: string, anchor: Anchor): Promise<string> {
    if (!anchor) return positionBetween(await table.neighbourPosition(trx, null, 'before', id), null);
    const neighbour = await table.neighbourPosition(trx, anchor.row, anchor.side, id);
    return anchor.side === 'before' ? positionBetween(neighbour, anchor.row.position) : positionBetween(anchor.row.position, neighbour);
  }
}
