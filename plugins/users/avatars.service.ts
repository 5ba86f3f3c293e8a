import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { fileTypeFromBuffer, fileTypeFromFile } from 'file-type';
import type { BlobStore } from '../../core/blobs.ts';
import { unsupportedMediaType } from '../../core/errors.ts';
import type { UserService } from '../auth/public.ts';

/** 1 MiB: the largest avatar accepted, in bytes. */
export const AVATAR_MAX_BYTES = 1024 * 1024;
const AVATAR_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp'];

export interface Avatar {
  bytes: Buffer;
  contentType: string;
  etag: string;
}

export const avatarKey = (userId: string) => `avatars/${userId}`;

/** Whether two users share a workspace (the workspaces plugin's answer; without it, nobody shares one). */
export type SharesWorkspace = (userId: string, otherId: string) => Promise<boolean>;

/** Avatars are blobs keyed by user; the user's account (auth) says whether one is set. */
export class AvatarService {
  constructor(
    private readonly users: UserService,
    private readonly blobs: BlobStore,
    private readonly sharesWorkspace: SharesWorkspace,
  ) {}

  /** Stores the file at `path` as the user's avatar if its bytes are a PNG, JPEG or WebP image. */
  async set(userId: string, path: string): Promise<void> {
    const type = await fileTypeFromFile(path);
    if (!type || !AVATAR_TYPES.includes(type.mime)) {
      throw unsupportedMediaType(`The file is ${type ? type.mime : 'not a recognised image'}; an avatar must be a PNG, JPEG or WebP image.`);
    }
    const key = avatarKey(userId);
    await this.blobs.put(key, fs.createReadStream(path));
    await this.users.setAvatarKey(userId, key);
  }

  async remove(userId: string): Promise<void> {
    // The row first: once it says "no avatar", a missing blob can no longer be served half-way.
    await this.users.setAvatarKey(userId, null);
    await this.blobs.delete(avatarKey(userId));
  }

  /**
   * The avatar of `userId` as `viewer` may see it: their own, one of someone they share a workspace with, or any for
   * an instance admin. Null otherwise, exactly as for an unknown user or one without an avatar, so the answer does not
   * tell whether an account exists.
   */
  async getFor(viewer: { id: string; is_instance_admin: boolean }, userId: string): Promise<Avatar | null> {
    const visible = viewer.id === userId || viewer.is_instance_admin || (await this.sharesWorkspace(viewer.id, userId));
    return visible ? this.get(userId) : null;
  }

  private async get(userId: string): Promise<Avatar | null> {
    const key = (await this.users.findById(userId))?.avatar_key;
    if (!key) return null;
    const bytes = await this.blobs.read(key);
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
