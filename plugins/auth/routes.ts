import type { Context } from 'koa';
import { defineRoute, publicOrigin, Reply, type AnyRouteDef } from '../../core/routes.ts';
import type { Resolve } from '../../core/container.ts';
import type { KernelConfig } from '../../core/config.ts';
import {
  ChangePasswordBody,
  PatchMeBody,
  PublicUser,
  ResetAccepted,
  ResetConfirmBody,
  ResetRequestBody,
  SessionResponse,
  SignInBody,
  SignUpBody,
  UserIdParams,
} from './schemas.ts';
import type { IssuedSession } from './sign-in.service.ts';
import { KernelErrors } from '../../core/errors.ts';
import { AuthErrors } from './errors.ts';

/** The same body whether or not the address has an account. */
const RESET_ACCEPTED = { status: 'accepted', detail: 'If an account uses this address, a reset link is on its way.' } as const;

/** The body of every route that signs someone in. */
export function sessionBody(resolve: Resolve, s: IssuedSession) {
  return { user: resolve('auth.users').toPublic(s.user), token: s.token, expires_at: s.expiresAt.toISOString() };
}

export interface AccountRouteDeps {
  config: KernelConfig;
  /** Counts a sign-up attempt of this IP address, before the policy or the address is looked at, so every outcome counts. */
  limitSignUp: (ip: string) => Promise<void>;
}

const link = (ctx: Context, config: KernelConfig) => ({ origin: publicOrigin(ctx, config) });

