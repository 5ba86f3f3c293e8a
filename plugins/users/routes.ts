import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { notFound } from '../../core/errors.ts';
import { PublicUser } from '../auth/public.ts';
import { AvatarQuery, PatchPreferencesBody, Preferences, UserIdParams } from './schemas.ts';
import { AVATAR_MAX_BYTES } from './avatars.service.ts';
import { uploadedFile } from '../../core/uploads.ts';

const AVATAR_MAX_AGE_SECONDS = 3600;

export function usersRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/me/preferences',
      operationId: 'me.preferences.get',
      summary: 'The current user’s locale, time zone and notification delivery',
      description: 'Never-set preferences read as `locale: "en"`, `timezone: "UTC"`, `notifications: {}` (every type to inbox and email).',
      auth: 'user',
      responses: { 200: { description: 'The preferences', schema: Preferences } },
      handler: ({ user, resolve }) => resolve('users.preferences').get(user.id),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/me/preferences',
      operationId: 'me.preferences.update',
      example: { locale: 'en-GB', timezone: 'Europe/London' },
      summary: 'Change some preferences',
      description:
        'Given fields replace; `notifications` merges type by type, each given type replacing that type’s delivery ' +
        '(an omitted channel is on). An invalid locale or time zone is a 422 and nothing is stored.',
      auth: 'user',
      body: PatchPreferencesBody,
      responses: { 200: { description: 'The preferences after the change', schema: Preferences } },
      handler: ({ user, body, resolve }) => resolve('users.preferences').update(user.id, body),
    }),
    defineRoute({
      method: 'PUT',
      path: '/me/avatar',
      operationId: 'me.avatar.set',
      summary: 'Set the current user’s avatar',
      description:
        'multipart/form-data with the image in field `file`. PNG, JPEG or WebP, judged by the bytes (not the declared ' +
        'type or name); at most 1 MiB. 413 beyond that, however the body is sent (read stops at the cap); 415 for any ' +
        'other content (including an empty file) and, before reading, for a Content-Type without a usable boundary; ' +
        '422 when `file` is missing.',
      auth: 'user',
      bodyType: 'multipart',
      bodyLimit: AVATAR_MAX_BYTES,
      responses: { 200: { description: 'The user, with its new `avatar_url`', schema: PublicUser } },
      handler: async ({ user, ctx, resolve }) => {
        await resolve('users.avatars').set(user.id, uploadedFile(ctx, 'file'));
        const users = resolve('auth.users');
        const updated = await users.findById(user.id);
        if (!updated) throw notFound();
        return users.toPublic(updated);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/me/avatar',
      operationId: 'me.avatar.delete',
      summary: 'Remove the current user’s avatar',
      auth: 'user',
      responses: { 204: { description: 'No avatar any more; `avatar_url` is null' } },
      handler: async ({ user, resolve }) => {
        await resolve('users.avatars').remove(user.id);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/users/{id}/avatar',
      operationId: 'users.avatar.get',
      summary: 'A user’s avatar image',
      description:
        'Served to the user, to people who share a workspace with them and to instance admins; personal access tokens ' +
        'are refused. Anyone else, an unknown user and a user without an avatar all get the same 404. Answers 304 to a ' +
        'matching `If-None-Match`.',
      auth: 'session',
      params: UserIdParams,
      query: AvatarQuery,
      responses: {
        200: { description: 'The image bytes', contentType: 'image/*' },
        304: { description: 'The cached copy is current' },
      },
      handler: async ({ user, params, ctx, resolve }) => {
        const avatar = await resolve('users.avatars').getFor(user, params.id);
        if (!avatar) throw notFound('This user has no avatar.');
        const headers = { ETag: avatar.etag, 'Cache-Control': `private, max-age=${AVATAR_MAX_AGE_SECONDS}` };
        if (ctx.get('if-none-match').split(/\s*,\s*/).includes(avatar.etag)) return new Reply(304, undefined, headers);
        return new Reply(200, avatar.bytes, headers, avatar.contentType);
      },
    }),
  ];
}
