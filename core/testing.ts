import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import supertest from 'supertest';
import type { Logger } from 'pino';
import { Kernel, type PluginStatus } from './kernel.ts';
import { loadConfig, type ConfigInput, type KernelConfig } from './config.ts';
import type { Plugin } from './plugin.ts';
import type { KernelContainer } from './container.ts';
import { importPlugin } from './loader.ts';
import { emptyClusterDump, HeldBlob, holdsDatabase, loadPgliteRuntime, pgliteDirOf, type Db, type PgliteRuntime } from './db.ts';
import { PgliteTemplates, TemplateMismatch, allMigrated, migrationsKey } from './pglite-templates.ts';
import { PostgresTemplates } from './postgres-templates.ts';
import { EVENTS_TABLE, eventsOfRow, OUTBOX_COLUMNS, type DomainEvent } from './events.ts';

export { signUp, createWorkspace, joinWorkspace, type SignedUpUser, type CreatedWorkspace, type JoinedMember } from './testing-people.ts';
export { CALLERS, PEOPLE, perWorld, type Caller, type MatrixRequest, type MatrixRow, type People, type Person, type World } from './testing-matrix.ts';

export interface TestKernelOptions {
  /**
   * Plugins to load, with the plugins their `dependsOn` name that the test plugin source locates;
   * defaults to the source's defaults. Third-party plugins go here or in config `resolve`.
   */
  plugins?: Plugin[];
  /** Ids of plugins the source locates, loaded beside `plugins` with their dependencies: an optional dependency turned on. */
  also?: string[];
  config?: ConfigInput;
  /** Reuse a PostgreSQL schema or PGlite directory (restart tests); otherwise a fresh one. */
  storage?: TestStorage;
  jobsMaintenanceSeconds?: number;
  /** A logger of the test's own, to assert on what the kernel logs. */
  logger?: Logger;
}

/** Where a test kernel keeps its data; pass the same one to a second kernel to "restart". */
export interface TestStorage {
  schema?: string;
  /** The PostgreSQL database holding `schema`: a kernel's own clone of a migrated template, else DATABASE_URL's. */
  databaseUrl?: string;
  dataDir?: string;
}

export interface TestKernel {
  kernel: Kernel;
  request: supertest.Agent;
  container: KernelContainer;
  db: Db;
  storage: TestStorage;
  url: string;
  /** Stops the kernel; `keep` leaves the data for another kernel. */
  stop(opts?: { keep?: boolean }): Promise<void>;
}

/**
 * Where test kernels find the plugins a test does not pass. The kernel knows no plugin of its
 * own: a suite sets this once (this repository's test/setup.ts offers the built-ins).
 */
export interface TestPluginSource {
  /** What a kernel loads when the test names no plugins. */
  defaults: readonly Plugin[];
  /** The plugin a `dependsOn` names, as a config `resolve` specifier relative to `baseDir`; undefined when the source has none. */
  locate(id: string): string | undefined;
  baseDir: string;
}

let pluginSource: TestPluginSource = { defaults: [], locate: () => undefined, baseDir: process.cwd() };

export function useTestPlugins(source: TestPluginSource): void {
  pluginSource = source;
}

