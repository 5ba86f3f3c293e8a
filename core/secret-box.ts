import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { StartupError } from './errors.ts';

/** What a sealed value starts with: the format, then the id of the key it was sealed under. */
const FORMAT = 'tsb1';
/** A key as configured: any text this long or longer (a passphrase or 32 random bytes in hex or base64). */
export const MIN_KEY_CHARS = 32;
/** The key file made in the data directory when no key is configured: one key per line, the current one first. */
export const KEY_FILE = 'secret-keys';
/** AES-GCM's nonce and tag, in bytes: a sealed value with shorter ones (a truncated tag is weaker) is refused. */
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A 256-bit AES key and its public id (a hash of the key, so the id tells nothing about it). */
export interface SecretKey {
  id: string;
  key: Buffer;
}

/** Raised when a sealed value cannot be opened: unknown key, altered bytes, or a value sealed for another row. */
export class SealBroken extends Error {
  constructor(detail: string) {
    super(`A sealed secret cannot be opened: ${detail}`);
  }
}

/** The key a configured text stands for: HKDF-SHA-256 over it, so a passphrase and random bytes alike give 256 bits. */
export function keyFromText(text: string): SecretKey {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(text, 'utf8'), Buffer.alloc(0), 'tessera secret box v1', 32));
  return { id: createHash('sha256').update('tessera key id').update(key).digest('hex').slice(0, 12), key };
}

/** A new random key, as the text a key file keeps. */
export function newKeyText(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Seals secrets (provider credentials, signing secrets) with AES-256-GCM under the instance key, the key's id beside
 * each ciphertext: `tsb1.<key id>.<iv>.<tag>.<ciphertext>` (base64url). `context` names what a value belongs to (a
 * connection's id and column) and is authenticated with it, so a sealed value copied into another row does not open.
 * Older keys open what they sealed until `npm run rotate-secret-key` has sealed everything again under the current one.
 */
export class SecretBox {
  private readonly byId: Map<string, SecretKey>;

  constructor(private readonly keys: SecretKey[]) {
    if (keys.length === 0) throw new Error('A secret box needs a key.');
    this.byId = new Map(keys.map((k) => [k.id, k]));
  }

  /** The id of the key new values are sealed under. */
  get currentKeyId(): string {
    return this.keys[0].id;
  }

  seal(plaintext: string, context: string): string {
    const { id, key } = this.keys[0];
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  open(sealed: string, context: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== FORMAT) throw new SealBroken('not a sealed value');
    const key = this.byId.get(parts[1]);
    if (!key) throw new SealBroken(`sealed under key ${parts[1]}, which this instance does not have`);
    const [iv, tag, body] = [bytesOf(parts[2]), bytesOf(parts[3]), bytesOf(parts[4])];
    if (iv?.length !== IV_BYTES || tag?.length !== TAG_BYTES || !body) throw new SealBroken('its parts are not those of a sealed value');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw new SealBroken('its bytes or its context do not match its tag');
    }
  }

  /** The key id a sealed value names. */
  static keyIdOf(sealed: string): string | undefined {
    const parts = sealed.split('.');
    return parts[0] === FORMAT ? parts[1] : undefined;
  }

  /** A box that seals under `key` and still opens what this one opens. */
  withCurrent(key: SecretKey): SecretBox {
    return new SecretBox([key, ...this.keys.filter((k) => k.id !== key.id)]);
  }

  /** The value sealed again under the current key (unchanged when it already is). */
  reseal(sealed: string, context: string): string {
    if (SecretBox.keyIdOf(sealed) === this.currentKeyId) return sealed;
    return this.seal(this.open(sealed, context), context);
  }
}

/**
 * A part's bytes, or undefined unless the text is exactly their base64url (Node's decoder skips what is not base64url
 * and ignores a last character's spare bits, so an altered character could otherwise decode to the same bytes).
 */
function bytesOf(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

/** Where the instance key comes from: the configuration (current and previous keys) or the data directory's key file. */
export interface KeySources {
  key?: string;
  previousKeys?: string[];
  /** The data directory, resolved. */
  dataDir: string;
}

/** The key file's texts, current first (empty when there is no file). */
export function readKeyFile(dataDir: string): string[] {
  const file = path.join(dataDir, KEY_FILE);
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').map((line) => line.trim()).filter(Boolean);
}

/** Writes the key file whole (a new file renamed over the old one), readable by its owner alone. */
export function writeKeyFile(dataDir: string, texts: string[]): void {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, KEY_FILE);
  const next = `${file}.${process.pid}.new`;
  fs.writeFileSync(next, `${texts.join('\n')}\n`, { mode: 0o600 });
  fs.renameSync(next, file);
}

/**
 * Makes the key file with `text` unless there is one already, and answers the file's texts. Linked into place, so it
 * appears whole and once: of instances (cluster workers) making it at the same time, all end up with the one key.
 */
function createKeyFile(dataDir: string, text: string): { texts: string[]; made: boolean } {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, KEY_FILE);
  const next = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.new`;
  fs.writeFileSync(next, `${text}\n`, { mode: 0o600 });
  try {
    fs.linkSync(next, file);
    return { texts: [text], made: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const texts = readKeyFile(dataDir);
    if (texts.length > 0) return { texts, made: false };
    // A file without a key (emptied by hand) is replaced, as when there was none.
    writeKeyFile(dataDir, [text]);
    return { texts: [text], made: true };
  } finally {
    fs.rmSync(next, { force: true });
  }
}

function checkedKey(text: string, at: string): SecretKey {
  if (text.length < MIN_KEY_CHARS) throw new StartupError(`Invalid configuration at "${at}": a secret key has at least ${MIN_KEY_CHARS} characters.`, 'config_invalid');
  return keyFromText(text);
}

/**
 * The instance's keys, current first: the configured key and previous keys, then those of the key file (which still
 * open what was sealed before a key was configured). With no key configured, the key file's first key is current; the
 * file is made with a new key the first time one is needed, and a warning says how to configure one instead.
 */
export class Keyring {
  private box?: SecretBox;

  constructor(private readonly sources: KeySources, private readonly logger: Logger) {
    if (sources.key !== undefined) checkedKey(sources.key, '/secrets/key');
    (sources.previousKeys ?? []).forEach((k, i) => checkedKey(k, `/secrets/previousKeys/${i}`));
  }

  /** The box, its keys read (and the key file made) on first use. */
  get(): SecretBox {
    return (this.box ??= new SecretBox(this.load()));
  }

  /** Forgets the keys read, so the next use reads them again (after a rotation rewrote the key file). */
  reload(): void {
    this.box = undefined;
  }

  private load(): SecretKey[] {
    const configured = [this.sources.key, ...(this.sources.previousKeys ?? [])].filter((k): k is string => k !== undefined);
    let fromFile = readKeyFile(this.sources.dataDir);
    if (configured.length === 0 && fromFile.length === 0) {
      const created = createKeyFile(this.sources.dataDir, newKeyText());
      fromFile = created.texts;
      if (created.made) {
        this.logger.warn(
          { file: path.join(this.sources.dataDir, KEY_FILE) },
          'No secret key is configured: a key file was made in the data directory. Set TESSERA_SECRET_KEY (or secrets.key) on every instance, then run npm run rotate-secret-key.',
        );
      }
    }
    const keys = [...configured, ...fromFile].map(keyFromText);
    return keys.filter((k, i) => keys.findIndex((o) => o.id === k.id) === i);
  }
}
