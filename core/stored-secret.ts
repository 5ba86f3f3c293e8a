import { randomBytes } from 'node:crypto';
import type { Db } from './db.ts';

/**
 * A random 256-bit secret (hex) kept in a plugin's own `(name, secret)` table: made by whichever process asks first,
 * then read by every instance, so all of them sign and check alike. Read once per process; a failed read is tried
 * again by the next caller, not remembered.
 */
export class StoredSecret {
  private secret?: Promise<string>;

  constructor(
    private readonly db: Db,
    private readonly table: string,
    private readonly name: string,
  ) {}

  get(): Promise<string> {
    return (this.secret ??= this.load().catch((err: unknown) => {
      this.secret = undefined;
      throw err;
    }));
  }

  private async load(): Promise<string> {
    await this.db(this.table).insert({ name: this.name, secret: randomBytes(32).toString('hex') }).onConflict('name').ignore();
    const row: { secret: string } = await this.db(this.table).where({ name: this.name }).first('secret');
    return row.secret;
  }
}