/** A fresh storage location: a PostgreSQL schema when DATABASE_URL is set, else a PGlite directory. */
export function newTestStorage(): TestStorage {
  const id = randomBytes(6).toString('hex');
  if (process.env.DATABASE_URL) return { schema: `t_${id}` };
  return { dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-test-')) };
}

/**
 * Boots a real kernel on in-memory PGlite (or, with DATABASE_URL, on PostgreSQL in a
 * schema of its own), listening on a loopback port.
 */
export async function startTestKernel(opts: TestKernelOptions = {}): Promise<TestKernel> {
  const started = performance.now();
  const { kernel, storage, cleanUp } = await startKernel(opts);
  kernelStarts.push(performance.now() - started);
  const server = await kernel.listen(0, '127.0.0.1');
  const { port } = server.address() as { port: number };
  const t: TestKernel = {
    kernel,
    request: supertest.agent(server),
    container: kernel.container,
    db: kernel.db,
    storage,
    url: `http://127.0.0.1:${port}`,
    async stop({ keep = false } = {}) {
      running.delete(t);
      await kernel.stop();
      if (!keep) await cleanUp();
    },
  };
  running.set(t, startedBy(new Error().stack ?? ''));
  return t;
}

/**
 * The events recorded in the outbox, one per event however they are stored (a bulk write's share a row), in id order:
 * `where` narrows by name and workspace.
 */
export async function recordedEvents(t: TestKernel, where: { name?: string; workspace_id?: string } = {}): Promise<Array<DomainEvent<any>>> {
  const rows = await t.db(EVENTS_TABLE).where(where).orderBy('id').select(OUTBOX_COLUMNS);
  return rows.flatMap(eventsOfRow);
}

/** How long each test kernel this process started took to start (ms): what a slow test file spends it on. */
export const kernelStarts: number[] = [];

/** The test kernels started and not stopped yet, with the test file line that started each. */
const running = new Map<TestKernel, string>();

function startedBy(stack: string): string {
  const frame = stack.split('\n').find((line) => /\/(test|examples)\//.test(line) && !line.includes('/core/'));
  return frame?.trim().replace(/^at /, '') ?? 'an unknown caller';
}

/**
 * Stops the test kernels still running and answers where each was started. A kernel a test forgot keeps polling its
 * jobs and events for as long as the test process lives, taking CPU from every test after it: the suite's root hook
 * calls this after each file.
 */
export async function stopForgottenKernels(): Promise<string[]> {
  const forgotten = [...running];
  await Promise.all(forgotten.map(([t]) => t.stop().catch(() => undefined)));
  return forgotten.map(([, origin]) => origin);
}

/** One initialised PGlite cluster per test process: in-memory kernels without a template start from its dump. */
let clusterDump: Promise<Blob> | undefined;
/** PGlite's engine, compiled once per test process for all its in-memory kernels. */
let pgliteRuntime: Promise<PgliteRuntime> | undefined;

/** The empty cluster, kept on disk for the next test process (and the parallel ones): initdb takes seconds. */
async function sharedEmptyCluster(): Promise<Blob> {
  const pglite = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  const { version } = JSON.parse(fs.readFileSync(path.join(pglite, '..', 'package.json'), 'utf8')) as { version: string };
  const file = path.join(os.tmpdir(), `tessera-pglite-${version}-empty-cluster.tar`);
  if (fs.existsSync(file)) return new HeldBlob(new Uint8Array(fs.readFileSync(file)));
  const dump = await emptyClusterDump();
  const partial = `${file}.${process.pid}`;
  fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(partial, file);
  return dump;
}
const pgliteTemplates = new PgliteTemplates();
/** Configurations (`exact` in startKernel) that failed a plugin: a template of their key holds more than they migrate. */
const failsPlugins = new Set<string>();
let postgresTemplates: PostgresTemplates | undefined;

/** The schema every cloned PostgreSQL database keeps its tables in (each clone is a database of its own). */
const CLONED_SCHEMA = 'tessera';

interface StartedKernel {
  kernel: Kernel;
  storage: TestStorage;
  /** Drops what the kernel stored, unless the test owns it. */
  cleanUp(): Promise<void>;
}

/**
 * A kernel on the storage the test gave, or on storage of its own: on PostgreSQL a clone of a database migrated once
 * per process for the same key (`migrationsKey`); on PGlite, in memory or in a directory holding no database yet,
 * from a dump taken after the same migrations.
 */
async function startKernel(opts: TestKernelOptions): Promise<StartedKernel> {
  const pg = process.env.DATABASE_URL;
  const plugins = opts.plugins ? await withDependencies(opts.plugins, opts.config, opts.also ?? []) : [...pluginSource.defaults];
  const blobDir = opts.storage?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-blobs-'));
  const config = testConfig(opts, plugins, blobDir, pg);
  // A kernel on storage of the test's own migrates what it finds, as a real one would, unless that is a PGlite
  // directory holding no database yet: its first start is any other's.
  const ownDir = !pg && opts.storage?.dataDir ? pgliteDirOf(opts.storage.dataDir) : undefined;
  const freshDir = !!ownDir && !holdsDatabase(ownDir);
  const wiring = (!opts.storage || freshDir) && config.migrateOnStart ? migrationsKey(plugins, config) : undefined;
  // The exact configuration, once it has failed a plugin, starts without templates from then on.
  const exact = JSON.stringify([wiring, config.plugins]);
  const key = wiring && !failsPlugins.has(exact) ? wiring : undefined;
  // Most kernels load the default plugins: their template is made by the first of them.
  const common = !opts.plugins && !opts.also?.length;
  const noteFailures = (statuses: readonly PluginStatus[]) => {
    const ok = allMigrated(statuses);
    if (!ok) failsPlugins.add(exact);
    return ok;
  };
  let storage: TestStorage = opts.storage ?? {};
  if (pg && !opts.storage) {
    // A test naming its own database URL (a proxy in front of PostgreSQL) gets a schema there, not a clone.
    const cloning = key && !opts.config?.databaseUrl;
    const migrate = async (url: string) => noteFailures(await migrateTemplate(config, plugins, url));
    const clone = cloning ? await (postgresTemplates ??= new PostgresTemplates(pg)).clone(key, migrate, common) : undefined;
    storage = clone ? { schema: CLONED_SCHEMA, databaseUrl: clone } : { schema: `t_${randomBytes(6).toString('hex')}` };
  }
  const cleanUp = async () => {
    if (!opts.storage) {
      if (storage.databaseUrl) postgresTemplates?.drop(storage.databaseUrl);
      // CI drops its whole database at the end, which costs far less than a DROP SCHEMA per kernel.
      else if (pg && storage.schema && process.env.TESSERA_TEST_KEEP_SCHEMAS !== '1') await dropSchemas(pg, storage.schema);
    }
    if (!opts.storage?.dataDir) fs.rmSync(blobDir, { recursive: true, force: true });
  };
  const inMemory = !pg && !storage.dataDir;
  const use = key && !pg ? await pgliteTemplates.use(key, common) : { template: undefined, capture: undefined, done: () => {} };
  try {
    const kernel = await Kernel.start({
      config: storage.databaseUrl ? { ...config, databaseUrl: storage.databaseUrl } : config,
      plugins,
      schema: storage.schema,
      inMemory,
      pgliteSeed: use.template ?? (inMemory ? await (clusterDump ??= sharedEmptyCluster()) : undefined),
      pgliteRuntime: inMemory ? await (pgliteRuntime ??= loadPgliteRuntime()) : undefined,
      strayQueries: 'fail',
      jobsMaintenanceSeconds: opts.jobsMaintenanceSeconds,
      logger: opts.logger,
      onMigrated: async (database, statuses) => {
        if (!noteFailures(statuses) && (use.template || storage.databaseUrl)) throw new TemplateMismatch();
        await use.capture?.(database, statuses);
      },
    });
    return { kernel, storage, cleanUp };
  } catch (err) {
    // A kernel that failed to start must not leave its database or directory behind, unless the caller owns them.
    await cleanUp();
    if (err instanceof TemplateMismatch) {
      // The directory's database came from the template: the next start must find none.
      if (freshDir) fs.rmSync(ownDir!, { recursive: true, force: true });
      return startKernel(opts);
    }
    throw err;
  } finally {
    use.done();
  }
}

function testConfig(opts: TestKernelOptions, plugins: Plugin[], dataDir: string, pg: string | undefined): KernelConfig {
  return loadConfig({
    env: {},
    input: {
      logLevel: (process.env.TEST_LOG_LEVEL as 'silent') ?? 'silent',
      databaseUrl: pg,
      // Every job queue's worker fetches at start, so a kernel opened as many connections as its pool allowed, each a
      // new backend warming its caches on a new database: on four record test files PostgreSQL spent a third less CPU
      // with two connections than with ten; three leaves room for a transaction and two pieces of work beside it.
      databasePoolSize: 3,
      ...opts.config,
      plugins: plugins.some((p) => p.id === 'auth') ? withTestAuth(opts.config?.plugins ?? {}) : (opts.config?.plugins ?? {}),
      dataDir,
    },
  });
}

/** Migrates a template database for `plugins` and `config`; answers how each plugin came through. */
async function migrateTemplate(config: KernelConfig, plugins: Plugin[], url: string): Promise<PluginStatus[]> {
  const kernel = await Kernel.start({ config: { ...config, databaseUrl: url }, plugins, schema: CLONED_SCHEMA, mode: 'migrate', strayQueries: 'fail' });
  const statuses = kernel.pluginStatuses();
  await kernel.stop();
  return statuses;
}

/** `plugins` and `also`, and the plugins their `dependsOn` name (transitively) that neither they nor the config's `resolve` provide. */
async function withDependencies(plugins: Plugin[], config: ConfigInput | undefined, also: string[]): Promise<Plugin[]> {
  const all = [...plugins];
  const present = new Set([...all.map((p) => p.id), ...Object.keys(config?.plugins ?? {}).filter((id) => config?.plugins?.[id]?.resolve)]);
  for (let i = -1; i < all.length; i++) {
    for (const id of i < 0 ? also : Object.keys(all[i].dependsOn ?? {})) {
      const spec = present.has(id) ? undefined : pluginSource.locate(id);
      // One the source does not know stays missing, for the loader to report.
      if (!spec) continue;
      present.add(id);
      all.push(await importPlugin(id, spec, pluginSource.baseDir));
    }
  }
  return all;
}

/**
 * Every test signs its users up from 127.0.0.1, hundreds per process: the per-IP sign-up limit is lifted, and each
 * password is hashed at the lowest cost (a default-cost hash takes 30–70 ms of a core, thousands of times a run),
 * unless a test sets `signUpRateLimit` or `passwordHashing` itself (the tests of those do).
 */
function withTestAuth(plugins: NonNullable<ConfigInput['plugins']>): NonNullable<ConfigInput['plugins']> {
  const auth = plugins.auth ?? {};
  return { ...plugins, auth: { ...auth, options: { signUpRateLimit: { maxPerIp: 1_000_000 }, passwordHashing: { memoryKiB: 1024, passes: 1 }, ...auth.options } } };
}

async function dropSchemas(url: string, schema: string): Promise<void> {
  const { default: pgLib } = await import('pg');
  const client = new pgLib.Client({ connectionString: url });
  await client.connect();
  try {
    // One DROP of a schema holding thousands of tables (PROPERTY_RUNS=1000) runs out of PostgreSQL's lock table: tables go a few hundred at a time first.
    for (;;) {
      const { rows } = await client.query(`SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = $1 LIMIT 200`, [schema]);
      if (rows.length === 0) break;
      await client.query(`DROP TABLE ${rows.map((r: { name: string }) => `"${schema}".${r.name}`).join(', ')} CASCADE`);
    }
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_jobs" CASCADE`);
  } finally {
    await client.end();
  }
}
