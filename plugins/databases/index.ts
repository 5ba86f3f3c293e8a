import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { createDatabaseHooks, createFieldTypeHooks } from './hooks.ts';
import { FieldTypeRegistry } from './field-types/registry.ts';
import { BUILTIN_FIELD_TYPES } from './field-types/builtins.ts';
import { DatabaseLocator } from './locator.ts';
import { HeldDatabases } from './held-databases.ts';
import { DatabaseService } from './databases.service.ts';
import { databaseRoutes } from './routes.ts';
import { FieldService } from './fields.service.ts';
import { fieldRoutes } from './fields.routes.ts';
import { OptionService } from './options.service.ts';
import { optionRoutes } from './options.routes.ts';
import { ConvertService } from './convert.service.ts';
import { DatabasesOptionsSchema, type DatabasesOptions } from './options.ts';
import { SYNC_JOB, ViewIndexService } from './view-indexes.ts';
import { DROP_JOB, TableDrops } from './table-drops.ts';
import { FieldLimits } from './field-limits.ts';
import { ManagedFields } from './managed-fields.ts';
import { TableCatalog } from './table-catalog.ts';
import { FieldSight } from './field-sight.ts';
import { tapPacks } from './pack.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'databases.fieldTypes': FieldTypeRegistry;
    'databases.locator': DatabaseLocator;
    'databases.service': DatabaseService;
    'databases.fields': FieldService;
    'databases.options': OptionService;
    'databases.convert': ConvertService;
    'databases.viewIndexes': ViewIndexService;
    'databases.tableDrops': TableDrops;
    'databases.fieldLimits': FieldLimits;
    'databases.managedFields': ManagedFields;
    'databases.catalog': TableCatalog;
    'databases.fieldSight': FieldSight;
  }
}

export default definePlugin<DatabasesOptions>({
  id: 'databases',
  version: '1.0.0',
  kernel: '^1.0.0',
  // People cells (user, created_by, updated_by) sort by the account's name, which auth's SQL reads.
  dependsOn: { auth: '^1.0.0', workspaces: '^1.0.0', spaces: '^1.0.0' },
  // Databases, fields and select options travel in packs when the packs plugin is on.
  optionalDependsOn: { packs: '^1.0.0' },
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  optionsSchema: DatabasesOptionsSchema,
  exports: ['databases.fieldTypes', 'databases.service', 'databases.fields', 'databases.viewIndexes', 'databases.tableDrops', 'databases.fieldLimits', 'databases.managedFields', 'databases.catalog', 'databases.fieldSight'],
  register(ctx) {
    const types = new FieldTypeRegistry();
    for (const type of BUILTIN_FIELD_TYPES) types.add(type);
    // Other plugins (relations, formulas, attachments) add their types here, at start-up.
    const hooks = ctx.defineHooks('fieldTypes', createFieldTypeHooks());
    const databaseHooks = ctx.defineHooks('databases', createDatabaseHooks());
    ctx.provide('fieldTypes', () => types);
    const held = new HeldDatabases();
    ctx.provide('locator', (r) => new DatabaseLocator(r('database'), r('caches'), held));
    ctx.provide('tableDrops', (r) => new TableDrops(r('db'), r('jobs')));
    ctx.provide('service', (r) => new DatabaseService(r('db'), r('events'), r('authz'), r('workspaces.service'), types, r('databases.tableDrops'), databaseHooks));
    ctx.provide('fieldLimits', () => new FieldLimits(ctx.options.maxFields));
    ctx.provide('managedFields', () => new ManagedFields(types));
    ctx.provide('catalog', (r) => new TableCatalog(r('database'), held));
    ctx.provide('fieldSight', (r) => new FieldSight(r('authz'), types));
    ctx.provide('fields', (r) => new FieldService(r('db'), r('events'), r('workspaces.service'), types, r('databases.fieldLimits'), r('authz')));
    ctx.provide('options', (r) => new OptionService(r('db'), r('events'), r('workspaces.service'), types));
    ctx.provide('convert', (r) => new ConvertService(r('db'), r('events'), r('workspaces.service'), types));
    ctx.provide('viewIndexes', (r) => new ViewIndexService(r('database'), r('jobs'), types, ctx.options.maxViewIndexes, databaseHooks));
    // Enqueued (ViewIndexService.schedule) by whatever changes a view's filter or sorts: the views plugin.
    ctx.job<{ database_id: string }>({
      name: SYNC_JOB,
      handler: async ({ database_id }) => {
        const { created, dropped } = await ctx.resolve('databases.viewIndexes').sync(database_id);
        if (created.length || dropped.length) ctx.logger.info({ database_id, created, dropped }, 'view indexes synchronised');
      },
    });
    // Enqueued by TableDrops.later in the transaction that forgets a table (a database's, a relation's);
    // hourly too, for a queue left behind by a job that ran out of retries.
    ctx.job({
      name: DROP_JOB,
      schedule: '41 * * * *',
      handler: async () => {
        const dropped = await ctx.resolve('databases.tableDrops').dropQueued();
        if (dropped > 0) ctx.logger.debug({ dropped }, 'tables of deleted databases and relations dropped');
      },
    });

    let locator: DatabaseLocator | undefined;
    ctx.hooks.auth.locate.for('database').tapPromise('databases', (req) => (locator ??= ctx.resolve('databases.locator')).locate(req));

    // A database's table is not reached by foreign keys: drop it while the rows still say which it is.
    ctx.hooksOf('spaces.lifecycle').deleting.tapPromise('databases', ({ trx, workspaceId, spaceId, actor }) =>
      ctx.resolve('databases.service').dropAllIn(trx, actor, { workspace_id: workspaceId, space_id: spaceId }),
    );
    ctx.hooksOf('workspaces.lifecycle').deleting.tapPromise('databases', ({ trx, workspaceId, actor }) =>
      ctx.resolve('databases.service').dropAllIn(trx, actor, { workspace_id: workspaceId }),
    );

    if (ctx.has('packs')) {
      tapPacks(ctx.hooksOf('packs.kinds'), {
        authz: () => ctx.resolve('authz'),
        databases: () => ctx.resolve('databases.service'),
        fields: () => ctx.resolve('databases.fields'),
        options: () => ctx.resolve('databases.options'),
        convert: () => ctx.resolve('databases.convert'),
        types,
      });
    }

    ctx.hooks.lifecycle.boot.tap('databases', () => hooks.register.call(types));
    ctx.routes([...databaseRoutes(), ...fieldRoutes(types), ...optionRoutes()]);
  },
});
