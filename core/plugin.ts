import type { Hook, HookMap } from 'tapable';
import type { Logger } from 'pino';
import type { TSchema } from './schema.ts';
import type { KernelHooks, PluginHookMap } from './hooks.ts';
import type { Resolve, ServiceFactory } from './container.ts';
import type { AnyRouteDef } from './routes.ts';
import type { EmitInput, FanOutTap, Subscriber } from './events.ts';
import type { JobDefinition } from './jobs.ts';
import type { Db, DatabaseKind } from './db.ts';
import type { KernelConfig } from './config.ts';
import type { BlobStore } from './blobs.ts';

export interface PluginManifest<O = Record<string, unknown>> {
  /** kebab-case; also the route tag, DI namespace and table prefix. */
  id: string;
  version: string;
  /** Semver range of the kernel API the plugin was written for. */
  kernel: string;
  dependsOn?: Record<string, string>;
  optionalDependsOn?: Record<string, string>;
  /** JSON Schema for `options`; defaults are applied. */
  optionsSchema?: TSchema;
  /** Absolute directory of knex migrations (one file per migration, run in name order). */
  migrations?: string;
  /**
   * Tables this plugin owns that its own migrations do not create: the identity tables (`users`, `sessions`,
   * `personal_access_tokens`) came from the kernel's first migration, before the plugins that keep them existed.
   * Only the owner names its tables in SQL; the others go through its exported services.
   */
  tables?: string[];
  /** Service keys (`<id>.<name>`) other plugins may resolve. */
  exports?: string[];
  /** Whether the plugin is on when the config does not mention it (built-ins: true). */
  enabledByDefault?: boolean;
  register?(ctx: PluginContext<O>): void;
  boot?(ctx: PluginContext<O>): Promise<void> | void;
  shutdown?(ctx: PluginContext<O>): Promise<void> | void;
}

export type Plugin<O = any> = Readonly<PluginManifest<O>> & { readonly __tesseraPlugin: true };

export function definePlugin<O = Record<string, unknown>>(manifest: PluginManifest<O>): Plugin<O> {
  return Object.freeze({ ...manifest, __tesseraPlugin: true as const });
}

export function isPlugin(value: unknown): value is Plugin {
  return !!value && typeof value === 'object' && (value as { __tesseraPlugin?: unknown }).__tesseraPlugin === true;
}

export type HookSet = Record<string, Hook<any, any> | HookMap<any>>;

/** What a plugin sees. `register` may only wire; I/O belongs in `boot`. */
export interface PluginContext<O = Record<string, unknown>> {
  readonly id: string;
  readonly options: O;
  readonly config: KernelConfig;
  readonly logger: Logger;
  readonly hooks: KernelHooks;
  readonly db: Db;
  readonly databaseKind: DatabaseKind;
  readonly blobs: BlobStore;
  /**
   * Makes `store` the instance's blob store (register only): every plugin's `blobs` then reads and writes there.
   * Only one plugin may do so; blobs already on the local disk are not moved.
   */
  provideBlobStore(store: BlobStore): void;
  /** Registers a service under `<id>.<name>`; exported if listed in the manifest's `exports`. */
  provide<T>(name: string, factory: ServiceFactory<T>, opts?: { scoped?: boolean }): void;
  /** Resolves own services, kernel services, and exports of declared dependencies. */
  resolve: Resolve;
  /** Whether an optional dependency is enabled and booted. */
  has(pluginId: string): boolean;
  routes(defs: AnyRouteDef[]): void;
  /** Defines a hook set other plugins can tap as `<id>.<name>`. */
  defineHooks<T extends HookSet>(name: string, hooks: T): Readonly<T>;
  /** A hook set defined by a plugin this one depends on. */
  hooksOf<K extends keyof PluginHookMap & string>(key: K): PluginHookMap[K];
  subscribe(sub: Subscriber): void;
  /** Runs `tap.handler` inside each fan-out transaction with the batch's matching events (see `FanOutTap`). */
  tapFanOut(tap: FanOutTap): void;
  emit(trx: Db, events: EmitInput | EmitInput[]): Promise<void>;
  job<T>(def: JobDefinition<T>): void;
  sendJob<T extends object>(name: string, data: T, trx?: Db): Promise<string | null>;
}
