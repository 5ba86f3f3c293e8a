import { fileURLToPath } from 'node:url';
import { definePlugin } from 'tessera/plugin';
import { HelloOptions } from './schemas.ts';
import { GreetingService } from './greetings.service.ts';
import { GREETING, greetingRoutes } from './greetings.routes.ts';
import { createHelloHooks, helloHeader } from './hooks.ts';
import { tapPacks } from './pack.ts';

declare module 'tessera/container' {
  interface ServiceMap {
    'hello.greetings': GreetingService;
  }
}

export default definePlugin<HelloOptions>({
  id: 'hello',
  version: '2.0.0',
  kernel: '^1.0.0',
  // Greetings live in workspaces: the workspaces plugin (and, through it, auth) comes first.
  dependsOn: { workspaces: '^1.0.0' },
  // Greetings travel in packs when the packs plugin is on, as every kind of resource does.
  optionalDependsOn: { packs: '^1.0.0' },
  optionsSchema: HelloOptions,
  migrations: fileURLToPath(new URL('./migrations', import.meta.url)),
  exports: ['hello.greetings'],
  register(ctx) {
    const hooks = ctx.defineHooks('greetings', createHelloHooks());
    ctx.provide('greetings', (r) => new GreetingService(r('db'), r('events'), hooks, ctx.options.greeting));
    ctx.routes(greetingRoutes());
    // Where a greeting sits and who wrote it, asked by `access` rules naming a greeting.
    ctx.hooks.auth.locate.for(GREETING).tapPromise('hello', (req) => ctx.resolve('hello.greetings').locate(req));
    // Told by the plugin that owns memberships, typed, inside the removal's transaction: what we delete commits with it.
    ctx.hooksOf('workspaces.lifecycle').memberRemoved.tapPromise('hello', ({ trx, workspaceId, userId }) =>
      ctx.resolve('hello.greetings').forgetMember(trx, workspaceId, userId),
    );
    if (ctx.has('packs')) tapPacks(ctx.hooksOf('packs.kinds'), () => ctx.resolve('hello.greetings'));
    ctx.hooks.http.middleware.tap('greeting-header', (entries) => [...entries, { name: 'hello:greeting-header', middleware: helloHeader(ctx.options.greeting) }]);
  },
});
