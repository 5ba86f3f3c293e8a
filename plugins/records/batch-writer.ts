import type { Database as Storage, Db } from '../../core/db.ts';
import type { ErrorDetail } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { decodeValues, type DecodedValues } from './codec.ts';
import type { WriteOrigin } from './hooks.ts';
import { storeOutsideCells } from './outside-cells.ts';
import { positionsAfter } from './positions.ts';
import { newRecordId, type RecordRow } from './record-row.ts';
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
 * batch, after the last live record. Each batch is one INSERT and one `records.changes` call, whose
 * history and events go as one statement, so history and events cost per batch, not per record. The caller decodes and checks
 * every record before writing it and decides what a bad one does to the whole (an import refuses it all).
 *
 * A batch's history (presenting its records, `records.changes`, events) follows its INSERT without
 * holding up the next batch: the next INSERT is queued on the transaction's connection while this
 * process presents and encodes the previous batch, so the database and this process work side by
 * side instead of waiting for each other; a batch's INSERT waits for the history of the batch before
 * the previous one, so memory holds two batches at most. Every statement still runs in the caller's transaction;
 * `finish` waits for the last batch's history and must be awaited before the transaction ends,
 * whatever happened.
 */
export class RecordBatchWriter {
  private last: string | null;
  /** The history of the batches written so far: settled when the last one's `records.changes` and events are stored. */
  private history: Promise<void> = Promise.resolve();
  /** The history of every batch but the last: a batch's INSERT waits for it, so history is never more than one batch behind. */
  private behind: Promise<void> = Promise.resolve();

  constructor(
    private readonly trx: Db,
    private readonly storage: Storage,
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
    return decodeValues(this.table, values, '', errors, this.origin.type === 'sync');
  }

  /** The user cells of a batch that name someone who is not a member of the workspace (one query per batch). */
  async unknownUsers(batch: DecodedValues[]): Promise<UnknownUser[]> {
    const named = [...new Set(batch.flatMap((d) => d.users.map((u) => u.id)))];
    if (named.length === 0) return [];
    const members = await this.records.members.holdAmong(this.trx, this.table.workspaceId, named);
    return batch.flatMap((d, index) => d.users.filter((u) => !members.has(u.id)).map((u) => ({ index, pointer: u.pointer, detail: `User ${u.id} is not a member of this workspace.` })));
  }

  /**
   * Writes one batch of checked records, in order; returns their ids, in that order, once they are inserted, their
   * history following (see `finish`). A failure of an earlier batch's history is what this throws, if there was one.
   */
  async write(batch: DecodedValues[]): Promise<string[]> {
    if (batch.length === 0) return [];
    const { trx, table } = this;
    const userId = this.principal.user.id;
    const ctx = { workspaceId: table.workspaceId, userId };
    // Without this wait the history would fall further behind with every batch (it takes several statements to a
    // batch's one INSERT), holding every batch not yet told in memory.
    await this.behind;
    const positions = positionsAfter(this.last, batch.length);
    this.last = positions[positions.length - 1];
    const ids = batch.map(() => newRecordId());
    let rows: RecordRow[];
    try {
      await this.records.admit(trx, table.workspaceId, batch.length);
      rows = await insertRecords(
        trx,
        this.storage,
        table,
        batch.map((d, i) => ({ id: ids[i], ...d.columns, position: positions[i], created_by: userId, updated_by: userId })),
      );
      await storeOutsideCells(trx, batch.map((d, i) => ({ recordId: rows[i].id, cells: d.cells })), ctx);
      await table.reactToWrites(trx, rows, ctx);
    } catch (err) {
      // A statement after a failed one fails too (the transaction is aborted): the first failure is the one to tell.
      await this.history;
      throw err;
    }
    const previous = this.history;
    this.behind = previous;
    this.history = previous.then(() => this.tell(rows));
    // Awaited by the next write or by `finish`; marked handled now so that a failure does not count as unhandled meanwhile.
    this.history.catch(() => undefined);
    return ids;
  }

  /** Waits for the history of every batch written: what the caller awaits before its transaction ends, committed or not. */
  async finish(): Promise<void> {
    await this.history;
  }

  /** A batch's records as the API shows them, told to `records.changes` and as `record.created` events. */
  private async tell(rows: RecordRow[]): Promise<void> {
    const { trx, table } = this;
    const userId = this.principal.user.id;
    const records = await this.records.present(trx, table, rows);
    await this.records.changed(trx, this.principal, table, records.map((record) => ({ kind: 'created', recordId: record.id, before: null, after: record })), {
      origin: this.origin,
      batch: true,
      // Like a form's, an import's events say where their records came from: what follows them after commit can tell
      // (the search index reads an import's records in its own rebuild, not one event at a time).
      events: records.map((record) => ({ name: 'record.created', workspaceId: table.workspaceId, actorId: userId, payload: { database_id: table.databaseId, record, origin: this.origin } })),
    });
  }
}
