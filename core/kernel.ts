import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type http from 'node:http';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { StartupError } from './errors.ts';
import { safeEqual } from './secrets.ts';
import { KernelContainer, KERNEL } from './container.ts';
import { createKernelHooks, HookAttribution, PluginHookRegistry, type KernelHooks } from './hooks.ts';
import type { Database, Db, PgliteRuntime } from './db.ts';
import type { StrayQueries } from './held-connection.ts';
import { appliedMigrations, migrateDirectory } from './migrations.ts';
import type { Jobs } from './jobs.ts';
import type { EventBus } from './events.ts';
import type { Idempotency } from './idempotency.ts';
import type { BlobStoreSlot } from './blobs.ts';
import { createLogger } from './logger.ts';
import { planPlugins, type LoadedPlugin } from './loader.ts';
import { buildRouter } from './router.ts';
import { createApp } from './http.ts';
import type { HttpMetrics } from './metrics.ts';
import { kernelRoutes } from './kernel-routes.ts';
import { createPluginContext } from './plugin-context.ts';
import type { Authz } from './authz.ts';
import type { CacheSignals } from './cache.ts';
import { PluginStatuses, type PluginStatus } from './plugin-statuses.ts';
import { hostOf } from './host.ts';
import { isLoopback, listenOrigin } from './public-url.ts';
import { KernelServer } from './kernel-server.ts';
import { openKernelServices, provideKernelServices, type KernelServices } from './kernel-services.ts';
import type { Plugin } from './plugin.ts';
import type { KernelConfig } from './config.ts';
import type { RegisteredRoute } from './routes.ts';

export type { PluginPhase, PluginStatus } from './plugin-statuses.ts';

const KERNEL_MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations');

export interface KernelOptions {
  config: KernelConfig;
  /** Built-in plugins (on unless the config disables them). */
  plugins: Plugin[];
  logger?: Logger;
  /** PostgreSQL schema to use (tests isolate each kernel in its own). */
  schema?: string;
  /** In-memory PGlite instead of DATA_DIR (tests). */
  inMemory?: boolean;
  /** A PGlite dump to start from, in memory or in a data directory holding no database yet (tests reuse migrated ones). */
  pgliteSeed?: Blob;
  /** With `inMemory`: PGlite's engine compiled once for the process (tests start many). */
  pgliteRuntime?: PgliteRuntime;
  /** PGlite: fail a query sent outside its own code's transaction at once (tests) or log it (default). */
  strayQueries?: StrayQueries;
  /** Shorter pg-boss maintenance, for tests that crash deliveries. */
  jobsMaintenanceSeconds?: number;
  /** `migrate`: wire plugins, run every migration and create the job queues, then stop short of workers, boot and HTTP. */
  mode?: 'serve' | 'migrate';
  /** Called once migrations and job queues are set up, before anything else touches the database (tests copy it from here). */
  onMigrated?: (database: Database, statuses: readonly PluginStatus[]) => Promise<void>;
}

/**
 * Starts and stops an instance: plans the plugins, opens the kernel's services, runs the plugin
 * phases (register, migrate, boot) and serves their routes; stops in reverse.
 */
export class Kernel {
  readonly routes: RegisteredRoute[] = [];
  readonly container = new KernelContainer();
  readonly attribution = new HookAttribution();
  readonly hooks: KernelHooks = createKernelHooks(this.attribution);
  readonly pluginHooks = new PluginHookRegistry(this.attribution);
  private readonly plugins: PluginStatuses;
  private readonly http = new KernelServer();
  private services?: KernelServices;
  app!: Koa;
  private active: LoadedPlugin[] = [];
  private readonly booted = new Set<string>();
  private stopping: Promise<void> | null = null;
  /** Aborted as the stop begins (`Host.closing`). */
  private readonly closing = new AbortController();
  /** Where the HTTP server took connections, once it does. */
  private listening?: { host: string; port: number };

  private constructor(readonly config: KernelConfig, readonly logger: Logger) {
    this.plugins = new PluginStatuses(this.attribution, logger, config.onBootFailure);
  }

