import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { imagesOf } from '../documents/public.ts';
import { FileService } from './files.service.ts';
import { tapGdpr } from './gdpr.ts';
import { tapPacks } from './pack.ts';
import { fileRoutes } from './routes.ts';
import { FilesOptions } from './schemas.ts';
import { SigningKey } from './signed-urls.ts';
import { FileUses } from './uses.service.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'files.service': FileService;
    'files.uses': FileUses;
  }
}

export default definePlugin<FilesOptions>({
  id: 'files',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Files belong to workspaces (workspaces), uploaded by users (auth).
  dependsOn: { auth: '^1.0.0', workspaces: '^1.0.0' },
  // Documents show files as images; which ones show which is kept from their writes, and forgotten with the records
  // (records) and databases (databases) descriptions belong to. An erasure (gdpr) keeps the images still shown; packs
  // take the images their documents show along.
  optionalDependsOn: { documents: '^1.0.0', records: '^1.0.0', databases: '^1.0.0', gdpr: '^1.0.0', packs: '^1.0.0' },
  optionsSchema: FilesOptions,
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  register(ctx) {
    const signingKey = new SigningKey(ctx.db, ctx.options.signingKey);
    ctx.provide('service', (r) => new FileService(r('db'), r('blobs'), signingKey, ctx.logger, ctx.hooks.usage));
    ctx.hooks.usage.measure.for('storage_bytes').tapPromise('files', ({ db, workspaceId }) => ctx.resolve('files.service').storedBytes(db, workspaceId));
    ctx.provide('uses', () => new FileUses());
    const files = () => ctx.resolve('files.service');
    const uses = () => ctx.resolve('files.uses');
    ctx.routes(fileRoutes(ctx.options.maxBytes));
    ctx.hooks.auth.locate.for('file').tapPromise('files', (req) => files().locate(req));
    ctx.hooksOf('workspaces.lifecycle').deleting.tapPromise('files', ({ trx, workspaceId }) => files().forgetWorkspace(trx, workspaceId));
    if (ctx.has('gdpr')) tapGdpr(ctx, { files, uses });
    if (ctx.has('documents')) {
      // None of them ours: undefined lets a later tap (another keeper of files) answer.
      ctx.hooksOf('documents.files').known.tapPromise('files', async ({ trx, workspaceId, fileIds }) => {
        const known = await files().known(trx, workspaceId, fileIds);
        return known.size > 0 ? known : undefined;
      });
      const writes = ctx.hooksOf('documents.writes');
      writes.contentWritten.tapPromise('files', ({ trx, workspaceId, documentId, spaceId, content }) => uses().record(trx, workspaceId, { kind: 'document', id: documentId, spaceId }, imagesOf(content)));
      writes.descriptionWritten.tapPromise('files', ({ trx, workspaceId, databaseId, recordId, after }) =>
        uses().record(trx, workspaceId, { kind: 'description', id: recordId, databaseId }, imagesOf(after)),
      );
      writes.documentDeleted.tapPromise('files', async ({ trx, documentId }) => files().eraseUnshownPackFiles(trx, await uses().forget(trx, 'document', [documentId])));
    }
    if (ctx.has('packs')) tapPacks(ctx.hooksOf('packs.kinds'), { files, uses, maxBytes: ctx.options.maxBytes, packMaxBytes: ctx.options.packMaxBytes });
    if (ctx.has('records')) {
      ctx.hooksOf('records.lifecycle').purged.tapPromise('files', async ({ trx, recordIds }) => files().eraseUnshownPackFiles(trx, await uses().forget(trx, 'description', recordIds)));
    }
    if (ctx.has('databases')) {
      ctx.hooksOf('databases.databases').deleting.tapPromise('files', async ({ trx, databaseId }) => files().eraseUnshownPackFiles(trx, await uses().forgetDatabase(trx, databaseId)));
    }
  },
});
