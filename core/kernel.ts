import http from 'node:http';
import type { Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { StartupError } from './errors.ts';
import { safeEqual } from './secrets.ts';
import { KernelContainer, KERNEL } from './container.ts';
import { createKernelHooks, HookAttribution, PluginHookRegistry, type KernelHooks } from './hooks.ts';
import { openDatabase, type Database, type Db } from './db.ts';
import type { StrayQueries } from './held-connection.ts';
import { migrateDirectory } from './migrations.ts';
import { Jobs } from './jobs.ts';
import { EventBus } from './events.ts';
import { Idempotency } from './idempotency.ts';
import { LocalDiskBlobStore, type BlobStore } from './blobs.ts';
import { createLogger } from './logger.ts';
import { dependantsOf, planPlugins, type LoadedPlugin } from './loader.ts';
import { buildRouter } from './router.ts';
import { createApp } from './http.ts';
import { closeGracefully, trackConnections } from './graceful-close.ts';
import { HttpMetrics } from './metrics.ts';
import { kernelRoutes } from './kernel-routes.ts';
import { createPluginContext } from './plugin-context.ts';
import { Authz } from './authz.ts';
import { CacheSignals } from './cache.ts';
import type { Plugin } from './plugin.ts';
import type { KernelConfig } from './config.ts';
import type { RegisteredRoute } from './routes.ts';

declare module './container.ts' {
  interface ServiceMap {
    config: KernelConfig;
    logger: Logger;
    db: Db;
    database: Database;
    hooks: KernelHooks;
    events: EventBus;
    jobs: Jobs;
    blobs: BlobStore;
    kernel: Kernel;
    authz: Authz;
    caches: CacheSignals;
  }
}

const KERNEL_MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations');

export type PluginPhase = 'register' | 'migrate' | 'boot';

export interface PluginStatus {
  id: string;
  version: string;
  enabled: boolean;
  state: 'active' | 'disabled' | 'failed';
  failure: { phase: PluginPhase | 'dependency'; message: string } | null;
}

export interface KernelOptions {
  config: KernelConfig;
  /** Built-in plugins (on unless the config disables them). */
  plugins: Plugin[];
  logger?: Logger;
  /** PostgreSQL schema to use (tests isolate each kernel in its own). */
  schema?: string;
  /** In-memory PGlite instead of DATA_DIR (tests). */
  inMemory?: boolean;
  /** With `inMemory`: a PGlite dump to start from (tests reuse one initialised cluster). */
  pgliteSeed?: Blob;
  /** PGlite: fail a query sent outside its own code's transaction at once (tests) or log it (default). */
  strayQueries?: StrayQueries;
  /** Shorter pg-boss maintenance, for tests that crash deliveries. */
  jobsMaintenanceSeconds?: number;
  /** `migrate`: wire plugins, run every migration and create the job queues, then stop short of workers, boot and HTTP. */
  mode?: 'serve' | 'migrate';
  /** Called once migrations and job queues are set up, before anything else touches the database (tests copy it from here). */
  onMigrated?: (database: Database, statuses: readonly PluginStatus[]) => Promise<void>;
}

export class Kernel {
  readonly statuses = new Map<string, PluginStatus>();
  readonly routes: RegisteredRoute[] = [];
  readonly container = new KernelContainer();
  readonly attribution = new HookAttribution();
  readonly hooks: KernelHooks = createKernelHooks(this.attribution);
  authz!: Authz;
  readonly pluginHooks = new PluginHookRegistry(this.attribution);
  app!: Koa;
  server: http.Server | null = null;
  database!: Database;
  jobs!: Jobs;
  events!: EventBus;
  blobs!: BlobStore;
  idempotency!: Idempotency;
  caches!: CacheSignals;
  metrics?: HttpMetrics;
  private active: LoadedPlugin[] = [];
  private readonly booted = new Set<string>();
  private stopping: Promise<void> | null = null;
  /** Requests whose middleware has not finished, socket or not. */
  private readonly handling = new Set<Promise<void>>();
  private connections = new Set<Socket>();

  private constructor(readonly config: KernelConfig, readonly logger: Logger) {}

  get db(): Db {
    return this.database.knex;
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
    return pluginId === KERNEL || this.statuses.get(pluginId)?.state === 'active';
  }

  private async init(opts: KernelOptions): Promise<void> {
    const { config, logger } = this;
    const plan = await planPlugins(opts.plugins, config);
    for (const p of plan.disabled) this.statuses.set(p.id, { id: p.id, version: p.version, enabled: false, state: 'disabled', failure: null });
    for (const lp of plan.ordered) {
      this.statuses.set(lp.plugin.id, { id: lp.plugin.id, version: lp.plugin.version, enabled: true, state: 'active', failure: null });
    }

    this.database = await openDatabase({
      url: config.databaseUrl,
      dataDir: opts.inMemory ? undefined : config.dataDir,
      seed: opts.inMemory ? opts.pgliteSeed : undefined,
      schema: opts.schema,
      logger,
      strayQueries: opts.strayQueries,
    });
    this.caches = new CacheSignals(this.database, logger, config.databaseUrl);
    this.authz = new Authz(this.hooks, this.caches);
    this.blobs = new LocalDiskBlobStore(path.resolve(config.baseDir, config.dataDir, 'blobs'));
    this.jobs = new Jobs(this.database, logger, {
      // Migrating prepares the queues but runs no worker or schedule.
      enabled: config.jobs.enabled && opts.mode !== 'migrate',
      pollingIntervalSeconds: config.jobs.pollingIntervalSeconds,
      schema: `${opts.schema ?? 'public'}_jobs`.replace(/^public_jobs$/, 'pgboss'),
      maintenanceIntervalSeconds: opts.jobsMaintenanceSeconds,
    });
    this.events = new EventBus(this.database, this.jobs, logger, Math.max(1000, config.jobs.pollingIntervalSeconds * 1000));
    this.idempotency = new Idempotency(this.db, logger);
    this.jobs.define(KERNEL, {
      name: 'idempotency-purge',
      schedule: '17 * * * *',
      handler: async () => {
        const purged = await this.idempotency.purgeExpired();
        if (purged > 0) logger.debug({ purged }, 'expired idempotency keys deleted');
      },
    });
    this.jobs.define(KERNEL, {
      name: 'events-purge',
      schedule: '29 * * * *',
      handler: async () => {
        const purged = await this.events.purgeDispatched(config.events.retentionDays);
        if (purged > 0) logger.debug({ purged }, 'dispatched events past their retention deleted');
      },
    });
    if (config.metrics.enabled) this.metrics = new HttpMetrics();

    const c = this.container;
    c.provideKernel('config', config);
    c.provideKernel('logger', logger);
    c.provideKernel('db', this.db);
    c.provideKernel('database', this.database);
    c.provideKernel('hooks', this.hooks);
    c.provideKernel('events', this.events);
    c.provideKernel('jobs', this.jobs);
    c.provideKernel('blobs', this.blobs);
    c.provideKernel('kernel', this);
    c.provideKernel('authz', this.authz);
    c.provideKernel('caches', this.caches);

    // Only when a metrics token exists: this strategy would otherwise cost every request a promise for nothing.
    if (config.metrics.enabled && config.metrics.token) {
      this.hooks.auth.authenticate.tapPromise(KERNEL, async ({ token }) => this.metricsPrincipal(token));
    }
    this.routes.push(...kernelRoutes(this).map((def) => ({ pluginId: KERNEL, def })));

    const contexts = new Map<string, ReturnType<typeof createPluginContext>>();
    for (const lp of plan.ordered) {
      if (!this.isActive(lp.plugin.id)) continue;
      this.container.setDependencies(lp.plugin.id, lp.deps);
      const ctx = createPluginContext(this, lp);
      contexts.set(lp.plugin.id, ctx);
      this.attribution.current = lp.plugin.id;
      try {
        lp.plugin.register?.(ctx);
      } catch (err) {
        this.fail(lp, 'register', err, plan.ordered);
      } finally {
        this.attribution.current = undefined;
      }
    }
    this.active = plan.ordered;

    const isActive = (owner: string) => this.isActive(owner);
    // Processes starting together on one database (WORKERS, several machines) would race on DDL.
    await this.database.withSetupLock(`tessera:${this.database.schema}:setup`, async () => {
      if (config.migrateOnStart || opts.mode === 'migrate') await this.migrate();
      await this.jobs.prepare(isActive);
    });
    await opts.onMigrated?.(this.database, this.pluginStatuses());
    if (opts.mode === 'migrate') return;
    await this.caches.start();

    for (const lp of plan.ordered) {
      if (!this.isActive(lp.plugin.id)) continue;
      try {
        await lp.plugin.boot?.(contexts.get(lp.plugin.id)!);
        this.booted.add(lp.plugin.id);
      } catch (err) {
        this.fail(lp, 'boot', err, plan.ordered);
      }
    }
    // After boot: a plugin that failed to boot runs no workers (its queues exist; jobs wait).
    await this.jobs.startWorkers(isActive);
    await this.hooks.lifecycle.boot.promise();

    const routes = this.routes.filter((r) => this.isActive(r.pluginId));
    const seen = new Map<string, string>();
    for (const r of routes) {
      const key = `${r.def.method} ${r.def.path.replace(/\{[^}]+\}/g, '{}')}`;
      const prior = seen.get(key);
      if (prior) throw new StartupError(`Route ${r.def.method} ${r.def.path} is declared by both "${prior}" and "${r.pluginId}".`, 'duplicate_route', [prior, r.pluginId]);
      seen.set(key, r.pluginId);
    }
    const router = buildRouter(routes, { container: this.container, hooks: this.hooks, authz: this.authz, jsonLimit: config.http.jsonLimit, idempotency: this.idempotency });
    this.app = createApp({
      config,
      logger,
      hooks: this.hooks,
      metrics: this.metrics,
      routes: router.routes() as unknown as Koa.Middleware,
      allowedMethods: router.allowedMethods() as unknown as Koa.Middleware,
    });
    this.events.start();
    await this.hooks.lifecycle.ready.promise();
  }

  /** Runs kernel migrations, then each active plugin's, in dependency order. */
  async migrate(): Promise<void> {
    await this.db.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public');
    await migrateDirectory(this.db, KERNEL, KERNEL_MIGRATIONS);
    for (const lp of this.active) {
      if (!this.isActive(lp.plugin.id) || !lp.plugin.migrations) continue;
      try {
        const applied = await migrateDirectory(this.db, lp.plugin.id, lp.plugin.migrations);
        if (applied.length) this.logger.info({ plugin: lp.plugin.id, applied }, 'migrations applied');
      } catch (err) {
        this.fail(lp, 'migrate', err, this.active);
      }
    }
  }

  private fail(lp: LoadedPlugin, phase: PluginPhase, err: unknown, ordered: LoadedPlugin[]): void {
    const message = err instanceof Error ? err.message : String(err);
    const id = lp.plugin.id;
    if (this.config.onBootFailure !== 'continue') {
      throw new StartupError(`Plugin "${id}" failed during ${phase}: ${message}`, 'plugin_failed', [id]);
    }
    const dependants = dependantsOf(id, ordered).filter((d) => this.isActive(d));
    this.logger.error({ err, plugin: id, phase, disabled: dependants }, `plugin "${id}" failed during ${phase}; it and its dependants are disabled`);
    this.markFailed(id, { phase, message });
    for (const d of dependants) this.markFailed(d, { phase: 'dependency', message: `Depends on "${id}", which failed during ${phase}.` });
  }

  private markFailed(id: string, failure: NonNullable<PluginStatus['failure']>): void {
    const s = this.statuses.get(id)!;
    s.state = 'failed';
    s.failure = failure;
    this.attribution.disabled.add(id);
  }

  private metricsPrincipal(token: string) {
    const expected = this.config.metrics.token;
    return expected && safeEqual(token, expected) ? ({ kind: 'service', name: 'metrics' } as const) : undefined;
  }

  pluginStatuses(): PluginStatus[] {
    return [...this.statuses.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  async listen(port = this.config.port, host = this.config.host): Promise<http.Server> {
    const handle = this.app.callback();
    const server = http.createServer((req, res) => {
      // Once shutting down, an answer closes its connection: the client must not send another request on it.
      if (this.stopping) res.setHeader('Connection', 'close');
      const done: Promise<void> = handle(req, res).finally(() => this.handling.delete(done));
      this.handling.add(done);
    });
    this.connections = trackConnections(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    return server;
  }

  /** Graceful: stop accepting, answer every request already accepted, drain jobs, shut plugins down, close the pool. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    if (this.server) await closeGracefully(this.server, this.connections, this.config.shutdownTimeoutMs, () => Promise.allSettled(this.handling));
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
    await this.events?.stop().catch(() => {});
    await this.jobs?.stop(true, this.config.shutdownTimeoutMs).catch((err) => this.logger.error({ err }, 'job queue stop failed'));
    await this.container.dispose().catch(() => {});
    await this.caches?.stop();
    await this.database?.close();
  }
}
