import { Reply } from '../../core/routes.ts';
import type { Context } from 'koa';
import { etagOf, type ContentAsk, type FileContent } from './files.service.ts';

/** RFC 6266 / 8187: an ASCII fallback and the exact UTF-8 name (names are already stripped of controls). */
function disposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/**
 * A file's bytes as an answer: only sniffed images are stored, so they are shown inline with the type their bytes
 * said (nosniff is on every answer). `no-cache`: a cached copy is checked again (a cheap 304), so a revoked file
 * stops at the next request.
 */
export function contentReply({ file, fresh, body }: FileContent): Reply {
  const headers = { ETag: etagOf(file), 'Cache-Control': 'private, no-cache' };
  if (fresh) return new Reply(304, undefined, headers);
  return new Reply(200, body ?? undefined, { ...headers, 'Content-Length': String(file.size), 'Content-Disposition': disposition(file.name) }, file.mime_type);
}

/** What a request for a file's bytes asks. */
export const askOf = (ctx: Context): ContentAsk => ({ ifNoneMatch: ctx.get('if-none-match'), head: ctx.method === 'HEAD' });
