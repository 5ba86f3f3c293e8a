import { definePlugin } from '../../core/plugin.ts';
import { Type, type Static } from '../../core/schema.ts';
import { UserService } from './users.service.ts';
import { SessionService } from './sessions.service.ts';
import { authRoutes } from './routes.ts';

const Options = Type.Object(
  {
    sessionTtlHours: Type.Integer({ minimum: 1, default: 24 * 30 }),
  },
  { additionalProperties: false, default: {} },
);
export type AuthOptions = Static<typeof Options>;

declare module '../../core/container.ts' {
  interface ServiceMap {
    'auth.users': UserService;
    'auth.sessions': SessionService;
  }
}

export default definePlugin<AuthOptions>({
  id: 'auth',
  version: '1.0.0',
  kernel: '^1.0.0',
  optionsSchema: Options,
  exports: ['auth.users', 'auth.sessions'],
  register(ctx) {
    ctx.provide('users', (r) => new UserService(r('db')));
    ctx.provide('sessions', (r) => new SessionService(r('db'), ctx.options.sessionTtlHours));
    const sessions = () => ctx.resolve('auth.sessions');
    ctx.hooks.auth.authenticate.tapPromise('sessions', ({ token }) => sessions().authenticate(token));
    ctx.routes(authRoutes());
  },
});
