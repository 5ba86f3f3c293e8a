import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { createSpaceLifecycle } from './hooks.ts';
import { SpaceLocator } from './locator.ts';
import { SpaceService } from './spaces.service.ts';
import { FolderService } from './folders.service.ts';
import { folderRoutes, spaceRoutes } from './routes.ts';
import { tapPacks } from './pack.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'spaces.locator': SpaceLocator;
    'spaces.service': SpaceService;
    'spaces.folders': FolderService;
  }
}

export default definePlugin({
  id: 'spaces',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Its tables hang off workspaces; the workspaces plugin cleans guests' `space_ids` when a space goes.
  dependsOn: { workspaces: '^1.0.0' },
  // Spaces and folders travel in packs when the packs plugin is on.
  optionalDependsOn: { packs: '^1.0.0' },
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  exports: ['spaces.service'],
  register(ctx) {
    const lifecycle = ctx.defineHooks('lifecycle', createSpaceLifecycle());
    ctx.provide('locator', (r) => new SpaceLocator(r('database')));
    ctx.provide('service', (r) => new SpaceService(r('db'), lifecycle, r('events'), r('authz'), r('workspaces.service')));
    ctx.provide('folders', (r) => new FolderService(r('db'), r('events'), r('workspaces.service')));

    let locator: SpaceLocator | undefined;
    const located = () => (locator ??= ctx.resolve('spaces.locator'));
    ctx.hooks.auth.locate.for('space').tapPromise('spaces', (req) => located().space(req));
    ctx.hooks.auth.locate.for('folder').tapPromise('spaces', (req) => located().folder(req));

    if (ctx.has('packs')) {
      tapPacks(ctx.hooksOf('packs.kinds'), { authz: () => ctx.resolve('authz'), spaces: () => ctx.resolve('spaces.service'), folders: () => ctx.resolve('spaces.folders') });
    }
    ctx.routes([...spaceRoutes(), ...folderRoutes()]);
  },
});
