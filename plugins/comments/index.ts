import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { CommentService } from './comments.service.ts';
import { createCommentHooks } from './hooks.ts';
import { commentRoutes } from './routes.ts';
import { tapGdpr } from './gdpr.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'comments.service': CommentService;
  }
}

export default definePlugin({
  id: 'comments',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Comments are on records (records), written in rich text checked by the documents plugin, by users named by auth.
  dependsOn: { auth: '^1.0.0', workspaces: '^1.0.0', databases: '^1.0.0', records: '^1.0.0', documents: '^1.0.0' },
  optionalDependsOn: { gdpr: '^1.0.0' },
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  register(ctx) {
    if (ctx.has('gdpr')) tapGdpr(ctx);
    const changes = ctx.defineHooks('changes', createCommentHooks());
    ctx.provide('service', (r) => new CommentService(r('db'), r('events'), r('records.service'), r('documents.richText'), r('auth.users'), changes));
    ctx.routes(commentRoutes());
    // Records purged from the trash take their comments along, in the purge's transaction.
    ctx.hooksOf('records.lifecycle').purged.tapPromise('comments', ({ trx, databaseId, recordIds }) => ctx.resolve('comments.service').forgetRecords(trx, databaseId, recordIds));
  },
});
