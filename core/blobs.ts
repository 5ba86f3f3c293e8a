import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';

export interface BlobInfo {
  key: string;
  size: number;
}

/** Where attachments, avatars and exports live; an S3-compatible store can be a plugin. */
export interface BlobStore {
  put(key: string, data: Buffer | Readable): Promise<BlobInfo>;
  get(key: string): Promise<Readable | null>;
  read(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
}

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** Blobs as files under a root directory; writes land atomically through a temp file. */
export class LocalDiskBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    if (!SAFE_KEY.test(key) || key.split('/').some((s) => s === '..' || s === '.')) {
      throw new Error(`Invalid blob key "${key}"`);
    }
    return path.join(this.root, key);
  }

  async put(key: string, data: Buffer | Readable): Promise<BlobInfo> {
    const file = this.pathOf(key);
    await fsp.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${randomUUID()}.tmp`;
    try {
      if (Buffer.isBuffer(data)) await fsp.writeFile(tmp, data);
      else await pipeline(data, fs.createWriteStream(tmp));
      await fsp.rename(tmp, file);
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      throw err;
    }
    const { size } = await fsp.stat(file);
    return { key, size };
  }

  async get(key: string): Promise<Readable | null> {
    const file = this.pathOf(key);
    return (await this.exists(key)) ? fs.createReadStream(file) : null;
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
