import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import type { Resolve } from '../../core/container.ts';
import { PublicUser, SessionResponse, SignInBody, SignUpBody, PatchMeBody } from './schemas.ts';
import type { IssuedSession } from './sign-in.service.ts';

/** The body of every route that signs someone in. */
export function sessionBody(resolve: Resolve, s: IssuedSession) {
  return { user: resolve('auth.users').toPublic(s.user), token: s.token, expires_at: s.expiresAt.toISOString() };
}

export function accountRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/sign-up',
      operationId: 'auth.signUp',
      example: { email: 'ada@example.com', password: 'correct horse battery', name: 'Ada Lovelace' },
      secret: true,
      summary: 'Create an account and a session; the first account of an instance is its instance admin',
      description: 'The session token is never stored in plaintext, so this response cannot be replayed.',
      auth: 'public',
      body: SignUpBody,
      status: 201,
      idempotency: false,
      responses: {
        201: { description: 'Account and session created', schema: SessionResponse },
        409: { description: 'An account with this email exists (`email_taken`)' },
      },
      handler: async ({ body, resolve, ctx }) => {
        const user = await resolve('auth.users').create(body);
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
