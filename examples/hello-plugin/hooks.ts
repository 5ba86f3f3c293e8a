import type { Middleware } from 'koa';
import { SyncWaterfallHook } from 'tessera/hooks';

/** Hooks this plugin offers to plugins that depend on it (`ctx.hooksOf('hello.greetings')`). */
export function createHelloHooks() {
  return {
    /** Waterfall over the message of a new greeting, before it is stored. */
    message: new SyncWaterfallHook<[string, { workspaceId: string; name: string; userId: string }]>(['message', 'context']),
  };
}
export type HelloHooks = Readonly<ReturnType<typeof createHelloHooks>>;

declare module 'tessera/hooks' {
  interface PluginHookMap {
    'hello.greetings': HelloHooks;
  }
}

/** Tapped into `http.middleware`: every response, errors included, carries the greeting as X-Hello. */
export function helloHeader(greeting: string): Middleware {
  return async (ctx, next) => {
    ctx.set('X-Hello', greeting);
    await next();
  };
}
