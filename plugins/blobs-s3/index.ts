import { definePlugin } from '../../core/plugin.ts';
import { S3Options } from './schemas.ts';
import { S3BlobStore } from './s3-store.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'blobs-s3.store': S3BlobStore;
  }
}

/**
 * Puts the instance's blobs (attachments, files, avatars, exports) in an S3-compatible bucket instead of the local
 * disk. Off unless the configuration turns it on (`"blobs-s3": { "enabled": true, "options": { … } }`).
 */
export default definePlugin<S3Options>({
  id: 'blobs-s3',
  version: '1.0.0',
  kernel: '^1.0.0',
  enabledByDefault: false,
  optionsSchema: S3Options,
  register(ctx) {
    const { accessKeyId, secretAccessKey } = ctx.options;
    if (!accessKeyId !== !secretAccessKey) {
      throw new Error("set both accessKeyId and secretAccessKey, or neither (the SDK's default credential chain)");
    }
    const store = new S3BlobStore(ctx.options);
    ctx.provideBlobStore(store);
    ctx.provide('store', () => store);
  },
  async boot(ctx) {
    const problem = await ctx.resolve('blobs-s3.store').check();
    // The kernel names the plugin and the phase; the bucket, the endpoint and the cause are for the operator to fix.
    if (problem) throw new Error(problem);
  },
  shutdown(ctx) {
    ctx.resolve('blobs-s3.store').close();
  },
});
