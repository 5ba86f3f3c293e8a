import path from 'node:path';
import type { Logger } from 'pino';
import { KERNEL, type KernelContainer } from './container.ts';
import type { KernelHooks } from './hooks.ts';
import { openDatabase, type Database, type Db, type PgliteRuntime } from './db.ts';
import type { StrayQueries } from './held-connection.ts';
import { Jobs } from './jobs.ts';
import { EventBus } from './events.ts';
import { Idempotency } from './idempotency.ts';
import { BlobStoreSlot, LocalDiskBlobStore, type BlobStore } from './blobs.ts';
import { HttpMetrics } from './metrics.ts';
import { RequestLoad } from './request-load.ts';
import { Authz } from './authz.ts';
import { CacheSignals } from './cache.ts';
import { KernelPrivacy } from './privacy.ts';
import type { Host } from './host.ts';
import type { KernelConfig } from './config.ts';
import { Keyring } from './secret-box.ts';

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
    host: Host;
    authz: Authz;
    caches: CacheSignals;
    privacy: KernelPrivacy;
    load: RequestLoad;
    secrets: Keyring;
  }
}

/** What the kernel runs for every plugin: storage, caches, authorization, blobs, jobs, events, idempotency, metrics. */
export interface KernelServices {
  database: Database;
  caches: CacheSignals;
  authz: Authz;
  blobs: BlobStoreSlot;
  jobs: Jobs;
  events: EventBus;
  idempotency: Idempotency;
  privacy: KernelPrivacy;
  load: RequestLoad;
  secrets: Keyring;
  metrics?: HttpMetrics;
}

export interface StorageOptions {
  schema?: string;
  inMemory?: boolean;
  pgliteSeed?: Blob;
  pgliteRuntime?: PgliteRuntime;
  strayQueries?: StrayQueries;
  jobsMaintenanceSeconds?: number;
  /** Migrating prepares the queues but runs no worker or schedule. */
  migrateOnly: boolean;
}

/** Opens the database and builds the services on it, with the kernel's own purge jobs. */
export async function openKernelServices(config: KernelConfig, logger: Logger, hooks: KernelHooks, opts: StorageOptions): Promise<KernelServices> {
  const database = await openDatabase({
    url: config.databaseUrl,
    poolMax: config.databasePoolSize,
    dataDir: opts.inMemory ? undefined : config.dataDir,
    seed: opts.pgliteSeed,
    runtime: opts.inMemory ? opts.pgliteRuntime : undefined,
    schema: opts.schema,
    logger,
    strayQueries: opts.strayQueries,
  });
  try {
    const caches = new CacheSignals(database, logger, config.databaseUrl);
    const jobsSchema = `${opts.schema ?? 'public'}_jobs`.replace(/^public_jobs$/, 'pgboss');
    const jobs = new Jobs(database, logger, {
      enabled: config.jobs.enabled && !opts.migrateOnly,
      pollingIntervalSeconds: config.jobs.pollingIntervalSeconds,
      schema: jobsSchema,
      maintenanceIntervalSeconds: opts.jobsMaintenanceSeconds,
    });
    const events = new EventBus(database, jobs, logger, Math.max(1000, config.jobs.pollingIntervalSeconds * 1000));
    const idempotency = new Idempotency(database.knex, logger);
    jobs.define(KERNEL, {
      name: 'idempotency-purge',
      schedule: '17 * * * *',
      handler: async () => {
        const purged = await idempotency.purgeExpired();
        if (purged > 0) logger.debug({ purged }, 'expired idempotency keys deleted');
      },
    });
    jobs.define(KERNEL, {
      name: 'events-purge',
      schedule: '29 * * * *',
      handler: async () => {
        const purged = await events.purgeDispatched(config.events.retentionDays);
        if (purged > 0) logger.debug({ purged }, 'dispatched events past their retention deleted');
      },
    });
    return {
      database,
      caches,
      authz: new Authz(hooks, caches),
      blobs: new BlobStoreSlot(new LocalDiskBlobStore(path.resolve(config.baseDir, config.dataDir, 'blobs'), config.dataDir)),
      jobs,
      events,
      idempotency,
      privacy: new KernelPrivacy(jobsSchema, config.events.retentionDays),
      load: new RequestLoad(),
      secrets: new Keyring({ key: config.secrets.key, previousKeys: config.secrets.previousKeys, dataDir: path.resolve(config.baseDir, config.dataDir) }, logger),
      metrics: config.metrics.enabled ? new HttpMetrics() : undefined,
    };
  } catch (err) {
    await database.close();
    throw err;
  }
}

/** The kernel's DI keys, which every plugin may resolve. */
export function provideKernelServices(c: KernelContainer, config: KernelConfig, logger: Logger, hooks: KernelHooks, services: KernelServices, host: Host): void {
  c.provideKernel('config', config);
  c.provideKernel('logger', logger);
  c.provideKernel('db', services.database.knex);
  c.provideKernel('database', services.database);
  c.provideKernel('hooks', hooks);
  c.provideKernel('events', services.events);
  c.provideKernel('jobs', services.jobs);
  c.provideKernel('blobs', services.blobs);
  c.provideKernel('host', host);
  c.provideKernel('authz', services.authz);
  c.provideKernel('caches', services.caches);
  c.provideKernel('privacy', services.privacy);
  c.provideKernel('load', services.load);
  c.provideKernel('secrets', services.secrets);
}
