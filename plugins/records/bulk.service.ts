import { inTransaction, type Db } from '../../core/db.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { invalidField, type ErrorDetail } from '../../core/errors.ts';
import { RecordErrors, refusedCode } from './errors.ts';
import type { WriteOrigin } from './hooks.ts';
import { checkOutsideCells, writeOutsideCells } from './outside-cells.ts';
import { changedBefore, decodeValues, type DecodedValues } from './codec.ts';
import type { RecordRow } from './record-row.ts';
import { updateRecords } from './record-writes.ts';
import type { RecordService } from './records.service.ts';
import type { ApiRecord, PatchRecordsBody, RecordError } from './schemas.ts';

/**
 * Batch writes on records (≤ 200 ids). A batch PATCH applies what it can and reports the rest
 * per id; delete and restore skip ids with nothing to do. Each runs in one transaction, rows
 * locked in id order.
 */
export class RecordBulkService {
  constructor(
    private readonly db: Db,
    private readonly records: RecordService,
  ) {}

  /**
   * Patches many records, each refused on its own (`errors`) or written; in `inTrx` when given (a sync writes a page
   * of its source's rows so, with `origin` `sync`, which alone may write synced fields).
   */
  async update(principal: UserPrincipal, workspaceId: string, databaseId: string, body: PatchRecordsBody, inTrx?: Db, origin?: WriteOrigin): Promise<{ data: ApiRecord[]; errors: RecordError[] }> {
    const seen = new Set<string>();
    body.records.forEach(({ id }, i) => {
      if (seen.has(id)) throw invalidField(`/records/${i}/id`, `Record ${id} is sent twice.`);
      seen.add(id);
    });
    const userId = principal.user.id;
    return inTransaction(this.db, async (trx) => {
      const table = await this.records.open(trx, workspaceId, databaseId);
      const rows = new Map((await table.lockMany(trx, [...seen])).map((r) => [r.id, r]));
      const errors: RecordError[] = [];
      const valid: Array<{ before: RecordRow; decoded: DecodedValues }> = [];
      const inputs = body.records.map(({ id, values }) => {
        const cells: ErrorDetail[] = [];
        return { id, values, cells, decoded: decodeValues(table, values, '', cells, origin?.type === 'sync') };
      });
      const named = inputs.flatMap((c) => c.decoded.users.map((u) => u.id));
      const members = await this.records.members.holdAmong(trx, workspaceId, [...new Set(named)]);
      for (const { id, cells, decoded } of inputs) {
        const before = rows.get(id);
        if (!before) {
          errors.push({ id, code: 'not_found', detail: 'No such record in this database.' });
          continue;
        }
        for (const user of decoded.users) if (!members.has(user.id)) cells.push({ pointer: user.pointer, detail: `User ${user.id} is not a member of this workspace.` });
        if (cells.length > 0) errors.push({ id, code: refusedCode(cells), detail: cells.map((c) => `${c.pointer}: ${c.detail}`).join(' ') });
        else valid.push({ before, decoded });
      }
      // Outside cells (links) are judged per record too: a record with a bad one is reported, not written.
      const problems = await checkOutsideCells(trx, valid.map((v) => ({ recordId: v.before.id, cells: v.decoded.cells })), { workspaceId, userId });
      if (problems.length > 0) {
        const refused = new Set(problems.map((p) => p.recordId));
        for (const id of refused) {
          const own = problems.filter((p) => p.recordId === id);
          const clash = own.find((p) => p.conflict);
          errors.push(clash ? { id, code: RecordErrors.link_conflict.code, detail: clash.detail } : { id, code: 'validation_failed', detail: own.map((p) => `${p.pointer}: ${p.detail}`).join(' ') });
        }
        valid.splice(0, valid.length, ...valid.filter((v) => !refused.has(v.before.id)));
      }
      // Like PATCH R/{id}: no cells, no change (no version bump, no event).
      const updated = await updateRecords(
        trx,
        table,
        valid.filter((v) => Object.keys(v.decoded.columns).length > 0 || v.decoded.cells.length > 0).map((v) => ({ id: v.before.id, columns: v.decoded.columns })),
        userId,
      );
      const withCells = valid.filter((v) => v.decoded.cells.length > 0);
      if (withCells.length > 0) {
        // The links as they were, for the events, before they change.
        await table.fillComputed(trx, withCells.map((v) => v.before), table.fields);
        await writeOutsideCells(trx, withCells.map((v) => ({ recordId: v.before.id, cells: v.decoded.cells })), { workspaceId, userId });
      }
      await table.reactToWrites(trx, valid.filter((v) => updated.has(v.before.id)).map((v) => ({ id: v.before.id, columns: v.decoded.columns })), { workspaceId, userId });
      const after = valid.map((v) => updated.get(v.before.id) ?? v.before);
      const changed = valid.flatMap((v, i) => (updated.has(v.before.id) ? [{ before: v.before, at: i }] : []));
      // Each row is encoded once: the answer's records double as the events' `after`.
      const shown = await this.records.present(trx, table, [...after, ...changed.map((c) => c.before)]);
      const data = shown.slice(0, after.length);
      await this.records.changed(trx, principal, table, changed.map((c, k) => ({ kind: 'updated', recordId: c.before.id, before: shown[after.length + k], after: data[c.at] })), {
        origin,
        events: changed.map((c, k) => ({
          name: 'record.updated',
          workspaceId,
          actorId: userId,
          // A write with an origin (a sync's) says so in its events too: what follows the commit can tell.
          payload: { database_id: databaseId, before: changedBefore(shown[after.length + k], data[c.at]), after: data[c.at], ...(origin ? { origin } : {}) },
        })),
      });
      return { data: await this.records.shownTo(principal, trx, table, after, data), errors };
    }, inTrx);
  }

