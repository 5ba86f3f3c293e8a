import { defineRoute, type RouteDef } from '../../core/routes.ts';
import { unauthenticated, notFound } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { PublicUser, SessionResponse, SignInBody, SignUpBody, PatchMeBody } from './schemas.ts';

export function authRoutes(): RouteDef<any, any, any>[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/sign-up',
      summary: 'Create an account and a session; the first account of an instance is its instance admin',
      auth: 'public',
      body: SignUpBody,
      status: 201,
      responses: { 201: { description: 'Account and session created', schema: SessionResponse } },
      handler: async ({ body, resolve, ctx }) => {
        const users = resolve('auth.users');
        const user = await users.create(body);
        const session = await resolve('auth.sessions').issue(user.id, ctx.get('user-agent'));
        return { user: users.toPublic(user), token: session.token, expires_at: session.expiresAt.toISOString() };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/sign-in',
      summary: 'Exchange email and password for a session token',
      auth: 'public',
      body: SignInBody,
      responses: { 200: { description: 'Signed in', schema: SessionResponse } },
      handler: async ({ body, resolve, ctx }) => {
        const users = resolve('auth.users');
        const user = await users.verifyCredentials(body.email, body.password);
        if (!user) throw unauthenticated('The email or password is wrong.');
        const session = await resolve('auth.sessions').issue(user.id, ctx.get('user-agent'));
        return { user: users.toPublic(user), token: session.token, expires_at: session.expiresAt.toISOString() };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/sign-out',
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
      summary: 'The current user',
      auth: 'user',
      responses: { 200: { description: 'The current user', schema: PublicUser } },
      handler: async ({ principal, resolve }) => {
        const users = resolve('auth.users');
        const user = await users.findById((principal as UserPrincipal).user.id);
        if (!user) throw notFound();
        return users.toPublic(user);
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/me',
      summary: 'Update the current user',
      auth: 'user',
      body: PatchMeBody,
      responses: { 200: { description: 'The updated user', schema: PublicUser } },
      handler: async ({ principal, body, resolve }) => {
        const users = resolve('auth.users');
        return users.toPublic(await users.update((principal as UserPrincipal).user.id, body));
      },
    }),
  ];
}

