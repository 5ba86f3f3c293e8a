import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { ActionRegistry, createActionHooks } from './actions.ts';
import { AutomationService, type AutomationRow } from './automations.service.ts';
import { recordActions } from './builtin-actions.ts';
import { cellTexts } from './cell-text.ts';
import { DryRunService } from './dry-run.ts';
import { emailAction } from './email-action.ts';
import { tapGdpr } from './gdpr.ts';
import { hookRoutes } from './hook-routes.ts';
import { InboundHooks } from './inbound.ts';
import { integrationActions } from './integration-actions.ts';
import { IntegrationTriggers, type IntegrationCheck } from './integration-trigger.ts';
import { notifyAction } from './notify-action.ts';
import { tapPacks } from './pack.ts';
import { RunRate } from './rate-limit.ts';
import { automationRoutes } from './routes.ts';
import { RunService, type RunJob, type RunnableAutomation } from './runs.service.ts';
import { Scheduler } from './schedule.ts';
import { AutomationsOptions } from './schemas.ts';
import { TriggerListener } from './triggers.ts';
import { webhookAction } from './webhook-action.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'automations.service': AutomationService;
    'automations.runs': RunService;
    'automations.dryRun': DryRunService;
    'automations.actions': ActionRegistry;
    'automations.triggers': TriggerListener;
    'automations.scheduler': Scheduler;
    'automations.hooks': InboundHooks;
  }
}

/** Failed attempts of a retry-safe step (a webhook) before its run fails. */
const RETRY_LIMIT = 3;

/** A job acts as the automation's creator, by id: writes and history name users by id. */
function actingAs(userId: string): UserPrincipal {
  return { kind: 'session', sessionId: '', user: { id: userId, email: '', name: '', is_instance_admin: false, avatar_key: null, avatar_updated_at: null, created_at: new Date(0) } };
}

