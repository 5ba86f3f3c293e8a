import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { createMentionHooks } from './hooks.ts';
import { MentionService } from './mentions.service.ts';
import { mentionRoutes } from './routes.ts';
import { tapGdpr } from './gdpr.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'mentions.service': MentionService;
  }
}

export default definePlugin({
  id: 'mentions',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Mentions are written in comments (comments) and in descriptions and documents (documents), on records (records) of databases.
  dependsOn: { auth: '^1.0.0', workspaces: '^1.0.0', databases: '^1.0.0', records: '^1.0.0', documents: '^1.0.0', comments: '^1.0.0' },
  optionalDependsOn: { gdpr: '^1.0.0' },
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  register(ctx) {
    if (ctx.has('gdpr')) tapGdpr(ctx);
    const recorded = ctx.defineHooks('recorded', createMentionHooks());
    ctx.provide('service', (r) => new MentionService(r('db'), r('authz'), r('records.service'), r('auth.users'), recorded));
    ctx.routes(mentionRoutes());
    const mentions = () => ctx.resolve('mentions.service');
    // Each write's mentions are recorded in its transaction: a failed write leaves none behind.
    ctx.hooksOf('comments.changes').changed.tapPromise('mentions', (change) => mentions().onComment(change));
    const writes = ctx.hooksOf('documents.writes');
    writes.descriptionWritten.tapPromise('mentions', (w) => mentions().onDescription(w));
    writes.contentWritten.tapPromise('mentions', (w) => mentions().onContent(w));
    // A deleted document's mentions go by cascade, with it or with its space.
    ctx.hooksOf('records.lifecycle').purged.tapPromise('mentions', ({ trx, databaseId, recordIds }) => mentions().forgetRecords(trx, databaseId, recordIds));
  },
});