export function accountRoutes(deps: AccountRouteDeps): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/sign-up',
      operationId: 'auth.signUp',
      example: { email: 'ada@example.com', password: 'correct horse battery', name: 'Ada Lovelace' },
      secret: true,
      summary: 'Create an account and a session; the first account of an instance is its instance admin',
      description:
        'The session token is never stored in plaintext, so this response cannot be replayed. Every attempt counts against ' +
        'the caller\'s IP address (`signUpRateLimit`), whatever its outcome. The `signUp` option may close sign-up or ' +
        'keep it to addresses with a pending workspace invite.',
      auth: 'public',
      body: SignUpBody,
      status: 201,
      idempotency: false,
      responses: {
        201: { description: 'Account and session created', schema: SessionResponse },
        403: { description: 'Sign-up is closed (`sign_up_closed`) or needs an invite (`sign_up_invite_only`)' },
        409: { description: 'An account with this email exists (`email_taken`)' },
        429: { description: 'Too many sign-ups from this address; see `Retry-After`' },
      },
      errors: [AuthErrors.sign_up_closed, AuthErrors.sign_up_invite_only, AuthErrors.email_taken, KernelErrors.rate_limited],
      handler: async ({ body, resolve, ctx }) => {
        await deps.limitSignUp(ctx.ip);
        const user = await resolve('auth.users').signUp(body);
        return sessionBody(resolve, { user, ...(await resolve('auth.sessions').issue(user.id, ctx.get('user-agent'))) });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/sign-in',
      operationId: 'auth.signIn',
      example: { email: 'ada@example.com', password: 'correct horse battery' },
      secret: true,
      summary: 'Exchange email and password for a session token',
      description:
        'Failed attempts are counted per email (any case) and per IP address; past the limit the answer is 429 `rate_limited` ' +
        'with `Retry-After` (seconds), whether or not the email has an account. A successful sign-in resets the email\'s count.',
      auth: 'public',
      body: SignInBody,
      responses: {
        200: { description: 'Signed in', schema: SessionResponse },
        401: { description: 'Wrong email or password, or a disabled account' },
        429: { description: 'Too many failed attempts; see `Retry-After`' },
      },
      errors: [KernelErrors.rate_limited],
      handler: async ({ body, resolve, ctx }) =>
        sessionBody(resolve, await resolve('auth.signIn').withPassword(body.email, body.password, { ip: ctx.ip, userAgent: ctx.get('user-agent') })),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/sign-out',
      operationId: 'auth.signOut',
      summary: 'End the current session',
      auth: 'session',
      responses: { 204: { description: 'The session token no longer works' } },
      handler: async ({ principal, resolve }) => {
        if (principal.kind === 'session') await resolve('auth.sessions').revoke(principal.sessionId);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/me/password',
      operationId: 'me.password.change',
      example: { current_password: 'correct horse battery', new_password: 'purple monkey dishwasher' },
      summary: 'Change your password; every other session of yours ends',
      description:
        'Sessions only: a token cannot change the password. A wrong `current_password` is 422 `wrong_password` and counts as a ' +
        'failed sign-in of your email (429 `rate_limited` past the sign-in limit). Personal access tokens are not affected.',
      auth: 'session',
      body: ChangePasswordBody,
      responses: {
        204: { description: 'Changed; this session stays, the others are ended' },
        422: { description: 'Wrong current password (`wrong_password`, pointer `/current_password`) or an invalid new one' },
        429: { description: 'Too many wrong passwords; see `Retry-After`' },
      },
      errors: [AuthErrors.wrong_password, KernelErrors.rate_limited],
      handler: async ({ principal, user, body, ctx, resolve }) => {
        if (principal.kind !== 'session') return;
        await resolve('auth.passwords').change(user.id, principal.sessionId, { current: body.current_password, next: body.new_password, ip: ctx.ip });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/password-reset',
      operationId: 'auth.passwordReset.request',
      example: { email: 'ada@example.com' },
      summary: 'Mail a password reset link to an account\'s address',
      description:
        'Always 202 with the same body, whether or not an account uses the address, so the answer reveals nothing. Requests ' +
        'are limited per email (any case) and per IP address (`passwordResetRateLimit`) → 429 `rate_limited` with ' +
        '`Retry-After`. A new request replaces the earlier link. 503 when the mail plugin is off.',
      auth: 'public',
      body: ResetRequestBody,
      status: 202,
      responses: {
        202: { description: 'Accepted (whether or not the address has an account)', schema: ResetAccepted },
        429: { description: 'Too many requests for this address or from this IP; see `Retry-After`' },
        503: { description: 'The mail plugin is not enabled' },
      },
      errors: [KernelErrors.rate_limited, KernelErrors.service_unavailable],
      handler: async ({ body, ctx, resolve }) => {
        await resolve('auth.passwords').request(body.email, ctx.ip, link(ctx, deps.config));
        return RESET_ACCEPTED;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/password-reset/confirm',
      operationId: 'auth.passwordReset.confirm',
      example: { token: 'the token from the reset link', password: 'purple monkey dishwasher' },
      secret: true,
      summary: 'Set a new password with a mailed reset token; every session of the account ends',
      auth: 'public',
      body: ResetConfirmBody,
      responses: {
        204: { description: 'The password is set; sign in with it' },
        422: { description: 'Unknown, used or expired token (`reset_token_invalid`, one answer for all three), or an invalid password' },
      },
      errors: [AuthErrors.reset_token_invalid],
      handler: async ({ body, resolve }) => {
        await resolve('auth.passwords').confirm(body.token, body.password);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/admin/users/{id}/password-reset',
      operationId: 'admin.users.passwordReset',
      summary: 'Force a password reset: the user is signed out everywhere and must set a new password from the mailed link',
      description: 'Their password stops working at once. Personal access tokens are not affected (disable the user to stop them). 503 when the mail plugin is off, and nothing changes.',
      auth: 'instance_admin',
      params: UserIdParams,
      responses: {
        202: { description: 'Reset; the mail is on its way' },
        404: { description: 'No such user' },
        503: { description: 'The mail plugin is not enabled' },
      },
      errors: [KernelErrors.service_unavailable],
      handler: async ({ params, ctx, resolve }) => {
        await resolve('auth.passwords').force(params.id, link(ctx, deps.config));
        return new Reply(202);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/me',
      operationId: 'me.get',
      summary: 'The current user',
      auth: 'user',
      responses: { 200: { description: 'The current user', schema: PublicUser } },
      // The authentication query already read the user's row: no second round trip.
      handler: ({ user, resolve }) => resolve('auth.users').toPublic(user),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/me',
      operationId: 'me.update',
      example: { name: 'Ada King' },
      summary: 'Update the current user (only `name`: changing the email needs a verification flow that does not exist yet)',
      auth: 'user',
      body: PatchMeBody,
      responses: { 200: { description: 'The updated user', schema: PublicUser } },
      handler: async ({ user, body, resolve }) => {
        const users = resolve('auth.users');
        return users.toPublic(await users.update(user.id, body));
      },
    }),
  ];
}
