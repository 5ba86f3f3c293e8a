import type { Database as Storage, Db } from '../../core/db.ts';
import type { ErrorDetail } from '../../core/errors.ts';
import type { EventBus } from '../../core/events.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { decodeValues, type DecodedValues } from './codec.ts';
import type { WriteOrigin } from './hooks.ts';
import { storeOutsideCells } from './outside-cells.ts';
import { positionsAfter } from './positions.ts';
import { newRecordId } from './record-row.ts';
import type { RecordTable } from './record-table.ts';
import { insertRecords } from './record-writes.ts';
import type { RecordService } from './records.service.ts';

/** A user a decoded record names who is not a member of the workspace: `index` in the batch checked. */
export interface UnknownUser {
  index: number;
  pointer: string;
  detail: string;
}

/**
 * Creates many records inside a transaction its caller owns (an import of 100,000 rows), batch after
 * batch, after the last live record. Each batch is one INSERT, one `records.changes` call and one
 * events insert, so history and events cost per batch, not per record. The caller decodes and checks
 * every record before writing it and decides what a bad one does to the whole (an import refuses it all).
 */
export class RecordBatchWriter {
  private last: string | null;

  constructor(
    private readonly trx: Db,
    private readonly storage: Storage,
    private readonly events: EventBus,
    private readonly records: RecordService,
    readonly table: RecordTable,
    private readonly principal: UserPrincipal,
    private readonly origin: WriteOrigin,
    lastPosition: string | null,
  ) {
    this.last = lastPosition;
  }

  /** API values → column values, as every API write checks them; problems are appended to `errors` with pointers `/values/<api_name>`. */
  decode(values: Record<string, unknown>, errors: ErrorDetail[]): DecodedValues {
    return decodeValues(this.table, values, '', errors);
  }

  /** The user cells of a batch that name someone who is not a member of the workspace (one query per batch). */
  async unknownUsers(batch: DecodedValues[]): Promise<UnknownUser[]> {
    const named = [...new Set(batch.flatMap((d) => d.users.map((u) => u.id)))];
    if (named.length === 0) return [];
    const members = await this.records.members.holdAmong(this.trx, this.table.workspaceId, named);
    return batch.flatMap((d, index) => d.users.filter((u) => !members.has(u.id)).map((u) => ({ index, pointer: u.pointer, detail: `User ${u.id} is not a member of this workspace.` })));
  }

  /** Writes one batch of checked records, in order; returns how many were created. */
  async write(batch: DecodedValues[]): Promise<number> {
    if (batch.length === 0) return 0;
    const { trx, table } = this;
    const userId = this.principal.user.id;
    const ctx = { workspaceId: table.workspaceId, userId };
    const positions = positionsAfter(this.last, batch.length);
    this.last = positions[positions.length - 1];
    const rows = await insertRecords(
      trx,
      this.storage,
      table,
      batch.map((d, i) => ({ id: newRecordId(), ...d.columns, position: positions[i], created_by: userId, updated_by: userId })),
    );
    await storeOutsideCells(trx, batch.map((d, i) => ({ recordId: rows[i].id, cells: d.cells })), ctx);
    await table.reactToWrites(trx, rows, ctx);
    const records = await this.records.present(trx, table, rows);
    await this.records.changed(trx, this.principal, table, records.map((record) => ({ kind: 'created', recordId: record.id, before: null, after: record })), this.origin);
    await this.events.emit(trx, records.map((record) => ({ name: 'record.created', workspaceId: table.workspaceId, actorId: userId, payload: { database_id: table.databaseId, record } })));
    return rows.length;
  }
}
