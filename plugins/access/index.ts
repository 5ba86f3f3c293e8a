import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { GrantSource } from './grant-source.ts';
import { GrantService } from './grants.service.ts';
import { accessRoutes } from './routes.ts';
import { tapGdpr } from './gdpr.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'access.source': GrantSource;
    'access.grants': GrantService;
  }
}

export default definePlugin({
  id: 'access',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Spaces are what grants are on (grants run in the `grants` phase of auth.workspaceAccess, after membership).
  dependsOn: { workspaces: '^1.0.0', spaces: '^1.0.0' },
  optionalDependsOn: { databases: '^1.0.0', gdpr: '^1.0.0' },
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  register(ctx) {
    // Personal data this plugin keeps is exported and erased through the gdpr plugin's hooks, when it is enabled.
    if (ctx.has('gdpr')) tapGdpr(ctx);
    ctx.provide('source', (r) => new GrantSource(r('database')));
    ctx.provide('grants', (r) => new GrantService(r('db'), r('events'), r('authz'), r('workspaces.service'), r('workspaces.members')));

    let source: GrantSource | undefined;
    ctx.hooks.auth.workspaceAccess.grants.tapPromise('grants', (access, trx) => (source ??= ctx.resolve('access.source')).fill(access, trx));

    // A grant outlives neither its scope nor the grantee's membership.
    const grants = () => ctx.resolve('access.grants');
    ctx.hooksOf('spaces.lifecycle').deleted.tapPromise('grants', ({ trx, actor, workspaceId, spaceId }) => grants().revokeScope(trx, actor, workspaceId, 'space', spaceId));
    if (ctx.has('databases')) {
      ctx.hooksOf('databases.databases').deleted.tapPromise('grants', ({ trx, actor, workspaceId, databaseId }) => grants().revokeScope(trx, actor, workspaceId, 'database', databaseId));
    }
    ctx.hooksOf('workspaces.lifecycle').memberRemoved.tapPromise('grants', async ({ trx, actor, workspaceId, userId }) => void (await grants().revokeUser(trx, actor, workspaceId, userId)));

    ctx.routes(accessRoutes());
  },
});
