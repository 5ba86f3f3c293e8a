import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { AttachmentService } from './attachments.service.ts';
import { AttachmentCells } from './attachment-cells.ts';
import { createAttachmentType } from './attachment-type.ts';
import { BlobRefs, DROP_JOB } from './blob-refs.ts';
import { THUMBNAIL_JOB, Thumbnails } from './thumbnails.ts';
import { AttachmentsOptionsSchema, type AttachmentsOptions } from './options.ts';
import { attachmentRoutes } from './routes.ts';
import { tapGdpr } from './gdpr.ts';
import { tapPacks } from './pack.ts';
import { tapWorkspaceExport } from './workspace-export.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'attachments.service': AttachmentService;
    'attachments.refs': BlobRefs;
    'attachments.cells': AttachmentCells;
    'attachments.thumbnails': Thumbnails;
  }
}

export default definePlugin<AttachmentsOptions>({
  id: 'attachments',
  version: '1.0.0',
  kernel: '^1.0.0',
  // The `attachment` field type (databases) on records (records); image sizes and thumbnails from the files plugin.
  dependsOn: { workspaces: '^1.0.0', databases: '^1.0.0', records: '^1.0.0', files: '^1.0.0' },
  // Files go into whole-workspace exports when the export plugin is on.
  optionalDependsOn: { gdpr: '^1.0.0', packs: '^1.0.0', export: '^1.0.0' },
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  optionsSchema: AttachmentsOptionsSchema,
  exports: ['attachments.service'],
  register(ctx) {
    ctx.provide('refs', (r) => new BlobRefs(r('blobs'), r('jobs')));
    ctx.provide('cells', (r) => new AttachmentCells(r('attachments.refs')));
    ctx.provide('thumbnails', (r) => new Thumbnails(r('db'), r('blobs'), ctx.logger));
    ctx.provide('service', (r) => new AttachmentService(r('db'), r('records.service'), r('attachments.refs'), r('jobs')));
    // Cells are written through the cell store, resolved when the first one is.
    const store = {
      check: (...args: Parameters<AttachmentCells['check']>) => ctx.resolve('attachments.cells').check(...args),
      write: (...args: Parameters<AttachmentCells['write']>) => ctx.resolve('attachments.cells').write(...args),
      duplicate: (...args: Parameters<AttachmentCells['duplicate']>) => ctx.resolve('attachments.cells').duplicate(...args),
    };
    ctx.hooksOf('databases.fieldTypes').register.tap('attachments', (registry) => registry.add(createAttachmentType(store)));
    ctx.routes(attachmentRoutes(ctx.options.maxBytes));

    ctx.job<{ key: string }>({ name: THUMBNAIL_JOB, handler: ({ key }) => ctx.resolve('attachments.thumbnails').makeAll(key) });
    ctx.job<{ keys: string[] }>({ name: DROP_JOB, handler: ({ keys }) => ctx.resolve('attachments.refs').drop(keys) });

    // Attachments go with their records for good, their database and their workspace, in the deleting transaction;
    // their bytes once it commits. Trash and restore keep them.
    const service = () => ctx.resolve('attachments.service');
    ctx.hooksOf('records.lifecycle').purged.tapPromise('attachments', ({ trx, databaseId, recordIds }) => service().forget(trx, { database_id: databaseId, record_ids: recordIds }));
    ctx.hooksOf('databases.databases').deleting.tapPromise('attachments', ({ trx, databaseId }) => service().forget(trx, { database_id: databaseId }));
    ctx.hooksOf('workspaces.lifecycle').deleting.tapPromise('attachments', ({ trx, workspaceId }) => service().forget(trx, { workspace_id: workspaceId }));

    if (ctx.has('gdpr')) tapGdpr(ctx);
    if (ctx.has('packs')) tapPacks(ctx);
    if (ctx.has('export')) tapWorkspaceExport(ctx.hooksOf('export.workspace'), service, ctx.db);
  },
});
