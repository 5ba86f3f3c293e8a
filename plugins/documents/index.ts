import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { RichTextChecker } from './content-check.ts';
import { DescriptionService } from './descriptions.service.ts';
import { DocumentService } from './documents.service.ts';
import { createDocumentFileHooks, createDocumentHooks } from './hooks.ts';
import { locateDocument } from './locator.ts';
import { documentRoutes } from './routes.ts';
import { tapGdpr } from './gdpr.ts';
import { tapPacks } from './pack.ts';
import { tapWorkspaceExport } from './workspace-export.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'documents.richText': RichTextChecker;
    'documents.descriptions': DescriptionService;
    'documents.service': DocumentService;
  }
}

export default definePlugin({
  id: 'documents',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Descriptions belong to records (records), documents to spaces and folders (spaces); mentions name members (workspaces), by name (auth).
  dependsOn: { auth: '^1.0.0', workspaces: '^1.0.0', spaces: '^1.0.0', databases: '^1.0.0', records: '^1.0.0' },
  // Documents and the descriptions of sample records travel in packs when the packs plugin is on.
  // Documents and descriptions go into whole-workspace exports when the export plugin is on.
  optionalDependsOn: { gdpr: '^1.0.0', packs: '^1.0.0', export: '^1.0.0' },
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  exports: ['documents.richText', 'documents.service'],
  register(ctx) {
    if (ctx.has('gdpr')) tapGdpr(ctx);
    const writes = ctx.defineHooks('writes', createDocumentHooks());
    const files = ctx.defineHooks('files', createDocumentFileHooks());
    ctx.provide('richText', (r) => new RichTextChecker(r('workspaces.members'), r('auth.users'), files));
    ctx.provide('descriptions', (r) => new DescriptionService(r('db'), r('events'), r('records.service'), r('documents.richText'), writes));
    ctx.provide('service', (r) => new DocumentService(r('db'), r('events'), r('authz'), r('documents.richText'), writes));
    ctx.hooks.auth.locate.for('document').tapPromise('documents', (req) => locateDocument(ctx.db, req));
    ctx.routes(documentRoutes());
    if (ctx.has('packs')) {
      tapPacks(ctx.hooksOf('packs.kinds'), { documents: () => ctx.resolve('documents.service'), descriptions: () => ctx.resolve('documents.descriptions'), users: () => ctx.resolve('auth.users') });
    }
    if (ctx.has('export')) tapWorkspaceExport(ctx.hooksOf('export.workspace'), ctx.db);
    // A duplicate gets its source's description, in the duplicating transaction.
    ctx.hooksOf('records.changes').changed.tapPromise('documents', (change) => ctx.resolve('documents.descriptions').cloneForDuplicates(change));
    // Records purged from the trash take their descriptions along, in the purge's transaction.
    ctx.hooksOf('records.lifecycle').purged.tapPromise('documents', ({ trx, databaseId, recordIds }) => ctx.resolve('documents.descriptions').forgetRecords(trx, databaseId, recordIds));
  },
});
