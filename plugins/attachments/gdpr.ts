import type { Knex } from 'knex';
import type { PluginContext } from '../../core/plugin.ts';
import type { RecordService } from '../records/public.ts';

interface Upload {
  id: string;
  workspace_id: string;
  database_id: string;
  record_id: string;
  name: string;
  mime_type: string;
  size: string | number;
  blob_key: string;
  created_at: Date;
}

/**
 * A member's uploads. Export: each one's details and its bytes (under `attachments/` in the zip). Erasure: those no
 * live record holds any more (their record is in the trash) are deleted, bytes included once nothing else names them;
 * those a live record's cell holds stay — they are the workspace's data — with the uploader forgotten.
 */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  const scoped = (q: Knex.QueryBuilder, workspaceId: string | null | undefined) => (workspaceId ? q.where('a.workspace_id', workspaceId) : q);
  const uploads = (trx: Knex, userId: string, workspaceId: string | null | undefined) =>
    scoped(trx('attachments as a').join('attachment_blobs as b', 'b.key', 'a.blob_key').where('a.created_by', userId), workspaceId)
      .orderBy(['a.created_at', 'a.id'])
      .select('a.id', 'a.workspace_id', 'a.database_id', 'a.record_id', 'a.name', 'b.mime_type', 'b.size', 'a.blob_key', 'a.created_at') as Promise<Upload[]>;

  hooks.export.tapPromise('attachments', async (sections, { trx, userId, workspaceId }) => {
    const rows = await uploads(trx, userId, workspaceId);
    const items = rows.map(({ blob_key: _key, size, ...row }) => ({ ...row, size: Number(size) }));
    const files = rows.map((row) => ({ path: `${row.id}-${row.name}`, blobKey: row.blob_key }));
    return [...sections, { kind: 'attachments', items, files }];
  });

  hooks.erase.tapPromise('attachments', async (reports, { trx, userId, workspaceId }) => {
    const rows = await uploads(trx, userId, workspaceId);
    const held = await heldByLiveRecords(ctx.resolve('records.service'), trx, rows);
    const loose = rows.filter((r) => !held.has(r.id)).map((r) => r.id);
    if (loose.length > 0) {
      const gone = (await trx('attachments').whereIn('id', loose).delete().returning('blob_key')) as Array<{ blob_key: string }>;
      await ctx.resolve('attachments.refs').release(trx, gone.map((g) => g.blob_key));
    }
    const kept = rows.length - loose.length;
    if (kept > 0) await trx('attachments').whereIn('id', [...held]).update({ created_by: null });
    const retained = kept > 0 ? [{ what: 'files they uploaded that records still hold, no longer linked to them', reason: 'kept for the workspace', until: null }] : [];
    return [...reports, { kind: 'attachments', deleted: loose.length, pseudonymised: kept, retained }];
  });
}

/** The uploads whose record is live, database by database. */
async function heldByLiveRecords(records: RecordService, trx: Knex, rows: Upload[]): Promise<Set<string>> {
  const held = new Set<string>();
  const byDatabase = new Map<string, Upload[]>();
  for (const row of rows) byDatabase.set(row.database_id, [...(byDatabase.get(row.database_id) ?? []), row]);
  for (const [databaseId, list] of byDatabase) {
    const table = await records.open(trx, list[0].workspace_id, databaseId);
    const live = new Set((await table.lockMany(trx, [...new Set(list.map((r) => r.record_id))])).map((r) => r.id));
    for (const row of list) if (live.has(row.record_id)) held.add(row.id);
  }
  return held;
}
