import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { PreferencesService } from './preferences.service.ts';
import { AvatarService } from './avatars.service.ts';
import { usersRoutes } from './routes.ts';
import { tapGdpr } from './gdpr.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'users.preferences': PreferencesService;
    'users.avatars': AvatarService;
  }
}

export default definePlugin({
  id: 'users',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { auth: '^1.0.0' },
  // Avatars are served to people who share a workspace with their owner; without workspaces, to the owner and admins.
  optionalDependsOn: { gdpr: '^1.0.0', workspaces: '^1.0.0' },
  migrations: fileURLToPath(new URL('./migrations', import.meta.url)),
  exports: ['users.preferences'],
  register(ctx) {
    // Personal data this plugin keeps is exported and erased through the gdpr plugin's hooks, when it is enabled.
    if (ctx.has('gdpr')) tapGdpr(ctx);
    ctx.provide('preferences', (r) => new PreferencesService(r('db')));
    const sharesWorkspace = ctx.has('workspaces') ? (a: string, b: string) => ctx.resolve('workspaces.members').share(a, b) : async () => false;
    ctx.provide('avatars', (r) => new AvatarService(r('auth.users'), r('blobs'), sharesWorkspace));
    ctx.routes(usersRoutes());
  },
});
