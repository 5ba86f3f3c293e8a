import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(bytes: Buffer, length: number): string {
  let out = '';
  for (const b of bytes) {
    // 248 = 62 * 4: rejecting higher bytes keeps every character equally likely.
    if (b < 248) out += BASE62[b % 62];
    if (out.length === length) return out;
  }
  return out.length === length ? out : out + base62(randomBytes(length), length - out.length);
}

/** A URL-safe random secret of `chars` base62 characters (30 chars ≈ 178 bits), with an optional prefix. */
export function randomSecret(prefix = '', chars = 30): string {
  return prefix + base62(randomBytes(chars + 8), chars);
}

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text)) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/**
 * A token with a CRC32 checksum in its last 6 characters (GitHub's scheme), so secret
 * scanners can tell a real token from random text without asking the server.
 */
export function checksummedSecret(prefix: string, chars = 30): string {
  const body = randomSecret('', chars);
  return `${prefix}${body}${checksum(body)}`;
}

export function hasValidChecksum(token: string, prefix: string): boolean {
  if (!token.startsWith(prefix) || token.length <= prefix.length + 6) return false;
  const body = token.slice(prefix.length, -6);
  return checksum(body) === token.slice(-6);
}

/** Tokens are high-entropy, so a fast hash is enough; only the hash is stored. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
