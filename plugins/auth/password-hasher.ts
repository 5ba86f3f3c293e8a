import { hash, verify } from '@node-rs/argon2';
import type { AuthOptions } from './options.ts';

/**
 * Argon2id at the cost the options set. A stored hash carries its own cost, so raising or lowering it leaves
 * existing passwords working.
 */
export class PasswordHasher {
  /** Verified against when there is no hash to check, so the time taken does not tell whether an account exists. */
  private dummy: Promise<string> | undefined;

  constructor(private readonly cost: AuthOptions['passwordHashing']) {}

  hash(password: string): Promise<string> {
    return hash(password, { memoryCost: this.cost.memoryKiB, timeCost: this.cost.passes });
  }

  /** Whether `password` matches `stored`; false, in the time a real check takes, when there is no stored hash. */
  async matches(stored: string | null | undefined, password: string): Promise<boolean> {
    const ok = await verify(stored ?? (await (this.dummy ??= this.hash('tessera-timing-equaliser'))), password).catch(() => false);
    return ok && !!stored;
  }
}
