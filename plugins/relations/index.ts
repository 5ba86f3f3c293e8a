import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { AutoLinker } from './auto-link.ts';
import { AutoLinkRuleService } from './auto-link-rules.service.ts';
import { DriftService } from './drift.service.ts';
import { createLinkType } from './link-type.ts';
import { createCountType, createLookupType, createRollupType } from './lookup-types.ts';
import { LinkService } from './links.service.ts';
import { RelationService } from './relations.service.ts';
import { relationRoutes } from './routes.ts';
import { tapPacks } from './pack.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'relations.service': RelationService;
    'relations.links': LinkService;
    'relations.autoLinkRules': AutoLinkRuleService;
    'relations.drift': DriftService;
  }
}

export default definePlugin({
  id: 'relations',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { databases: '^1.0.0', records: '^1.0.0', workspaces: '^1.0.0' },
  // Relations, auto-link rules and the fields reading through links travel in packs when the packs plugin is on.
  optionalDependsOn: { packs: '^1.0.0' },
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  exports: ['relations.service'],
  register(ctx) {
    // Link cells are written through the link service, resolved when the first one is.
    const store = {
      check: (...args: Parameters<LinkService['check']>) => ctx.resolve('relations.links').check(...args),
      write: (...args: Parameters<LinkService['write']>) => ctx.resolve('relations.links').write(...args),
      duplicate: (...args: Parameters<LinkService['duplicate']>) => ctx.resolve('relations.links').duplicate(...args),
    };
    ctx.hooksOf('databases.fieldTypes').register.tap('relations', (registry) => {
      registry.add(createLinkType(store, new AutoLinker(ctx.resolve('events'), registry, () => ctx.resolve('records.service'))));
      registry.add(createLookupType(registry));
      registry.add(createRollupType(registry));
      registry.add(createCountType());
    });
    ctx.provide('service', (r) => new RelationService(r('db'), r('events'), r('authz'), r('workspaces.service'), r('databases.tableDrops'), r('databases.fieldLimits'), r('databases.managedFields')));
    ctx.provide('links', (r) => new LinkService(r('db'), r('authz'), r('records.service')));
    ctx.provide('autoLinkRules', (r) => new AutoLinkRuleService(r('db'), r('events'), r('relations.service'), r('workspaces.service'), r('databases.fieldTypes'), r('databases.managedFields')));
    ctx.provide('drift', (r) => new DriftService(r('db'), r('events'), r('authz'), r('relations.service'), r('records.service'), r('databases.managedFields')));
    ctx.routes(relationRoutes());
    // Before a database's row goes: its relations, the link fields in other databases and the junction tables go too.
    if (ctx.has('packs')) {
      tapPacks(ctx.hooksOf('packs.kinds'), {
        relations: () => ctx.resolve('relations.service'),
        rules: () => ctx.resolve('relations.autoLinkRules'),
        fields: () => ctx.resolve('databases.fields'),
        managed: () => ctx.resolve('databases.managedFields'),
      });
    }
    ctx.hooksOf('databases.databases').deleting.tapPromise('relations', ({ trx, databaseId }) => ctx.resolve('relations.service').forgetDatabase(trx, databaseId));
  },
});