  get statuses(): Map<string, PluginStatus> {
    return this.plugins.byId;
  }
  get server(): http.Server | null {
    return this.http.server;
  }
  get database(): Database {
    return this.services!.database;
  }
  get db(): Db {
    return this.database.knex;
  }
  get jobs(): Jobs {
    return this.services!.jobs;
  }
  get events(): EventBus {
    return this.services!.events;
  }
  get blobs(): BlobStoreSlot {
    return this.services!.blobs;
  }
  get idempotency(): Idempotency {
    return this.services!.idempotency;
  }
  get caches(): CacheSignals {
    return this.services!.caches;
  }
  get authz(): Authz {
    return this.services!.authz;
  }
  get metrics(): HttpMetrics | undefined {
    return this.services?.metrics;
  }

  static async start(opts: KernelOptions): Promise<Kernel> {
    const kernel = new Kernel(opts.config, opts.logger ?? createLogger(opts.config.logLevel));
    try {
      await kernel.init(opts);
    } catch (err) {
      await kernel.teardown();
      throw err;
    }
    return kernel;
  }

  isActive(pluginId: string): boolean {
    return this.plugins.isActive(pluginId);
  }

  pluginStatuses(): PluginStatus[] {
    return this.plugins.list();
  }

  private async init(opts: KernelOptions): Promise<void> {
    const { config, logger } = this;
    const plan = await planPlugins(opts.plugins, config);
    this.plugins.record(plan);
    this.services = await openKernelServices(config, logger, this.hooks, { ...opts, migrateOnly: opts.mode === 'migrate' });
    provideKernelServices(this.container, config, logger, this.hooks, this.services, hostOf(() => this.pluginStatuses(), () => this.publicUrl(), this.closing.signal));

    // Only when a metrics token exists: this strategy would otherwise cost every request a promise for nothing.
    if (config.metrics.enabled && config.metrics.token) {
      this.hooks.auth.authenticate.tapPromise(KERNEL, async ({ token }) => this.metricsPrincipal(token));
    }
    this.routes.push(...kernelRoutes(this).map((def) => ({ pluginId: KERNEL, def })));

    const contexts = this.register(plan.ordered);
    this.active = plan.ordered;
    // Once a plugin may have brought another store; before any migration, so a DATA_DIR that cannot be written is one line now, not a 500 at the first upload.
    if (opts.mode !== 'migrate') await this.blobs.assertWritable();

    const isActive = (owner: string) => this.isActive(owner);
    // Processes starting together on one database (WORKERS, several machines) would race on DDL.
    await this.database.withSetupLock(`tessera:${this.database.schema}:setup`, async () => {
      if (config.migrateOnStart || opts.mode === 'migrate') await this.migrate();
      await this.jobs.prepare(isActive);
    });
    await opts.onMigrated?.(this.database, this.pluginStatuses());
    if (opts.mode === 'migrate') return;
    await this.caches.start();
    await this.boot(plan.ordered, contexts);
    // After boot: a plugin that failed to boot runs no workers (its queues exist; jobs wait).
    await this.jobs.startWorkers(isActive);
    await this.hooks.lifecycle.boot.promise();
    this.app = this.createApp();
    this.events.start();
    await this.hooks.lifecycle.ready.promise();
  }

  /** Register phase: each active plugin, in dependency order, wires itself (services, routes, hooks, jobs). */
  private register(ordered: LoadedPlugin[]): Map<string, ReturnType<typeof createPluginContext>> {
    const contexts = new Map<string, ReturnType<typeof createPluginContext>>();
    for (const lp of ordered) {
      if (!this.isActive(lp.plugin.id)) continue;
      this.container.setDependencies(lp.plugin.id, lp.deps);
      const ctx = createPluginContext(this, lp);
      contexts.set(lp.plugin.id, ctx);
      this.attribution.current = lp.plugin.id;
      try {
        lp.plugin.register?.(ctx);
      } catch (err) {
        this.plugins.fail(lp, 'register', err, ordered);
      } finally {
        this.attribution.current = undefined;
      }
    }
    return contexts;
  }

  private async boot(ordered: LoadedPlugin[], contexts: Map<string, ReturnType<typeof createPluginContext>>): Promise<void> {
    for (const lp of ordered) {
      if (!this.isActive(lp.plugin.id)) continue;
      try {
        await lp.plugin.boot?.(contexts.get(lp.plugin.id)!);
        this.booted.add(lp.plugin.id);
      } catch (err) {
        this.plugins.fail(lp, 'boot', err, ordered);
      }
    }
  }

