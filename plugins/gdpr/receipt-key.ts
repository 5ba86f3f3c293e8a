import { createHmac } from 'node:crypto';
import type { Db } from '../../core/db.ts';
import { StoredSecret } from '../../core/stored-secret.ts';

/**
 * The instance's key for receipts' email hashes: keyed, so that nobody holding receipts can find a person in
 * them by hashing guessed addresses. The option wins; else one random key, made by whichever process asks first.
 */
export class ReceiptKey {
  private readonly stored: StoredSecret;

  constructor(
    db: Db,
    private readonly configured: string | undefined,
  ) {
    this.stored = new StoredSecret(db, 'gdpr_keys', 'receipts');
  }

  async hash(email: string): Promise<string> {
    const key = this.configured || (await this.stored.get());
    return createHmac('sha256', key).update(email.toLowerCase()).digest('hex');
  }
}
