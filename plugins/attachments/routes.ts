import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { streamedUpload } from '../../core/streamed-uploads.ts';
import { AttachmentErrors } from './errors.ts';
import { Attachment, AttachmentParams, RecordParams, ThumbnailQuery, UploadBody } from './schemas.ts';
import { serveBlob } from './serving.ts';

const tags = ['attachments'];
const R = '/workspaces/{ws}/databases/{db}/records/{id}/attachments';
/** Whoever reads the database reads its files (a guest in its spaces too); editors add and remove them. */
const reader = { role: 'member' as const, resource: { type: 'database', param: 'db' } };
const editor = { role: 'editor' as const, resource: { type: 'database', param: 'db' } };
const NOT_LIVE = { description: 'No live record with this id in the database, or no such attachment on it (or its field was deleted)' };
const BYTES = {
  ETag: { description: 'The version of the bytes; send it back in `If-None-Match` for a 304' },
  'Content-Disposition': { description: '`inline` for png, jpeg, webp and gif; `attachment` for anything else, with the file name (RFC 6266)' },
};

const NO_THUMBNAIL = 'No thumbnail: this file is not a png, jpeg, webp or gif image, or it cannot be decoded within the pixel limit.';

const on = (params: { ws: string; db: string; id: string }) => ({ workspaceId: params.ws, databaseId: params.db, recordId: params.id });

export function attachmentRoutes(maxBytes: number): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: R,
      operationId: 'attachments.upload',
      summary: 'Upload a file to a record',
      description:
        `Multipart: \`file\` (required) and \`field\` (api_name or id of an attachment field; optional when the database has exactly one, 422 at \`/field\` otherwise). ` +
        `The file streams into the blob store; past ${maxBytes} bytes (option \`maxBytes\`) → 413 \`payload_too_large\`, answered while the client is still sending. ` +
        'An empty file (0 bytes) → 422 at `/file`. ' +
        'The type is read from the bytes, never from the part\'s Content-Type; bytes with no known signature are `application/octet-stream`. The attachment is ' +
        'appended to the record\'s cell: a record write (`record.updated`, a new version). Images get their thumbnails made by a job.',
      tags,
      auth: 'user',
      access: editor,
      params: RecordParams,
      body: UploadBody,
      bodyType: 'upload',
      bodyLimit: maxBytes,
      status: 201,
      responses: { 201: { description: 'The attachment', schema: Attachment }, 404: NOT_LIVE, 413: { description: 'The file is larger than `maxBytes`' } },
      handler: async ({ principal, params, ctx, resolve }) => {
        const fields = (ctx.request.body ?? {}) as Record<string, unknown>;
        const unknown = Object.keys(fields).filter((k) => k !== 'field');
        if (unknown.length > 0) throw validationFailed(unknown.map((k) => ({ pointer: `/${k}`, detail: 'Unknown multipart field; send `file` and, optionally, `field`.' })));
        const field = fields.field;
        if (field !== undefined && (typeof field !== 'string' || field.length === 0 || field.length > 200)) throw validationFailed([{ pointer: '/field', detail: 'Name one attachment field, by api_name or id.' }]);
        const upload = streamedUpload(ctx, 'file');
        const attachment = await resolve('attachments.service').upload(principal, on(params), field, upload);
        upload.keep();
        return attachment;
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${R}/{aid}`,
      operationId: 'attachments.get',
      summary: 'Get an attachment',
      tags,
      auth: 'user',
      access: reader,
      params: AttachmentParams,
      responses: { 200: { description: 'The attachment', schema: Attachment }, 404: NOT_LIVE },
      handler: ({ params, resolve }) => resolve('attachments.service').get(on(params), params.aid),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${R}/{aid}`,
      operationId: 'attachments.delete',
      summary: 'Delete an attachment',
      description: 'Takes it out of its cell (a record write); its bytes are deleted once that commits, unless a duplicate of the record still shows them.',
      tags,
      auth: 'user',
      access: editor,
      params: AttachmentParams,
      responses: { 204: { description: 'Deleted' }, 404: NOT_LIVE },
      handler: ({ principal, params, resolve }) => resolve('attachments.service').delete(principal, on(params), params.aid),
    }),
    defineRoute({
      method: 'GET',
      path: `${R}/{aid}/content`,
      operationId: 'attachments.content',
      summary: "An attachment's bytes",
      description:
        '`Content-Type` as detected from the bytes, `X-Content-Type-Options: nosniff`, `Content-Disposition: inline` for png/jpeg/webp/gif and `attachment` ' +
        'otherwise. `ETag` (304 on `If-None-Match`), `Accept-Ranges: bytes`: one range `bytes=a-b`, `a-` or `-n` → 206 with `Content-Range`; a range starting ' +
        'past the end → 416; several ranges → the whole file (200). `If-Range` with the current ETag.',
      tags,
      auth: 'user',
      access: reader,
      params: AttachmentParams,
      responses: {
        200: { description: "The bytes, as the type detected from them (the attachment's `mime_type`)", contentType: '*/*', headers: BYTES },
        206: { description: 'The range asked for', contentType: '*/*', headers: { ...BYTES, 'Content-Range': { description: '`bytes a-b/size`' } } },
        304: { description: 'The cached copy is current' },
        404: NOT_LIVE,
        416: { description: 'The range starts past the end (`Content-Range: bytes */size`)' },
      },
      errors: [AttachmentErrors.range_not_satisfiable],
      handler: async ({ params, ctx, resolve }) => {
        const { attachment, blob } = await resolve('attachments.service').locate(on(params), params.aid);
        return serveBlob(ctx, resolve('blobs'), { key: blob.key, size: Number(blob.size), mimeType: blob.mime_type, name: attachment.name });
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${R}/{aid}/thumbnail`,
      operationId: 'attachments.thumbnail',
      summary: "An image attachment's thumbnail (WebP)",
      description:
        '`?size=small` (default; 200 px on the longest side) or `large` (800 px); never enlarged, EXIF orientation applied. Made by a job after the upload, ' +
        'or now if asked for first. 404 for anything but a png, jpeg, webp or gif, and for an image no thumbnail can be made of (more than 100 megapixels ' +
        'announced, or bytes that do not decode).',
      tags,
      auth: 'user',
      access: reader,
      params: AttachmentParams,
      query: ThumbnailQuery,
      responses: {
        200: { description: 'The thumbnail', contentType: 'image/webp', headers: { ETag: BYTES.ETag } },
        304: { description: 'The cached copy is current' },
        404: NOT_LIVE,
      },
      handler: async ({ params, query, ctx, resolve }) => {
        const { attachment, blob } = await resolve('attachments.service').locate(on(params), params.aid);
        const thumbnail = await resolve('attachments.thumbnails').find(blob, query.size ?? 'small');
        if (!thumbnail) throw notFound(NO_THUMBNAIL);
        const name = `${attachment.name.replace(/\.[^.]*$/, '')}-${query.size ?? 'small'}.webp`;
        return serveBlob(ctx, resolve('blobs'), { ...thumbnail, mimeType: 'image/webp', name });
      },
    }),
  ];
}

