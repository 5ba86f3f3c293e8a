import type { Context } from 'koa';
import { validationFailed } from '../../core/errors.ts';
import { defineRoute, publicOrigin, type AnyRouteDef } from '../../core/routes.ts';
import { streamedUpload } from '../../core/streamed-uploads.ts';
import { askOf, contentReply } from './content-reply.ts';
import { FileErrors } from './errors.ts';
import { toFile } from './files.service.ts';
import { File, FileParams, Revoked, SignedUrl, SignedUrlBody, TokenParams, WorkspaceParams } from './schemas.ts';
import { UsageErrors } from '../../core/usage.ts';

const tags = ['files'];
const F = '/workspaces/{ws}/files';
const file = { type: 'file', param: 'id' };
/** Files belong to the workspace, not to a space: its members read them, its guests do not see them (404). */
const member = { role: 'member' as const, resource: file };
const NOT_LIVE = { description: 'No such file in the workspace, it was revoked, or the caller is a guest' };
const BYTES = {
  200: { description: 'The image bytes, `Content-Type` as detected, shown inline', contentType: 'image/*', headers: { ETag: { description: 'Answers 304 to a matching `If-None-Match`.' } } },
  304: { description: 'The cached copy is current' },
};

/** The upload's multipart body carries the file and nothing else: a field the route does not know is refused, not ignored. */
function refuseTextFields(ctx: Context): void {
  const fields = Object.keys((ctx.request.body as Record<string, unknown> | undefined) ?? {});
  if (fields.length > 0) throw validationFailed(fields.map((f) => ({ pointer: `/${f}`, detail: 'Unknown field; send only `file`.' })));
}

export function fileRoutes(maxBytes: number): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: F,
      operationId: 'files.upload',
      summary: 'Upload an image for documents',
      description:
        `Multipart, one part \`file\`: a PNG, JPEG, WebP or GIF image, judged by its bytes (the Content-Type sent is ignored; anything else → 415). ` +
        `At most \`files.maxBytes\` (${maxBytes} bytes here; 413 above, readable while still sending). Editors and up. ` +
        'Documents then show it as `image { attrs: { file_id } }`.',
      tags,
      auth: 'user',
      access: { role: 'editor' },
      params: WorkspaceParams,
      bodyType: 'upload',
      bodyLimit: maxBytes,
      status: 201,
      errors: [UsageErrors.plan_limit_exceeded, FileErrors.unsupported_media_type],
      responses: { 201: { description: 'The file', schema: File } },
      handler: async ({ principal, params, ctx, resolve }) => {
        const upload = streamedUpload(ctx, 'file');
        refuseTextFields(ctx);
        return resolve('files.service').create(principal, params.ws, upload);
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${F}/{id}`,
      operationId: 'files.get',
      summary: 'A file',
      description: 'Members and up; guests get 404.',
      tags,
      auth: 'user',
      access: member,
      params: FileParams,
      responses: { 200: { description: 'The file', schema: File }, 404: NOT_LIVE },
      handler: async ({ params, resolve }) => toFile(await resolve('files.service').get(params.ws, params.id)),
    }),
    defineRoute({
      method: 'GET',
      path: `${F}/{id}/content`,
      operationId: 'files.content',
      summary: "A file's bytes (its `url`)",
      description: "Needs the caller's credential (members and up). For a link without one, mint a signed URL.",
      tags,
      auth: 'user',
      access: member,
      params: FileParams,
      responses: { ...BYTES, 404: NOT_LIVE },
      handler: async ({ params, ctx, resolve }) => contentReply(await resolve('files.service').content(params.ws, params.id, askOf(ctx))),
    }),
    defineRoute({
      method: 'POST',
      path: `${F}/{id}/signed-url`,
      operationId: 'files.signUrl',
      example: { expires_in: 3600 },
      summary: 'Mint a link that serves the file without a credential',
      description:
        '`expires_in` seconds, 60 to 604800 (default 3600). The link works for anyone until `expires_at` or until the file is revoked, ' +
        'whichever comes first; nothing is stored per link, so it cannot be ended alone (revoking the file ends them all). Members and up.',
      tags,
      auth: 'user',
      access: member,
      params: FileParams,
      body: SignedUrlBody,
      status: 201,
      secret: true,
      idempotency: false,
      responses: { 201: { description: 'The link', schema: SignedUrl }, 404: NOT_LIVE },
      handler: ({ params, body, ctx, resolve }) => resolve('files.service').mint(params.ws, params.id, body.expires_in, publicOrigin(ctx, resolve('config'))),
    }),
    defineRoute({
      method: 'POST',
      path: `${F}/{id}/revoke`,
      operationId: 'files.revoke',
      summary: 'Revoke a file and every signed URL minted for it',
      description:
        'From the next request on, the file, its bytes and every signed URL minted for it answer 404, and documents can no longer add it; ' +
        'its bytes are deleted. For good: there is no undo. Its uploader (while an editor), or a creator or admin of the workspace.',
      tags,
      auth: 'user',
      access: { role: 'creator', resource: file, creatorRole: 'editor' },
      params: FileParams,
      responses: { 200: { description: 'Revoked', schema: Revoked }, 404: NOT_LIVE },
      handler: ({ params, resolve }) => resolve('files.service').revoke(params.ws, params.id),
    }),
    defineRoute({
      method: 'GET',
      path: '/files/signed/{token}',
      operationId: 'files.signed',
      summary: "A file's bytes through a signed URL",
      description: 'No credential needed. An unknown, altered, expired or revoked link: 404, alike.',
      tags,
      auth: 'public',
      params: TokenParams,
      responses: { ...BYTES, 404: { description: 'The link is unknown, altered, expired or its file revoked' } },
      handler: async ({ params, ctx, resolve }) => contentReply(await resolve('files.service').signed(params.token, askOf(ctx))),
    }),
  ];
}
