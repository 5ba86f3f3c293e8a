import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { GrantSource } from './grant-source.ts';
import { GrantService } from './grants.service.ts';
import { accessRoutes } from './routes.ts';
import type { ScopeType } from './schemas.ts';

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
  // Membership must be known before grants raise it (taps run in plugin order); spaces are what grants are on.
  dependsOn: { workspaces: '^1.0.0', spaces: '^1.0.0' },
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  register(ctx) {
    ctx.provide('source', (r) => new GrantSource(r('database')));
    ctx.provide('grants', (r) => new GrantService(r('db'), r('events'), r('authz'), r('workspaces.service')));

    let source: GrantSource | undefined;
    ctx.hooks.auth.workspaceAccess.tapPromise('grants', (access, trx) => (source ??= ctx.resolve('access.source')).fill(access, trx));

    // A grant outlives neither its scope nor the grantee's membership.
    for (const scopeType of ['space', 'database'] satisfies ScopeType[]) {
      ctx.hooks.entity.afterWrite.for(scopeType).tapPromise('grants', async ({ operation, trx, principal, before }) => {
        if (operation !== 'delete' || !before) return;
        const { id, workspace_id } = before as { id: string; workspace_id: string };
        await ctx.resolve('access.grants').revokeScope(trx, principal, workspace_id, scopeType, id);
      });
    }
    ctx.hooks.entity.afterWrite.for('workspace_member').tapPromise('grants', async ({ operation, trx, principal, before }) => {
      if (operation !== 'delete' || !before) return;
      const { user_id, workspace_id } = before as { user_id: string; workspace_id: string };
      await ctx.resolve('access.grants').revokeUser(trx, principal, workspace_id, user_id);
    });

    ctx.routes(accessRoutes());
  },
});
