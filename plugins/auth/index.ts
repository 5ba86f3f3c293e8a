import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { AuthOptionsSchema, type AuthOptions } from './options.ts';
import { UserService } from './users.service.ts';
import { SessionService } from './sessions.service.ts';
import { SignInLimiter } from './sign-in-limiter.ts';
import { SignInService } from './sign-in.service.ts';
import { OAuthService } from './oauth.service.ts';
import { resolveProviders } from './oauth-providers.ts';
import { accountRoutes } from './routes.ts';
import { oauthRoutes } from './oauth.routes.ts';

export type { AuthOptions };

declare module '../../core/container.ts' {
  interface ServiceMap {
    'auth.users': UserService;
    'auth.sessions': SessionService;
    'auth.signIn': SignInService;
    'auth.oauth': OAuthService;
  }
}

export default definePlugin<AuthOptions>({
  id: 'auth',
  version: '1.0.0',
  kernel: '^1.0.0',
  optionsSchema: AuthOptionsSchema,
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  exports: ['auth.users', 'auth.sessions'],
  register(ctx) {
    const { sessionTtlHours, signInRateLimit, oauth } = ctx.options;
    ctx.provide('users', (r) => new UserService(r('db')));
    ctx.provide('sessions', (r) => new SessionService(r('database'), r('caches'), sessionTtlHours));
    ctx.provide('signIn', (r) => new SignInService(r('auth.users'), r('auth.sessions'), new SignInLimiter(r('db'), signInRateLimit)));
    ctx.provide('oauth', (r) => new OAuthService(r('db'), r('auth.users'), resolveProviders(oauth)));
    const sessions = () => ctx.resolve('auth.sessions');
    ctx.hooks.auth.authenticate.tapPromise('sessions', ({ token }) => sessions().authenticate(token));
    ctx.routes([...accountRoutes(), ...oauthRoutes()]);
  },
});
