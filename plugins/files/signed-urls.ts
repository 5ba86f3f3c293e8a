import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../core/db.ts';
import { StoredSecret } from '../../core/stored-secret.ts';

/**
 * Signed URL tokens: `base64url(file id ‖ expiry ‖ generation ‖ MAC)`, 48 bytes, 64 characters. The MAC is
 * HMAC-SHA256 over the first 24 bytes, cut to 192 bits. Nothing is stored per URL: bumping a file's generation
 * makes every token minted before fail the check, and the expiry is inside what is signed.
 */

const PAYLOAD_BYTES = 24;
const MAC_BYTES = 24;
/** Keeps these MACs from ever being valid for another use of the same key. */
const DOMAIN = 'tessera.files.signed-url.v1\0';

export interface SignedClaim {
  fileId: string;
  /** Unix seconds. */
  expiresAt: number;
  generation: number;
}

/**
 * The HMAC key. The option wins; else one random key kept in `files_keys`, made by whichever process asks first
 * (every instance then signs and checks with the same one).
 */
export class SigningKey {
  private readonly stored: StoredSecret;

  constructor(
    db: Db,
    private readonly configured: string | undefined,
  ) {
    this.stored = new StoredSecret(db, 'files_keys', 'signed-urls');
  }

  async get(): Promise<Buffer> {
    return this.configured ? Buffer.from(this.configured, 'utf8') : Buffer.from(await this.stored.get(), 'hex');
  }
}

function mac(key: Buffer, payload: Buffer): Buffer {
  return createHmac('sha256', key).update(DOMAIN).update(payload).digest().subarray(0, MAC_BYTES);
}

export function signToken(key: Buffer, claim: SignedClaim): string {
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  Buffer.from(claim.fileId.replace(/-/g, ''), 'hex').copy(payload, 0);
  payload.writeUInt32BE(claim.expiresAt, 16);
  payload.writeUInt32BE(claim.generation, 20);
  return Buffer.concat([payload, mac(key, payload)]).toString('base64url');
}

/** The claim a token carries when its MAC is ours (compared in constant time); null for anything else. Expiry is the caller's to check. */
export function verifyToken(key: Buffer, token: string): SignedClaim | null {
  if (!/^[A-Za-z0-9_-]{64}$/.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length !== PAYLOAD_BYTES + MAC_BYTES) return null;
  const payload = bytes.subarray(0, PAYLOAD_BYTES);
  if (!timingSafeEqual(bytes.subarray(PAYLOAD_BYTES), mac(key, payload))) return null;
  const hex = payload.subarray(0, 16).toString('hex');
  return {
    fileId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    expiresAt: payload.readUInt32BE(16),
    generation: payload.readUInt32BE(20),
  };
}
