import { createHmac, randomBytes } from 'node:crypto';
import type { Db } from '../../core/db.ts';

/**
 * The instance's key for receipts' email hashes: keyed, so that nobody holding receipts can find a person in
 * them by hashing guessed addresses. The option wins; else one random key, made by whichever process asks first.
 */
export class ReceiptKey {
  private key?: Promise<string>;

  constructor(
    private readonly db: Db,
    private readonly configured: string | undefined,
  ) {}

  async hash(email: string): Promise<string> {
    // A failed first read is tried again by the next erasure, not remembered.
    const key = await (this.key ??= this.load().catch((err: unknown) => {
      this.key = undefined;
      throw err;
    }));
    return createHmac('sha256', key).update(email.toLowerCase()).digest('hex');
  }

  private async load(): Promise<string> {
    if (this.configured) return this.configured;
    await this.db('gdpr_keys').insert({ name: 'receipts', secret: randomBytes(32).toString('hex') }).onConflict('name').ignore();
    const row: { secret: string } = await this.db('gdpr_keys').where({ name: 'receipts' }).first('secret');
    return row.secret;
  }
}
