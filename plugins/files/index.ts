import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { FileService } from './files.service.ts';
import { fileRoutes } from './routes.ts';
import { FilesOptions } from './schemas.ts';
import { SigningKey } from './signed-urls.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'files.service': FileService;
  }
}

export default definePlugin<FilesOptions>({
  id: 'files',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Files belong to workspaces (workspaces), uploaded by users (auth).
  dependsOn: { auth: '^1.0.0', workspaces: '^1.0.0' },
  // Documents show files as images when the documents plugin is on.
  optionalDependsOn: { documents: '^1.0.0' },
  optionsSchema: FilesOptions,
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  register(ctx) {
    const signingKey = new SigningKey(ctx.db, ctx.options.signingKey);
    ctx.provide('service', (r) => new FileService(r('db'), r('blobs'), signingKey, ctx.logger));
    const files = () => ctx.resolve('files.service');
    ctx.routes(fileRoutes(ctx.options.maxBytes));
    ctx.hooks.auth.locate.for('file').tapPromise('files', (req) => files().locate(req));
    ctx.hooksOf('workspaces.lifecycle').deleting.tapPromise('files', ({ trx, workspaceId }) => files().forgetWorkspace(trx, workspaceId));
    if (ctx.has('documents')) {
      // None of them ours: undefined lets a later tap (another keeper of files) answer.
      ctx.hooksOf('documents.files').known.tapPromise('files', async ({ trx, workspaceId, fileIds }) => {
        const known = await files().known(trx, workspaceId, fileIds);
        return known.size > 0 ? known : undefined;
      });
    }
  },
});
