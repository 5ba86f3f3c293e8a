import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { fileTypeFromBuffer, fileTypeFromFile } from 'file-type';
import type { Db } from '../../core/db.ts';
import type { BlobStore } from '../../core/blobs.ts';
import { unsupportedMediaType } from '../../core/errors.ts';

/** 1 MiB: the largest avatar accepted, in bytes. */
export const AVATAR_MAX_BYTES = 1024 * 1024;
const AVATAR_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp'];

export interface Avatar {
  bytes: Buffer;
  contentType: string;
  etag: string;
}

const avatarKey = (userId: string) => `avatars/${userId}`;

/** Avatars are blobs keyed by user; the kernel `users` row says whether one is set. */
export class AvatarService {
  constructor(private readonly db: Db, private readonly blobs: BlobStore) {}

  /** Stores the file at `path` as the user's avatar if its bytes are a PNG, JPEG or WebP image. */
  async set(userId: string, path: string): Promise<void> {
    const type = await fileTypeFromFile(path);
    if (!type || !AVATAR_TYPES.includes(type.mime)) {
      throw unsupportedMediaType(`The file is ${type ? type.mime : 'not a recognised image'}; an avatar must be a PNG, JPEG or WebP image.`);
    }
    const key = avatarKey(userId);
    await this.blobs.put(key, fs.createReadStream(path));
    await this.db('users').where({ id: userId }).update({ avatar_key: key, avatar_updated_at: this.db.fn.now(), updated_at: this.db.fn.now() });
  }

  async remove(userId: string): Promise<void> {
    // The row first: once it says "no avatar", a missing blob can no longer be served half-way.
    await this.db('users').where({ id: userId }).update({ avatar_key: null, avatar_updated_at: null, updated_at: this.db.fn.now() });
    await this.blobs.delete(avatarKey(userId));
  }

  async get(userId: string): Promise<Avatar | null> {
    const row = await this.db('users').where({ id: userId }).first('avatar_key');
    if (!row?.avatar_key) return null;
    const bytes = await this.blobs.read(row.avatar_key);
    if (!bytes) return null;
    // Only sniffed images are ever stored, so the bytes say their type again.
    const type = await fileTypeFromBuffer(bytes);
    return {
      bytes,
      contentType: type?.mime ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`,
    };
  }
}