  /** The HTTP app over the active plugins' routes; two plugins declaring one route stop start-up. */
  private createApp(): Koa {
    const routes = this.routes.filter((r) => this.isActive(r.pluginId));
    const seen = new Map<string, string>();
    for (const r of routes) {
      const key = `${r.def.method} ${r.def.path.replace(/\{[^}]+\}/g, '{}')}`;
      const prior = seen.get(key);
      if (prior) throw new StartupError(`Route ${r.def.method} ${r.def.path} is declared by both "${prior}" and "${r.pluginId}".`, 'duplicate_route', [prior, r.pluginId]);
      seen.set(key, r.pluginId);
    }
    const router = buildRouter(routes, { container: this.container, hooks: this.hooks, authz: this.authz, jsonLimit: this.config.http.jsonLimit, bodyIdleMs: this.config.http.bodyIdleTimeoutMs, idempotency: this.idempotency, blobs: this.blobs });
    return createApp({
      config: this.config,
      logger: this.logger,
      hooks: this.hooks,
      metrics: this.metrics,
      load: this.services!.load,
      routes: router.routes() as unknown as Koa.Middleware,
      allowedMethods: router.allowedMethods() as unknown as Koa.Middleware,
    });
  }

  /** Runs kernel migrations, then each active plugin's, in dependency order. */
  async migrate(): Promise<void> {
    await this.db.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public');
    const applied = await appliedMigrations(this.db);
    await migrateDirectory(this.db, KERNEL, KERNEL_MIGRATIONS, applied);
    for (const lp of this.active) {
      if (!this.isActive(lp.plugin.id) || !lp.plugin.migrations) continue;
      try {
        const ran = await migrateDirectory(this.db, lp.plugin.id, lp.plugin.migrations, applied);
        if (ran.length) this.logger.info({ plugin: lp.plugin.id, applied: ran }, 'migrations applied');
      } catch (err) {
        this.plugins.fail(lp, 'migrate', err, this.active);
      }
    }
  }

  private metricsPrincipal(token: string) {
    const expected = this.config.metrics.token;
    return expected && safeEqual(token, expected) ? ({ kind: 'service', name: 'metrics' } as const) : undefined;
  }

  async listen(port = this.config.port, host = this.config.host): Promise<http.Server> {
    const server = await this.http.listen(this.app, port, host, this.config.http.headersTimeoutMs);
    this.listening = { host, port: (server.address() as { port: number }).port };
    if (!this.config.publicUrl && isLoopback(host)) {
      this.logger.warn(
        { publicUrl: this.publicUrl() },
        `No publicUrl is set and the server listens on ${host} only: links in mail point at ${this.publicUrl()}, which opens on this machine alone. Set PUBLIC_URL to the address people reach Tessera at.`,
      );
    }
    return server;
  }

  /** See `Host.publicUrl`; before the server listens, the address it is configured to listen on. */
  publicUrl(): string {
    if (this.config.publicUrl) return this.config.publicUrl.replace(/\/+$/, '');
    const { host, port } = this.listening ?? { host: this.config.host, port: this.config.port };
    return listenOrigin(host, port);
  }

  /** Graceful: stop accepting, answer every request already accepted, drain jobs, shut plugins down, close the pool. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.closing.abort();
    await this.http.close(this.config.shutdownTimeoutMs);
    await this.hooks.lifecycle.shutdown.promise().catch((err) => this.logger.error({ err }, 'shutdown hook failed'));
    for (const lp of [...this.active].reverse()) {
      if (!this.booted.has(lp.plugin.id) || !this.isActive(lp.plugin.id) || !lp.plugin.shutdown) continue;
      try {
        await lp.plugin.shutdown(createPluginContext(this, lp));
      } catch (err) {
        this.logger.error({ err, plugin: lp.plugin.id }, 'plugin shutdown failed');
      }
    }
    await this.teardown();
  }

  private async teardown(): Promise<void> {
    const s = this.services;
    await s?.events.stop().catch(() => {});
    await s?.jobs.stop(true, this.config.shutdownTimeoutMs).catch((err) => this.logger.error({ err }, 'job queue stop failed'));
    await this.container.dispose().catch(() => {});
    await s?.caches.stop();
    await s?.database.close();
  }
}
