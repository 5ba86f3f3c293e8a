import { fileURLToPath } from 'node:url';
import { definePlugin } from 'tessera/plugin';
import { HelloOptions } from './schemas.ts';
import { GreetingService } from './greetings.service.ts';
import { createHelloHooks, helloHeader } from './hooks.ts';
import { helloRoutes } from './routes.ts';

declare module 'tessera/container' {
  interface ServiceMap {
    'hello.greetings': GreetingService;
  }
}

export default definePlugin<HelloOptions>({
  id: 'hello',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Its routes are for signed-in users: the auth plugin is what signs them in.
  dependsOn: { auth: '^1.0.0' },
  optionsSchema: HelloOptions,
  migrations: fileURLToPath(new URL('./migrations', import.meta.url)),
  exports: ['hello.greetings'],
  register(ctx) {
    const hooks = ctx.defineHooks('greetings', createHelloHooks());
    ctx.provide('greetings', (r) => new GreetingService(r('db'), r('events'), hooks, ctx.options.greeting));
    ctx.hooks.http.middleware.tap('greeting-header', (entries) => [...entries, { name: 'hello:greeting-header', middleware: helloHeader(ctx.options.greeting) }]);
    ctx.routes(helloRoutes);
  },
});