  /**
   * Soft-deletes the live records among `ids`; already deleted or unknown ids are skipped. Returns the ids deleted, in
   * request order. In `inTrx` when given, history telling `origin`.
   */
  delete(principal: UserPrincipal, workspaceId: string, databaseId: string, ids: string[], inTrx?: Db, origin?: WriteOrigin): Promise<string[]> {
    return this.setDeleted(principal, workspaceId, databaseId, ids, true, inTrx, origin);
  }

  /** Restores the deleted records among `ids` where they were (position unchanged); live or unknown ids are skipped. */
  restore(principal: UserPrincipal, workspaceId: string, databaseId: string, ids: string[]): Promise<string[]> {
    return this.setDeleted(principal, workspaceId, databaseId, ids, false);
  }

  private async setDeleted(principal: UserPrincipal, workspaceId: string, databaseId: string, ids: string[], deleted: boolean, inTrx?: Db, origin?: WriteOrigin): Promise<string[]> {
    return inTransaction(this.db, async (trx) => {
      const table = await this.records.open(trx, workspaceId, databaseId);
      const rows = await table.lockMany(trx, [...new Set(ids)], !deleted);
      if (!deleted) await this.records.admit(trx, workspaceId, rows.length);
      await table.setDeleted(trx, rows.map((r) => r.id), deleted);
      await this.records.movedInTrash(trx, principal, workspaceId, databaseId, rows.map((r) => r.id), deleted);
      const records = await this.records.present(trx, table, rows);
      await this.records.changed(trx, principal, table, records.map((record) => (deleted ? { kind: 'deleted', recordId: record.id, before: record, after: null } : { kind: 'restored', recordId: record.id, before: null, after: record })), {
        origin,
        events: records.map((record) => ({ name: deleted ? 'record.deleted' : 'record.restored', workspaceId, actorId: principal.user.id, payload: { database_id: databaseId, record, ...(origin ? { origin } : {}) } })),
      });
      const affected = new Set(rows.map((r) => r.id));
      return [...new Set(ids)].filter((id) => affected.has(id));
    }, inTrx);
  }
}
