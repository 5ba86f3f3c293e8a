import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { AuthOptionsSchema, type AuthOptions } from './options.ts';
import { UserService } from './users.service.ts';
import { SessionService } from './sessions.service.ts';
import { SignInLimiter } from './sign-in-limiter.ts';
import { SignInService } from './sign-in.service.ts';
import { OAuthService } from './oauth.service.ts';
import { PasswordService } from './passwords.service.ts';
import { RateLimiter } from '../../core/rate-limiter.ts';
import { ipKey } from './rate-keys.ts';
import { createSignUpHooks } from './hooks.ts';
import { resolveProviders } from './oauth-providers.ts';
import { accountRoutes } from './routes.ts';
import { oauthRoutes } from './oauth.routes.ts';
import { tapGdpr } from './gdpr.ts';
import { PasswordHasher } from './password-hasher.ts';

export type { AuthOptions };
export type { SignUpCheck, SignUpHooks } from './hooks.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'auth.users': UserService;
    'auth.sessions': SessionService;
    'auth.signIn': SignInService;
    'auth.signInLimiter': SignInLimiter;
    'auth.rateLimiter': RateLimiter;
    'auth.passwords': PasswordService;
    'auth.oauth': OAuthService;
  }
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export default definePlugin<AuthOptions>({
  id: 'auth',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Password resets are mailed; without mail there are none (503), the rest works.
  optionalDependsOn: { mail: '^1.0.0', gdpr: '^1.0.0' },
  optionsSchema: AuthOptionsSchema,
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  tables: ['users', 'sessions'],
  exports: ['auth.users', 'auth.sessions'],
  register(ctx) {
    // Personal data this plugin keeps is exported and erased through the gdpr plugin's hooks, when it is enabled.
    if (ctx.has('gdpr')) tapGdpr(ctx);
    const { sessionTtlHours, signInRateLimit, signUpRateLimit, oauth } = ctx.options;
    const signUpHooks = ctx.defineHooks('signUp', createSignUpHooks());
    ctx.provide('users', (r) => new UserService(r('database'), ctx.options.signUp, signUpHooks, new PasswordHasher(ctx.options.passwordHashing)));
    ctx.provide('sessions', (r) => new SessionService(r('database'), r('caches'), sessionTtlHours));
    ctx.provide('signInLimiter', (r) => new SignInLimiter(r('db'), signInRateLimit));
    ctx.provide('rateLimiter', (r) => new RateLimiter(r('db'), 'auth_rate_counters'));
    ctx.provide('signIn', (r) => new SignInService(r('auth.users'), r('auth.sessions'), r('auth.signInLimiter')));
    ctx.provide('oauth', (r) => new OAuthService(r('db'), r('auth.users'), resolveProviders(oauth)));
    ctx.provide(
      'passwords',
      (r) =>
        new PasswordService(r('db'), r('auth.users'), r('auth.sessions'), r('auth.signInLimiter'), r('auth.rateLimiter'), () => (ctx.has('mail') ? ctx.resolve('mail.sender') : null), ctx.options),
    );
    const sessions = () => ctx.resolve('auth.sessions');
    ctx.hooks.auth.authenticate.tapPromise('sessions', ({ token }) => sessions().authenticate(token));
    ctx.routes([
      ...accountRoutes({
        config: ctx.config,
        limitSignUp: (ip) => ctx.resolve('auth.rateLimiter').hit([{ key: ipKey('sign-up', ip), max: signUpRateLimit.maxPerIp }], signUpRateLimit.windowMinutes),
      }),
      ...oauthRoutes(),
    ]);
  },
  async boot(ctx) {
    const users = ctx.resolve('auth.users');
    const { admin, signUp } = ctx.options;
    if (admin) {
      const { user, created } = await users.bootstrapAdmin(admin);
      if (created) ctx.logger.info({ email: user.email }, 'created the instance admin from ADMIN_EMAIL');
      else if (!user.is_instance_admin) ctx.logger.warn({ email: user.email }, 'ADMIN_EMAIL names an existing account that is not an instance admin; it was left as it is (promote it with create-admin)');
    }
    // Whoever reaches an open, empty instance first owns it: say so while anyone beyond this machine can.
    if (signUp === 'open' && !LOOPBACK.has(ctx.config.host) && (await users.isEmpty())) {
      ctx.logger.warn(
        { host: ctx.config.host },
        'this instance has no account yet and listens beyond loopback: the first sign-up will become instance admin. Set ADMIN_EMAIL and ADMIN_PASSWORD (or run create-admin) before exposing it.',
      );
    }
  },
});
