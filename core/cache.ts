import type { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from 'pino';
import { SIGNAL_CHANNEL, type Database } from './db.ts';

/**
 * For a migration: the trigger that signals `topic`, keyed by `keyColumn`, whenever rows of
 * `table` change (`on`: which changes; a table whose new rows nobody has cached can skip INSERT).
 */
export async function createSignalTrigger(knex: Knex, table: string, topic: string, keyColumn: string, on = 'INSERT OR UPDATE OR DELETE'): Promise<void> {
  // Trigger arguments are literals (DDL takes no parameters): names from code, checked.
  for (const name of [table, topic, keyColumn]) if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not a plain identifier: "${name}".`);
  await knex.raw(`CREATE TRIGGER "${table}_signal_cache" AFTER ${on} ON "${table}" FOR EACH ROW EXECUTE FUNCTION tessera_signal_cache('${topic}', '${keyColumn}')`);
}

export async function dropSignalTrigger(knex: Knex, table: string): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS ?? ON ??', [`${table}_signal_cache`, table]);
}

/** What a topic's signal drops from a cache: the group named by the signal's key, or everything. */
export type TopicScope = 'group' | 'all';

export interface LocalCacheOptions {
  /** Topics that invalidate this cache, and how much each drops. */
  topics: Record<string, TopicScope>;
  /** Groups kept at most; the oldest go first. */
  maxGroups?: number;
}

/**
 * One process's cache of facts read on every request (memberships, grants, fields, tokens).
 * Entries sit in groups (a workspace, a database) that a signal drops whole. A load that
 * overlapped an invalidation is answered but not kept: the `epoch` it started under is gone,
 * so a reader that read the old row just before a commit cannot put it back after the drop.
 */
export class LocalCache<V> {
  private readonly groups = new Map<string, Map<string, V>>();
  private epoch = 0;

  constructor(
    readonly name: string,
    readonly options: LocalCacheOptions,
    private readonly enabled: () => boolean,
  ) {}

  async get(group: string, key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.peek(group, key);
    if (hit !== undefined) return hit;
    if (!this.enabled()) return load();
    const epoch = this.epoch;
    const value = await load();
    if (epoch === this.epoch && value !== undefined) this.keep(group, key, value);
    return value;
  }

  /**
   * Loads several entries at once: `load` answers rows and `entry` says which group and key each
   * row is kept under, and its value. The same epoch rule as `get` decides what is kept.
   */
  async loadMany<R>(load: () => Promise<R[]>, entry: (row: R) => [group: string, key: string, value: V]): Promise<R[]> {
    const epoch = this.epoch;
    const rows = await load();
    if (this.enabled() && epoch === this.epoch) for (const row of rows) this.keep(...entry(row));
    return rows;
  }

  /** What is kept for `key` in `group`, without loading. */
  peek(group: string, key: string): V | undefined {
    return this.groups.get(group)?.get(key);
  }

  /** Drops one group, or everything. */
  drop(group?: string): void {
    this.epoch++;
    if (group === undefined) this.groups.clear();
    else this.groups.delete(group);
  }

  private keep(group: string, key: string, value: V): void {
    let entries = this.groups.get(group);
    if (!entries) {
      const max = this.options.maxGroups ?? 10_000;
      if (this.groups.size >= max) this.groups.delete(this.groups.keys().next().value!);
      entries = new Map();
      this.groups.set(group, entries);
    }
    entries.set(key, value);
  }
}

const RECONNECT_MS = [100, 500, 1000, 5000, 15000];
/**
 * How the listening connection shows in `pg_stat_activity`: named with its schema, so that an operator (or a test)
 * tells apart the instances sharing one server. PostgreSQL keeps 63 bytes of it.
 */
export function listenerName(schema: string): string {
  return `tessera-cache-signals:${schema}`.slice(0, 63);
}

/**
 * Keeps the process's LocalCaches true. Changes arrive as notifications from the triggers
 * plugins put on the tables behind each topic (`tessera_signal_cache`). Every pooled
 * connection listens, so the writing process hears its own change before its COMMIT returns;
 * a dedicated connection hears other processes' while the pool is idle. While that one is
 * down nothing is kept: every lookup reads the database. PGlite is one process and hands
 * notifications over as the committing statement returns.
 */
export class CacheSignals {
  private readonly caches: Array<LocalCache<any>> = [];
  private listening = false;
  private stopped = false;
  private client: pg.Client | null = null;
  private attempt = 0;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
    private readonly connectionString?: string,
  ) {
    database.onSignal((payload) => this.receive(payload));
  }

  create<V>(name: string, options: LocalCacheOptions): LocalCache<V> {
    const cache = new LocalCache<V>(name, options, () => this.listening);
    this.caches.push(cache);
    return cache;
  }

  async start(): Promise<void> {
    if (this.database.kind === 'pglite') this.listening = true;
    else await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.listening = false;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, application_name: listenerName(this.database.schema) });
    client.on('notification', (msg) => msg.channel === SIGNAL_CHANNEL && this.receive(msg.payload ?? ''));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${SIGNAL_CHANNEL}`);
    } catch (err) {
      this.lost(client, err as Error);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.attempt = 0;
    // Whatever changed while nobody listened is unknown: start empty.
    for (const cache of this.caches) cache.drop();
    this.listening = true;
  }

  private lost(client: pg.Client, err?: Error): void {
    if (this.client !== null && this.client !== client) return;
    this.client = null;
    this.listening = false;
    for (const cache of this.caches) cache.drop();
    client.end().catch(() => {});
    if (this.stopped || this.retry) return;
    this.logger.warn({ err }, 'cache signal listener lost; caches are off until it reconnects');
    const delay = RECONNECT_MS[Math.min(this.attempt++, RECONNECT_MS.length - 1)];
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, delay);
  }

  private receive(payload: string): void {
    const [schema, topic, key] = payload.split('|');
    if (schema !== this.database.schema || topic === undefined) return;
    for (const cache of this.caches) {
      const scope = cache.options.topics[topic];
      if (scope) cache.drop(scope === 'group' && key ? key : undefined);
    }
  }
}
