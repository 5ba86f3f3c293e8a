import { randomUUID } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import { afterRollback } from '../../core/db.ts';
import { invalidField, limitExceeded } from '../../core/errors.ts';
import type { PluginContext } from '../../core/plugin.ts';
import { Type, type Static } from '../../core/schema.ts';
import { safeFileName } from '../../core/streamed-uploads.ts';
import { Ref } from '../packs/public.ts';

/**
 * The bytes of every attachment a pack carries, together: 3 MiB, which base64 makes 4 MiB, so that a pack holding them
 * stays under the packs plugin's default `maxBytes` (5 MiB) and can be installed again.
 */
export const MAX_PACK_ATTACHMENT_BYTES = 3 * 1024 * 1024;

/** An attachment of a sample record: its record and database by ref, its field by api_name, its bytes in base64. */
export const AttachmentResource = Type.Object(
  {
    ref: Ref,
    database: Ref,
    record: Ref,
    field: Type.String({ minLength: 1, maxLength: 200 }),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    data: Type.String({ maxLength: Math.ceil(MAX_PACK_ATTACHMENT_BYTES / 3) * 4, description: 'The bytes, base64; the type is read from them again at install.' }),
  },
  { additionalProperties: false },
);
type AttachmentResource = Static<typeof AttachmentResource>;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The attachments plugin's part in packs: `attachment`, with the sample records (exported when they are, bytes
 * included, MAX_PACK_ATTACHMENT_BYTES at most in one pack), installed by appending each to its record's cell.
 */
export function tapPacks(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('packs.kinds');
  const records = () => ctx.resolve('records.service');
  hooks.kinds.tap('attachments', (kinds) => [...kinds, { kind: 'attachment', plugin: 'attachments', after: ['record', 'field'], schema: AttachmentResource, part: true }]);

  hooks.export.for('attachment').tapPromise('attachments', async (resources, { trx, refs }) => {
    const recordIds = refs.ids('record');
    if (recordIds.length === 0) return resources;
    const rows = (await trx('attachments as a')
      .join('attachment_blobs as b', 'b.key', 'a.blob_key')
      .whereIn('a.database_id', refs.ids('database'))
      .whereIn('a.record_id', recordIds)
      .whereNotNull('a.position')
      .orderBy(['a.database_id', 'a.record_id', 'a.field_id', 'a.position'])
      .select('a.id', 'a.database_id', 'a.record_id', 'a.field_id', 'a.workspace_id', 'a.name', 'a.blob_key', 'b.size')) as Array<{ id: string; database_id: string; record_id: string; field_id: string; workspace_id: string; name: string; blob_key: string; size: string | number }>;
    const total = rows.reduce((sum, r) => sum + Number(r.size), 0);
    if (total > MAX_PACK_ATTACHMENT_BYTES) {
      throw limitExceeded(`The sample records' attachments hold ${total} bytes; a pack carries at most ${MAX_PACK_ATTACHMENT_BYTES}. Export without include_records, or fewer databases.`, { limit: 'pack_attachment_bytes' });
    }
    const out = [...resources];
    for (const row of rows) {
      const table = await records().open(trx, row.workspace_id, row.database_id);
      const field = table.field(row.field_id);
      const bytes = field && (await ctx.blobs.read(row.blob_key));
      if (!field || !bytes) continue;
      out.push({ ref: refs.ref('attachment', row.id), database: refs.find('database', row.database_id)!, record: refs.find('record', row.record_id)!, field: field.api_name, name: row.name, data: bytes.toString('base64') });
    }
    return out;
  });

  hooks.install.for('attachment').tapPromise('attachments', async (req) => {
    const resource = req.resource as AttachmentResource;
    const databaseId = req.refs.id('database', resource.database, '/database');
    const recordId = req.refs.id('record', resource.record, '/record');
    const table = await records().open(req.trx, req.workspaceId, databaseId);
    const field = table.field(resource.field);
    if (!field || field.type !== 'attachment') throw invalidField('/field', `No attachment field "${resource.field}" in this database.`);
    if (!BASE64.test(resource.data) || resource.data.length % 4 !== 0) throw invalidField('/data', 'Must be the bytes in base64.');
    const bytes = Buffer.from(resource.data, 'base64');
    const detected = await fileTypeFromBuffer(bytes.subarray(0, 64 * 1024));
    const key = `attachments/${randomUUID()}`;
    await ctx.blobs.put(key, bytes);
    afterRollback(req.trx, () => void ctx.blobs.delete(key).catch((err: unknown) => ctx.logger.warn({ err, key }, 'bytes of a rolled-back pack install left behind')));
    const attachment = await ctx.resolve('attachments.service').attach(req.actor, { workspaceId: req.workspaceId, databaseId, recordId }, field.api_name, {
      key,
      name: safeFileName(resource.name),
      size: bytes.length,
      head: bytes.subarray(0, 64 * 1024),
      mime: detected?.mime,
    }, req.trx);
    return { id: attachment.id, action: 'create', containers: [{ kind: 'record', ref: resource.record }] };
  });

  hooks.stamp.for('attachment').tapPromise('attachments', async (_stamp, { db, id }) => {
    const row = (await db('attachments').where({ id }).whereNotNull('position').first('blob_key', 'position', 'name')) as { blob_key: string; position: number; name: string } | undefined;
    return row ? `${row.blob_key}|${row.position}|${row.name}` : null;
  });
}
