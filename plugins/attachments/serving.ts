import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { BlobRange, BlobStore } from '../../core/blobs.ts';
import { notFound } from '../../core/errors.ts';
import { Reply } from '../../core/routes.ts';
import { isImage } from '../files/public.ts';
import { AttachmentErrors } from './errors.ts';

/** What is served: a blob, its type, the name a download takes. */
export interface Served {
  key: string;
  size: number;
  mimeType: string;
  name: string;
}

/** Bytes never change under a key, and a key is never reused: the key is the version. */
const etagOf = (key: string) => `"${createHash('sha256').update(key).digest('base64url').slice(0, 27)}"`;

/**
 * A blob as an HTTP answer, streamed: the type as detected, `nosniff` (from the kernel's security headers),
 * `inline` for images and `attachment` for anything else, so that an HTML or SVG file is never rendered from the
 * API's origin. `ETag` and `If-None-Match` (304); one byte range (206), past the end → 416, several ranges or a
 * malformed one → the whole file (RFC 9110 lets a server ignore Range). Bytes go out as they are stored: no
 * compression, so ranges and lengths mean the stored bytes.
 */
export async function serveBlob(ctx: Context, blobs: BlobStore, file: Served): Promise<Reply> {
  const etag = etagOf(file.key);
  const headers: Record<string, string> = {
    ETag: etag,
    'Cache-Control': 'private, no-cache',
    'Accept-Ranges': 'bytes',
    'Content-Disposition': contentDisposition(isImage(file.mimeType) ? 'inline' : 'attachment', file.name),
  };
  ctx.compress = false;
  if (matches(ctx.get('if-none-match'), etag)) return new Reply(304, undefined, headers);
  const ifRange = ctx.get('if-range');
  const range = !ifRange || ifRange === etag ? rangeOf(ctx.get('range'), file.size) : undefined;
  if (range === 'unsatisfiable') throw AttachmentErrors.range_not_satisfiable(file.size);
  const body = await blobs.get(file.key, range);
  if (!body) throw notFound('The bytes of this file are missing from the blob store.');
  if (!range) return new Reply(200, body, { ...headers, 'Content-Length': String(file.size) }, file.mimeType);
  return new Reply(206, body, { ...headers, 'Content-Length': String(range.end - range.start + 1), 'Content-Range': `bytes ${range.start}-${range.end}/${file.size}` }, file.mimeType);
}

function matches(header: string, etag: string): boolean {
  if (!header) return false;
  return header.trim() === '*' || header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** One `bytes=` range resolved against `size`; undefined for none, several or a malformed one. */
function rangeOf(header: string, size: number): BlobRange | 'unsatisfiable' | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  if (start >= size) return 'unsatisfiable';
  const end = m[2] === '' ? size - 1 : Number(m[2]);
  if (end < start) return undefined;
  return { start, end: Math.min(end, size - 1) };
}

/** RFC 6266: a plain ASCII `filename` for old clients, the real name in `filename*` (RFC 8187). */
function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
