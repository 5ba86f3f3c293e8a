import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { checkWritableDir } from './preflight.ts';

export interface BlobInfo {
  key: string;
  size: number;
}

/** Bytes `start` to `end` of a blob, both included (an HTTP range, resolved against the blob's size). */
export interface BlobRange {
  start: number;
  end: number;
}

export interface PutOptions {
  /** What the bytes are, for stores that keep it beside them (S3's Content-Type). */
  contentType?: string;
}

/**
 * Where attachments, files, avatars and exports live: local disk by default; a plugin may bring another store
 * (`PluginContext.provideBlobStore`). A `put` fed a stream that fails stores nothing under the key and rejects.
 */
export interface BlobStore {
  put(key: string, data: Buffer | Readable, opts?: PutOptions): Promise<BlobInfo>;
  /** The bytes as a stream (only `range`, when given), or null when there is no such blob. */
  get(key: string, range?: BlobRange): Promise<Readable | null>;
  read(key: string): Promise<Buffer | null>;
  /** The blob's size, or null when there is no such blob. */
  stat(key: string): Promise<{ size: number } | null>;
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Checked at start, before any work: throws a StartupError saying what to fix when the store cannot be written. */
  assertWritable?(): void | Promise<void>;
}

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** Every store takes the same keys: relative, `/`-separated, no empty, dot-led or `..` segments (nothing escapes a root or prefix). */
export function assertBlobKey(key: string): void {
  if (!SAFE_KEY.test(key) || key.split('/').some((s) => s === '..' || s === '.')) throw new Error(`Invalid blob key "${key}"`);
}

/** Blobs as files under a root directory; writes land atomically through a temp file. */
export class LocalDiskBlobStore implements BlobStore {
  /** `dataDir`: the DATA_DIR the root is in, as the operator named it. */
  constructor(private readonly root: string, private readonly dataDir = path.dirname(root)) {}

  assertWritable(): void {
    checkWritableDir(this.root, this.dataDir, 'uploads are stored');
  }

  private pathOf(key: string): string {
    assertBlobKey(key);
    return path.join(this.root, key);
  }

  async put(key: string, data: Buffer | Readable): Promise<BlobInfo> {
    const file = this.pathOf(key);
    await fsp.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${randomUUID()}.tmp`;
    let out: fs.WriteStream | undefined;
    try {
      if (Buffer.isBuffer(data)) await fsp.writeFile(tmp, data);
      else await pipeline(data, (out = fs.createWriteStream(tmp)));
      await fsp.rename(tmp, file);
    } catch (err) {
      // A source that fails at once can fail while the write stream is still opening its file: removed before the
      // stream has made it, the temp file would stay behind.
      const opening = out;
      if (opening && !opening.closed) await new Promise<void>((closed) => opening.once('close', closed));
      await fsp.rm(tmp, { force: true });
      throw err;
    }
    const { size } = await fsp.stat(file);
    return { key, size };
  }

  async get(key: string, range?: BlobRange): Promise<Readable | null> {
    const file = this.pathOf(key);
    if (!(await this.exists(key))) return null;
    return fs.createReadStream(file, range ? { start: range.start, end: range.end } : undefined);
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      const { size } = await fsp.stat(this.pathOf(key));
      return { size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async read(key: string): Promise<Buffer | null> {
    try {
      return await fsp.readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.pathOf(key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    try {
      await fsp.access(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * The kernel's blob store: local disk until a plugin brings another one at register time. Every plugin holds this
 * object, so the store chosen is the one they all use, whichever registered first.
 */
export class BlobStoreSlot implements BlobStore {
  private owner: string | undefined;

  constructor(private store: BlobStore) {}

  /** Puts `store` in the slot for the whole instance; a second plugin doing so is refused with the first one named. */
  use(store: BlobStore, owner: string): void {
    if (this.owner) throw new Error(`The blob store is already provided by plugin "${this.owner}".`);
    this.store = store;
    this.owner = owner;
  }

  /** The plugin whose store is in use, or undefined for the local disk. */
  get provider(): string | undefined {
    return this.owner;
  }

  put(key: string, data: Buffer | Readable, opts?: PutOptions): Promise<BlobInfo> {
    return this.store.put(key, data, opts);
  }
  get(key: string, range?: BlobRange): Promise<Readable | null> {
    return this.store.get(key, range);
  }
  read(key: string): Promise<Buffer | null> {
    return this.store.read(key);
  }
  stat(key: string): Promise<{ size: number } | null> {
    return this.store.stat(key);
  }
  delete(key: string): Promise<void> {
    return this.store.delete(key);
  }
  exists(key: string): Promise<boolean> {
    return this.store.exists(key);
  }
  async assertWritable(): Promise<void> {
    await this.store.assertWritable?.();
  }
}
