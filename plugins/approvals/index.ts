import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { requestApproval } from './action.ts';
import { ApprovalService } from './approvals.service.ts';
import { tapGdpr } from './gdpr.ts';
import { approvalRoutes } from './routes.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'approvals.service': ApprovalService;
  }
}

/**
 * Approvals: the `request_approval` automation action pauses its run until one of the named members approves
 * (the run goes on) or rejects (it fails), or the approval expires (it fails).
 */
export default definePlugin({
  id: 'approvals',
  version: '1.0.0',
  kernel: '^1.0.0',
  // The action joins the automations plugin's registry, and resumes or ends runs through its `automations.runs` seam.
  dependsOn: { auth: '^1.0.0', workspaces: '^1.0.0', databases: '^1.0.0', automations: '^1.0.0' },
  optionalDependsOn: { notifications: '^1.0.0', gdpr: '^1.0.0' },
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  exports: ['approvals.service'],
  register(ctx) {
    const notifications = ctx.has('notifications');
    ctx.provide('service', (r) => new ApprovalService({ db: r('db'), authz: r('authz'), runs: () => r('automations.runs'), notifications: () => (notifications ? r('notifications.service') : undefined) }));
    ctx.hooksOf('automations.actions').register.tap('approvals', (actions) => [...actions, requestApproval(() => ctx.resolve('approvals.service'))]);
    if (ctx.has('gdpr')) tapGdpr(ctx);

    // An approval sits where its database does: whoever cannot read the database does not learn it exists.
    ctx.hooks.auth.locate.for('approval').tapPromise('approvals', async (req) => {
      const row = await (req.trx ?? ctx.db)('approvals').where({ workspace_id: req.workspaceId, id: req.id }).first('database_id');
      return row ? ((await ctx.resolve('authz').locate('database', { workspaceId: req.workspaceId, id: row.database_id, trx: req.trx })) ?? undefined) : undefined;
    });

    // Every minute: pending approvals past their time expire and their runs fail. The state is in the table, so a
    // restart (or a minute missed) only delays it.
    ctx.job({
      name: 'expire',
      schedule: '* * * * *',
      handler: async () => {
        const expired = await ctx.resolve('approvals.service').expireDue();
        if (expired > 0) ctx.logger.info({ expired }, 'approvals expired');
      },
    });
    ctx.routes(approvalRoutes());
  },
});
