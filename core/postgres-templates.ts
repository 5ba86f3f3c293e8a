import pg from 'pg';
import { processAlive } from './process-alive.ts';

/**
 * Migrated PostgreSQL databases that test kernels are cloned from. `CREATE DATABASE … TEMPLATE` copies a migrated
 * database's files in about a tenth of a second, where replaying every migration (or a dump of them) into a fresh
 * schema took 0.6–1 s per kernel. Each kernel gets a database of its own, dropped when it stops.
 *
 * Names start with the database DATABASE_URL names and this process's id, so a run that was killed leaves databases
 * the next run recognises as stale (their process is gone) and drops.
 */
export class PostgresTemplates {
  private readonly base: URL;
  private readonly prefix: string;
  private admin?: Promise<pg.Client>;
  /** A connection of the drops' own: a DROP waiting on its checkpoint must not hold up the next kernel's CREATE. */
  private dropper?: Promise<pg.Client>;
  /** Per migrations key: the template database, or `null` while a failed attempt is answered to those waiting on it. */
  private readonly templates = new Map<string, Promise<string | null>>();
  private readonly sightings = new Map<string, number>();
  /**
   * Per common key, a copy made ahead for its next kernel (`null` if making it failed): CREATE DATABASE takes a few
   * hundred milliseconds, spent by the server while the tests run. The last one of a process is left to the stale
   * clean-up, as a killed run's are.
   */
  private readonly spares = new Map<string, Promise<string | null>>();
  private made = 0;
  /** Drops run one after another, behind the tests: nothing waits for them but the next drop. */
  private drops: Promise<unknown> = Promise.resolve();

  constructor(url: string) {
    this.base = new URL(url);
    // PostgreSQL names stop at 63 bytes: the base name is cut so that the longest suffix still fits.
    this.prefix = `${decodeURIComponent(this.base.pathname.slice(1)).slice(0, 32)}_${process.pid}_`;
  }

  /**
   * A new database cloned from the template of `key`, made first by `migrate` (given the template's URL, it answers
   * whether every plugin migrated). Undefined when there is no usable template (the next kernel of the key tries to
   * make one again), and for the first kernel of a key: the caller migrates as usual. A key seen once (a test's own
   * plugins) costs no template, and its plugins register once, as the test expects; a `common` key (the default
   * plugins) gets its template at its first kernel.
   */
  async clone(key: string, migrate: (url: string) => Promise<boolean>, common = false): Promise<string | undefined> {
    const seen = (this.sightings.get(key) ?? 0) + 1;
    this.sightings.set(key, seen);
    if (seen < 2 && !common) return undefined;
    let template = this.templates.get(key);
    if (!template) {
      template = this.makeTemplate(migrate);
      this.templates.set(key, template);
    }
    const source = await template;
    if (!source) {
      // The kernel whose options failed a plugin leaves the template to the next kernel of its key.
      if (this.templates.get(key) === template) this.release(key);
      return undefined;
    }
    const spare = this.spares.get(key);
    this.spares.delete(key);
    const name = (await spare) ?? (await this.copy(source));
    // The next kernel of a common key finds its copy made while this one's tests ran.
    if (common) this.spares.set(key, this.copy(source).catch(() => null));
    return this.urlOf(name);
  }

  private async copy(source: string): Promise<string> {
    const name = this.nextName('k');
    await this.query(`CREATE DATABASE "${name}" TEMPLATE "${source}"`);
    // A test's database goes when its kernel stops: its commits need not wait for the disk (a database's settings are
    // not copied with its files, so each clone is told).
    await this.query(`ALTER DATABASE "${name}" SET synchronous_commit = off`);
    return name;
  }

  private release(key: string): void {
    this.templates.delete(key);
    this.sightings.set(key, 1);
  }

  /**
   * Drops a database `clone` answered, in the background; connections still open to it are ended first. One that a
   * process ending leaves behind is dropped by the next run on the same base (its process is gone).
   */
  drop(url: string): void {
    const name = decodeURIComponent(new URL(url).pathname.slice(1));
    if (!name.startsWith(this.prefix)) return;
    this.dropper ??= connect(this.base);
    this.drops = this.drops.then(async () => (await this.dropper!).query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(() => undefined);
  }

  private async makeTemplate(migrate: (url: string) => Promise<boolean>): Promise<string | null> {
    if (this.made === 0) await this.dropStale();
    const name = this.nextName('t');
    await this.query(`CREATE DATABASE "${name}"`);
    await this.query(`ALTER DATABASE "${name}" SET synchronous_commit = off`);
    const ok = await migrate(this.urlOf(name)).catch(() => false);
    if (ok) return name;
    await this.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    return null;
  }

  /** Databases of earlier processes on the same base whose process is gone. */
  private async dropStale(): Promise<void> {
    const base = this.prefix.slice(0, this.prefix.length - `${process.pid}_`.length);
    const { rows } = await this.query(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [base]);
    for (const { datname } of rows as Array<{ datname: string }>) {
      const pid = Number(/^(\d+)_[kt]\d+$/.exec(datname.slice(base.length))?.[1]);
      if (!pid || pid === process.pid || processAlive(pid)) continue;
      await this.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => undefined);
    }
  }

  private nextName(kind: 'k' | 't'): string {
    return `${this.prefix}${kind}${++this.made}`;
  }

  private urlOf(name: string): string {
    const url = new URL(this.base);
    url.pathname = `/${encodeURIComponent(name)}`;
    return url.toString();
  }

  private async query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    this.admin ??= connect(this.base);
    return (await this.admin).query(text, values);
  }
}

async function connect(url: URL): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return client;
}
