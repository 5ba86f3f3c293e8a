import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { PreferencesService } from './preferences.service.ts';
import { AvatarService } from './avatars.service.ts';
import { usersRoutes } from './routes.ts';

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
  migrations: fileURLToPath(new URL('./migrations', import.meta.url)),
  exports: ['users.preferences'],
  register(ctx) {
    ctx.provide('preferences', (r) => new PreferencesService(r('db')));
    ctx.provide('avatars', (r) => new AvatarService(r('auth.users'), r('blobs')));
    ctx.routes(usersRoutes());
  },
});
