import tapable from 'tapable';
import type { Hook, HookMap as HookMapType, Tap } from 'tapable';
import type { Context, Middleware } from 'koa';
import { AppError, StartupError } from './errors.ts';
import type { Principal } from './principal.ts';
import type { Db } from './db.ts';
import type { Location, LocateRequest, WorkspaceAccess } from './authz.ts';
import type { SecretBox } from './secret-box.ts';
import { createUsageHooks } from './usage.ts';

const { AsyncSeriesHook, AsyncSeriesBailHook, AsyncSeriesWaterfallHook, AsyncParallelHook, SyncHook, SyncWaterfallHook, SyncBailHook, HookMap } =
  tapable;

/** An error thrown by a plugin's tap, carrying which plugin and which hook. */
export class PluginHookError extends Error {
  constructor(readonly pluginId: string, readonly hookName: string, override readonly cause: unknown) {
    super(`Plugin "${pluginId}" failed in hook "${hookName}": ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'PluginHookError';
  }
}

/**
 * Where a plugin's middleware runs, in this order: before the kernel authenticates the request (sees no
 * principal; the default), or after (sees `ctx.state.principal`, undefined for an anonymous call). Within a
 * stage, middleware runs in the order plugins registered it.
 */
export const MIDDLEWARE_STAGES = ['beforeAuthentication', 'afterAuthentication'] as const;
export type MiddlewareStage = (typeof MIDDLEWARE_STAGES)[number];

export interface MiddlewareEntry {
  name: string;
  middleware: Middleware;
  stage?: MiddlewareStage;
}

export interface AuthenticateInput {
  token: string;
  ctx: Context;
}

export interface AuthorizeRequest {
  principal: Principal;
  action: string;
  resource?: { type: string; id?: string; workspaceId?: string; [k: string]: unknown };
}

export interface AuthorizeDecision {
  allow: boolean;
  reason?: string;
}

/** What a `secrets.rotate` tap gets; it adds to `resealed` how many values it sealed again. */
export interface SecretsRotation {
  trx: Db;
  box: SecretBox;
  resealed: Record<string, number>;
}

export interface ProviderEntry<T = unknown> {
  id: string;
  provider: T;
}

/**
 * Per kernel: which plugin is being wired (taps made during its `register` are attributed
 * to it), and which plugins were disabled after a failure (their taps become no-ops).
 */
export class HookAttribution {
  current: string | undefined;
  readonly disabled = new Set<string>();
}

function wrapTap(at: HookAttribution, hookName: string, waterfall: boolean, tap: Tap & { fn: (...a: any[]) => any; type: string }): any {
  const pluginId = at.current ?? tap.name;
  const rethrow = (err: unknown) => (err instanceof AppError || err instanceof PluginHookError ? err : new PluginHookError(pluginId, hookName, err));
  const original = tap.fn;
  // A disabled plugin's tap passes the value through untouched.
  const fn = (...args: any[]) => {
    if (!at.disabled.has(pluginId)) return original(...args);
    const cb = tap.type === 'async' ? args[args.length - 1] : undefined;
    const pass = waterfall ? args[0] : undefined;
    if (cb) return cb(null, pass);
    return tap.type === 'promise' ? Promise.resolve(pass) : pass;
  };
  let wrapped: (...a: any[]) => any;
  if (tap.type === 'promise') {
    wrapped = (...args) => {
      try {
        return Promise.resolve(fn(...args)).then(undefined, (e) => Promise.reject(rethrow(e)));
      } catch (e) {
        return Promise.reject(rethrow(e));
      }
    };
  } else if (tap.type === 'async') {
    wrapped = (...args) => {
      const cb = args.pop();
      try {
        return fn(...args, (e: unknown, r: unknown) => (e ? cb(rethrow(e)) : cb(null, r)));
      } catch (e) {
        cb(rethrow(e));
      }
    };
  } else {
    wrapped = (...args) => {
      try {
        return fn(...args);
      } catch (e) {
        throw rethrow(e);
      }
    };
  }
  return { ...tap, name: pluginId === tap.name ? tap.name : `${pluginId}:${tap.name}`, fn: wrapped };
}

/** Makes every tap of `hook` attributed to the plugin that registered it. */
export function attribute<H extends Hook<any, any>>(at: HookAttribution, hookName: string, hook: H): H {
  const waterfall = /Waterfall/.test((hook as { constructor: { name: string } }).constructor.name);
  hook.intercept({ register: (tap) => wrapTap(at, hookName, waterfall, tap as never) });
  return hook;
}

export function attributeMap<H extends Hook<any, any>>(at: HookAttribution, hookName: string, map: HookMapType<H>): HookMapType<H> {
  map.intercept({ factory: (key, hook) => attribute(at, `${hookName}[${String(key)}]`, hook as unknown as H) as never });
  return map;
}

/**
 * Middleware runs per request, long after its tap returned: wrap each entry a tap adds so
 * that what the middleware itself throws still names the plugin (errors from `next()` pass as they are).
 */
function attributeMiddleware(at: HookAttribution, hook: tapable.SyncWaterfallHook<[MiddlewareEntry[]]>) {
  hook.intercept({
    register: (tap) => {
      const pluginId = at.current ?? tap.name;
      const original = tap.fn as (entries: MiddlewareEntry[]) => MiddlewareEntry[];
      const fn = (entries: MiddlewareEntry[]) =>
        original(entries).map((e) => (entries.includes(e) ? e : { ...e, middleware: attributedMiddleware(pluginId, e.middleware) }));
      return { ...tap, fn };
    },
  });
  return attribute(at, 'http.middleware', hook);
}

function attributedMiddleware(pluginId: string, middleware: Middleware): Middleware {
  return async (ctx, next) => {
    let downstream: unknown;
    try {
      await middleware(ctx, () =>
        next().catch((err: unknown) => {
          downstream = err;
          throw err;
        }),
      );
    } catch (err) {
      if (err === downstream || err instanceof AppError || err instanceof PluginHookError) throw err;
      throw new PluginHookError(pluginId, 'http.middleware', err);
    }
  };
}

function attributeUsage(at: HookAttribution) {
  const usage = createUsageHooks();
  return Object.freeze({
    rise: attribute(at, 'usage.rise', usage.rise),
    fall: attribute(at, 'usage.fall', usage.fall),
    measure: attributeMap(at, 'usage.measure', usage.measure),
  });
}

function createKernelHooks(at: HookAttribution) {
  return Object.freeze({
    lifecycle: Object.freeze({
      boot: attribute(at, 'lifecycle.boot', new AsyncSeriesHook<[]>()),
      ready: attribute(at, 'lifecycle.ready', new AsyncSeriesHook<[]>()),
      shutdown: attribute(at, 'lifecycle.shutdown', new AsyncSeriesHook<[]>()),
    }),
    http: Object.freeze({
      middleware: attributeMiddleware(at, new SyncWaterfallHook<[MiddlewareEntry[]]>(['entries'])),
    }),
    auth: Object.freeze({
      /** Bail: the first strategy that recognises the token returns the principal. */
      authenticate: attribute(at, 'auth.authenticate', new AsyncSeriesBailHook<[AuthenticateInput], Principal | undefined>(['input'])),
      /** Bail: the first tap with an opinion decides; no opinion means the route-level rules stand. */
      authorize: attribute(at, 'auth.authorize', new AsyncSeriesBailHook<[AuthorizeRequest], AuthorizeDecision | undefined>(['request'])),
      /**
       * What a user may do in a workspace, in two named phases run one after the other whatever the plugin
       * order: `membership` (waterfall: the workspace role, a guest's spaces), then `grants` (waterfall: roles
       * raised on spaces and databases, which build on the membership).
       */
      workspaceAccess: Object.freeze({
        membership: attribute(at, 'auth.workspaceAccess.membership', new AsyncSeriesWaterfallHook<[WorkspaceAccess, Db | undefined]>(['access', 'trx'])),
        grants: attribute(at, 'auth.workspaceAccess.grants', new AsyncSeriesWaterfallHook<[WorkspaceAccess, Db | undefined]>(['access', 'trx'])),
      }),
      /** Keyed by resource type; bail: the owning plugin answers where a resource sits, or undefined when it is not in that workspace. */
      locate: attributeMap(at, 'auth.locate', new HookMap(() => new AsyncSeriesBailHook<[LocateRequest], Location | undefined>(['request']))),
    }),
    secrets: Object.freeze({
      /**
       * `npm run rotate-secret-key`: each plugin that keeps sealed values seals them again under the current key
       * (`SecretBox.reseal`), all in the one transaction given.
       */
      rotate: attribute(at, 'secrets.rotate', new AsyncSeriesHook<[SecretsRotation]>(['rotation'])),
    }),
    /** Keyed by capability (mail, payment, storage, integration, llm): each tap adds its providers. */
    providers: attributeMap(at, 'providers', new HookMap(() => new SyncWaterfallHook<[ProviderEntry[]]>(['providers']))),
    /** What workspaces use, metered where it changes and enforced by whichever plugin taps it (core/usage.ts). */
    usage: attributeUsage(at),
  });
}

export type KernelHooks = ReturnType<typeof createKernelHooks>;
export { createKernelHooks };

/** Plugin-defined hook sets by `<plugin>.<name>`; plugins extend this for typing. */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface PluginHookMap {}

/** Hooks that plugins define for other plugins (webpack's getCompilationHooks pattern). */
export class PluginHookRegistry {
  private readonly sets = new Map<string, { owner: string; hooks: object }>();

  constructor(private readonly at: HookAttribution) {}

  define<T extends Record<string, Hook<any, any> | HookMapType<any>>>(owner: string, name: string, hooks: T): Readonly<T> {
    const key = `${owner}.${name}`;
    if (this.sets.has(key)) throw new StartupError(`Hook set "${key}" is defined twice.`, 'duplicate_hooks', [owner]);
    for (const [hookName, hook] of Object.entries(hooks)) {
      if (hook instanceof HookMap) attributeMap(this.at, `${key}.${hookName}`, hook as HookMapType<any>);
      else attribute(this.at, `${key}.${hookName}`, hook as Hook<any, any>);
    }
    const frozen = Object.freeze({ ...hooks });
    this.sets.set(key, { owner, hooks: frozen });
    return frozen;
  }

  get(key: string): { owner: string; hooks: object } | undefined {
    return this.sets.get(key);
  }
}

export { AsyncSeriesHook, AsyncSeriesBailHook, AsyncSeriesWaterfallHook, AsyncParallelHook, SyncHook, SyncWaterfallHook, SyncBailHook, HookMap };