export default definePlugin<AutomationsOptions>({
  id: 'automations',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Automations live on a database and act on its records; send_webhook posts through the webhooks plugin's guarded
  // client. A failing one is paused and its creator told, and `notify` exists, when notifications is on; `send_email`
  // exists when mail is on.
  dependsOn: { auth: '^1.0.0', workspaces: '^1.0.0', databases: '^1.0.0', records: '^1.0.0', webhooks: '^1.0.0' },
  // Packs carry automations; an erasure (gdpr) forgets who made and started them; integration_event triggers name the
  // integrations plugin's providers and connections.
  optionalDependsOn: { notifications: '^1.0.0', mail: '^1.0.0', packs: '^1.0.0', gdpr: '^1.0.0', integrations: '^1.0.0' },
  optionsSchema: AutomationsOptions,
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  // What other plugins start, resume and end runs through (a button press, an approval): see public.ts.
  exports: ['automations.service', 'automations.runs', 'automations.triggers'],
  register(ctx) {
    const options = {
      maxRunsPerMinute: ctx.options.maxRunsPerMinute ?? 600,
      maxChainDepth: ctx.options.maxChainDepth ?? 5,
      pauseAfterFailures: ctx.options.pauseAfterFailures ?? 5,
      retentionDays: ctx.options.retentionDays ?? 90,
      hookMaxBytes: ctx.options.hookMaxBytes ?? 64 * 1024,
      hookRequestsPerMinute: ctx.options.hookRequestsPerMinute ?? 60,
    };
    // Other plugins add actions by tapping `automations.actions`; the built-in ones register the same way.
    const hooks = ctx.defineHooks('actions', createActionHooks());
    hooks.register.tap('automations', (actions) => [...actions, ...recordActions(() => ctx.resolve('records.service')), webhookAction(() => ctx.resolve('webhooks.outbound'))]);
    if (ctx.has('mail')) hooks.register.tap('automations.mail', (actions) => [...actions, emailAction(() => ctx.db, () => ctx.resolve('mail.sender'))]);
    if (ctx.has('notifications')) {
      const deps = { db: () => ctx.db, authz: () => ctx.resolve('authz'), records: () => ctx.resolve('records.service'), members: () => ctx.resolve('workspaces.members'), notifications: () => ctx.resolve('notifications.service') };
      hooks.register.tap('automations.notify', (actions) => [...actions, notifyAction(deps)]);
    }
    if (ctx.has('integrations')) {
      const deps = { providers: () => ctx.resolve('integrations.providers').all(), connections: () => ctx.resolve('integrations.connections'), oauth: () => ctx.resolve('integrations.oauth') };
      hooks.register.tap('automations.integrations', (actions) => [...actions, ...integrationActions(deps)]);
    }
    ctx.provide('actions', () => new ActionRegistry(hooks));

    const paused = async (automation: { id: string; workspace_id: string; database_id: string; name: string; created_by: string | null }) => {
      ctx.resolve('automations.triggers').forget(automation.database_id);
      ctx.logger.warn({ automation: automation.id }, 'automation paused after repeated failures');
      if (!ctx.has('notifications') || !automation.created_by) return;
      await ctx.resolve('notifications.service').notify(ctx.db, [
        {
          workspaceId: automation.workspace_id,
          userId: automation.created_by,
          type: 'automation',
          actorId: null,
          subject: { type: 'automation', id: automation.id, title: automation.name },
          data: { reason: `Paused after ${options.pauseAfterFailures} failed runs in a row.` },
        },
      ]);
    };
    const cells = cellTexts(() => ctx.resolve('databases.fields'), () => ctx.resolve('databases.fieldTypes'));
    const checkIntegration: IntegrationCheck | undefined = ctx.has('integrations')
      ? async (db, workspaceId, trigger, errors) => {
          if (!ctx.resolve('integrations.providers').find(trigger.provider)) errors.push({ pointer: '/trigger/provider', detail: `"${trigger.provider}" is not a provider of this instance (GET /integrations lists them).` });
          else if (trigger.connection_id && !(await ctx.resolve('integrations.connections').exists(workspaceId, trigger.connection_id, trigger.provider, db))) {
            errors.push({ pointer: '/trigger/connection_id', detail: `No ${trigger.provider} connection with this id in the workspace.` });
          }
        }
      : undefined;
    ctx.provide('service', (r) => new AutomationService({ db: r('db'), authz: r('authz'), records: () => r('records.service'), query: () => r('records.query'), actions: r('automations.actions'), changed: (databaseId) => r('automations.triggers').forget(databaseId), checkIntegration }));
    ctx.provide('runs', (r) => new RunService({ db: r('db'), actions: r('automations.actions'), send: async (job, trx) => void (await ctx.sendJob('run', job, trx)), cache: r('caches').create<RunnableAutomation | null>('automations.run', { topics: { automations: 'group' } }), rate: new RunRate(r('db'), options.maxRunsPerMinute), failed: paused, pauseAfterFailures: options.pauseAfterFailures, retryLimit: RETRY_LIMIT, cells, usage: ctx.hooks.usage }));
    ctx.hooks.usage.measure.for('automation_runs').tapPromise('automations', ({ db, workspaceId, since }) => ctx.resolve('automations.runs').startedSince(db, workspaceId, since));
    ctx.provide('dryRun', (r) => new DryRunService({ db: r('db'), automations: () => r('automations.service'), records: () => r('records.service'), actions: r('automations.actions'), cells }));
    ctx.provide('triggers', (r) => new TriggerListener({ cache: r('caches').create<AutomationRow[]>('automations.heard', { topics: { automations: 'group' } }), records: () => r('records.service'), runs: () => r('automations.runs'), maxChainDepth: options.maxChainDepth }));
    ctx.provide('scheduler', (r) => new Scheduler({ db: r('db'), runs: () => r('automations.runs'), triggers: () => r('automations.triggers') }));
    ctx.provide('hooks', (r) => new InboundHooks({ db: r('db'), automations: () => r('automations.service'), runs: () => r('automations.runs'), triggers: () => r('automations.triggers'), perMinute: options.hookRequestsPerMinute }));
    ctx.hooksOf('records.changes').changed.tapPromise('automations', (e) => ctx.resolve('automations.triggers').changed(e));
    if (ctx.has('integrations')) {
      const integrationTriggers = new IntegrationTriggers(() => ctx.resolve('automations.runs'), (a, t) => ctx.resolve('automations.triggers').refusal(a, t));
      ctx.tapFanOut({ name: 'integration-triggers', events: ['integration.*'], handler: (trx, events) => integrationTriggers.told(trx, events) });
    }

    ctx.hooks.auth.locate.for('automation').tapPromise('automations', async (req) => {
      const row = await (req.trx ?? ctx.db)('automations').where({ workspace_id: req.workspaceId, id: req.id }).first('database_id', 'created_by');
      if (!row) return undefined;
      const database = await ctx.resolve('authz').locate('database', { workspaceId: req.workspaceId, id: row.database_id, trx: req.trx });
      return database ? { path: database.path, createdBy: row.created_by } : undefined;
    });
    ctx.hooks.auth.locate.for('automation_run').tapPromise('automations', async (req) => {
      const run = await (req.trx ?? ctx.db)('automation_runs').where({ workspace_id: req.workspaceId, id: req.id }).first('automation_id');
      return run ? ((await ctx.resolve('authz').locate('automation', { workspaceId: req.workspaceId, id: run.automation_id, trx: req.trx })) ?? undefined) : undefined;
    });

    ctx.job({
      name: 'run',
      concurrency: 16,
      retryLimit: RETRY_LIMIT,
      retryDelaySeconds: 2,
      handler: async (data: RunJob, job) => {
        await ctx.resolve('automations.runs').work(data, job.retryCount, actingAs);
        // pg-boss waits out the polling interval after a batch unless woken: a backlog of runs is worked without pause.
        ctx.resolve('jobs').notifyWorker('automations.run');
      },
    });
    // pg-boss schedules by the minute (it uses cron-parser too): the finest a cron expression can ask for.
    ctx.job({
      name: 'schedule',
      schedule: '* * * * *',
      handler: async () => {
        const started = await ctx.resolve('automations.scheduler').tick(new Date());
        if (started > 0) ctx.logger.debug({ started }, 'scheduled automation runs started');
      },
    });
    ctx.job({
      name: 'retention-purge',
      schedule: '23 4 * * *',
      handler: async () => {
        const purged = await ctx.resolve('automations.runs').purge(options.retentionDays);
        if (purged > 0) ctx.logger.info({ purged }, 'automation runs older than the retention period deleted');
        await ctx.resolve('automations.hooks').seen.purge();
      },
    });
    if (ctx.has('gdpr')) tapGdpr(ctx);
    if (ctx.has('packs')) {
      tapPacks(ctx.hooksOf('packs.kinds'), {
        automations: () => ctx.resolve('automations.service'),
        records: () => ctx.resolve('records.service'),
        actions: () => ctx.resolve('automations.actions'),
        ...(ctx.has('integrations') ? { connections: () => ctx.resolve('integrations.connections') } : {}),
      });
    }
    ctx.routes(automationRoutes());
    ctx.routes(hookRoutes(options.hookMaxBytes));
  },
});
