import fsp from 'node:fs/promises';
import type { Context } from 'koa';
import { unsupportedMediaType, validationFailed } from './errors.ts';

/**
 * For `bodyType: 'multipart'` routes. The router deletes every temp file after the handler,
 * so a handler reads or moves the file before it returns and never cleans up itself.
 */

/** The temp path of the one file a multipart request sent in `field`. */
export function uploadedFile(ctx: Context, field: string): string {
  const file = ctx.request.files?.[field];
  if (Array.isArray(file)) throw validationFailed([{ pointer: `/${field}`, detail: 'Send exactly one file.' }]);
  if (file) return file.filepath;
  const fields = ctx.request.body as Record<string, unknown> | undefined;
  // A part without a Content-Type arrives as text: bytes, but not a file.
  if (fields && field in fields) throw unsupportedMediaType(`The "${field}" part is not a file; send it with a filename and a Content-Type.`);
  throw validationFailed([{ pointer: `/${field}`, detail: `The multipart field "${field}" is required.` }]);
}

/** Deletes every temp file the parser wrote for this request, used or not (the router calls it). */
export async function discardUploads(ctx: Context): Promise<void> {
  const files = Object.values(ctx.request.files ?? {}).flat();
  await Promise.all(files.map((f) => fsp.rm(f.filepath, { force: true })));
}
