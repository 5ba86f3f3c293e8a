import { definePlugin } from '../../core/plugin.ts';
import { LastUsedRecorder } from './last-used.ts';
import { PatStrategy } from './pat.strategy.ts';
import { TokenService } from './tokens.service.ts';
import { createTokenHooks } from './hooks.ts';
import { tokenRoutes } from './routes.ts';
import { tapGdpr } from './gdpr.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'tokens.service': TokenService;
    'tokens.strategy': PatStrategy;
    'tokens.lastUsed': LastUsedRecorder;
  }
}

export default definePlugin({
  id: 'tokens',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Tokens are managed from a session, which auth provides.
  dependsOn: { auth: '^1.0.0' },
  optionalDependsOn: { gdpr: '^1.0.0' },
  tables: ['personal_access_tokens'],
  exports: ['tokens.service'],
  register(ctx) {
    // Personal data this plugin keeps is exported and erased through the gdpr plugin's hooks, when it is enabled.
    if (ctx.has('gdpr')) tapGdpr(ctx);
    const hooks = ctx.defineHooks('creation', createTokenHooks());
    ctx.provide('lastUsed', (r) => new LastUsedRecorder(r('db'), ctx.logger));
    ctx.provide('strategy', (r) => new PatStrategy(r('database'), r('caches'), r('tokens.lastUsed')));
    ctx.provide('service', (r) => new TokenService(r('db'), hooks));
    // Resolved once: authentication runs on every request.
    let strategy: PatStrategy | undefined;
    ctx.hooks.auth.authenticate.tapPromise('pat', ({ token }) => (strategy ??= ctx.resolve('tokens.strategy')).authenticate(token));
    ctx.routes(tokenRoutes());
  },
  async shutdown(ctx) {
    await ctx.resolve('tokens.lastUsed').drain();
  },
});
