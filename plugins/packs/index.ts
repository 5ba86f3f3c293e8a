import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { createPackHooks, createTemplateHooks } from './hooks.ts';
import { KindCatalogue } from './kind-catalogue.ts';
import { ExportService } from './export.service.ts';
import { InstallService } from './install.service.ts';
import { LedgerService } from './ledger.service.ts';
import { packRoutes } from './routes.ts';
import { catalogueRoutes } from './catalogue.routes.ts';
import { TemplateService } from './templates.service.ts';
import { MarketplaceService } from './marketplace.service.ts';
import { tapGdpr } from './gdpr.ts';
import { PacksOptionsSchema, type PacksOptions } from './options.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'packs.kinds': KindCatalogue;
    'packs.export': ExportService;
    'packs.install': InstallService;
    'packs.ledger': LedgerService;
    'packs.templates': TemplateService;
    'packs.marketplace': MarketplaceService;
  }
}

export default definePlugin<PacksOptions>({
  id: 'packs',
  version: '1.0.0',
  kernel: '^1.0.0',
  // The ledger and the marketplace hang off workspaces; a publisher is shown by its workspace's name.
  dependsOn: { workspaces: '^1.0.0' },
  // Who installed or published a pack is exported and erased through the gdpr plugin's hooks when it is on.
  optionalDependsOn: { gdpr: '^1.0.0' },
  optionsSchema: PacksOptionsSchema,
  migrations: fileURLToPath(new URL('./migrations', import.meta.url)),
  register(ctx) {
    if (ctx.has('gdpr')) tapGdpr(ctx);
    // Owners of kinds tap `packs.kinds` (spaces, databases, views, relations, records…); plugins shipping starter packs tap `packs.templates`.
    const hooks = ctx.defineHooks('kinds', createPackHooks());
    const templates = ctx.defineHooks('templates', createTemplateHooks());
    ctx.provide('kinds', () => new KindCatalogue(hooks));
    ctx.provide('ledger', (r) => new LedgerService(r('db'), r('events'), hooks, r('packs.kinds')));
    ctx.provide('export', (r) => new ExportService(r('db'), r('host'), hooks, r('packs.kinds')));
    ctx.provide('install', (r) => new InstallService(r('db'), r('events'), r('host'), r('authz'), hooks, r('packs.kinds'), r('packs.ledger'), ctx.options.maxResources));
    ctx.provide('templates', (r) => new TemplateService(templates, r('packs.kinds'), r('host'), ctx.logger, ctx.options.maxResources));
    ctx.provide('marketplace', (r) => new MarketplaceService(r('db'), r('events'), r('host'), r('packs.kinds'), r('workspaces.service'), ctx.options.maxResources));
    // Declared kinds are checked (duplicates, cycles) at start-up, not at the first install.
    ctx.hooks.lifecycle.ready.tap('packs', () => void ctx.resolve('packs.kinds').all());
    ctx.routes([...packRoutes(ctx.options.maxBytes), ...catalogueRoutes(ctx.options.maxBytes)]);
  },
});
