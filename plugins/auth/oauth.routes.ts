import type { Context } from 'koa';
import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { API_PREFIX } from '../../core/router.ts';
import { KernelErrors } from '../../core/errors.ts';
import { CallbackQuery, ProviderList, ProviderParams, SessionResponse } from './schemas.ts';
import { sessionBody } from './routes.ts';

const NO_STORE = { 'Cache-Control': 'no-store' };

/**
 * Where the provider sends the browser back: under `publicUrl` when configured, else under the
 * request's own scheme and host (which honour X-Forwarded-* only with `http.trustProxy`).
 */
function callbackUrl(ctx: Context, publicUrl: string | undefined, provider: string): string {
  const base = publicUrl ?? `${ctx.protocol}://${ctx.host}`;
  return `${base.replace(/\/+$/, '')}${API_PREFIX}/auth/oauth/${provider}/callback`;
}

export function oauthRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/auth/providers',
      operationId: 'auth.providers.list',
      summary: 'Sign-in providers: password always, and each OAuth provider configured on this instance',
      auth: 'public',
      responses: { 200: { description: 'The providers', schema: ProviderList } },
      handler: ({ resolve }) => ({
        data: [
          { id: 'password', type: 'password', name: 'Email and password' },
          ...[...resolve('auth.oauth').providers.values()].map((p) => ({
            id: p.id,
            type: 'oauth',
            name: p.name,
            start_url: `${API_PREFIX}/auth/oauth/${p.id}/start`,
          })),
        ],
        next_cursor: null,
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/oauth/{provider}/start',
      operationId: 'auth.oauth.start',
      summary: 'Begin an OAuth sign-in: redirects to the provider',
      description: 'Answers 302 to the provider\'s authorize URL with `client_id`, `redirect_uri`, `scope`, a single-use `state` (valid 10 minutes) and a PKCE S256 challenge.',
      auth: 'public',
      params: ProviderParams,
      responses: {
        302: { description: 'Redirect to the provider (`Location`)' },
        404: { description: 'No such provider is configured' },
      },
      handler: async ({ params, resolve, ctx }) => {
        const oauth = resolve('auth.oauth');
        const provider = oauth.provider(params.provider);
        const location = await oauth.start(provider, callbackUrl(ctx, resolve('config').publicUrl, provider.id));
        return new Reply(302, undefined, { Location: location, ...NO_STORE });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/oauth/{provider}/callback',
      operationId: 'auth.oauth.callback',
      secret: true,
      summary: 'Finish an OAuth sign-in: the provider redirects here with `code` and `state`',
      description:
        'Exchanges the code, reads the provider account and signs in the user linked to it, else the user with its verified email ' +
        '(linking it), else a new user. A `state` that is unknown, expired or already used is 422 (pointer `/query/state`).',
      auth: 'public',
      params: ProviderParams,
      query: CallbackQuery,
      responses: {
        200: { description: 'Signed in (same body as sign-in)', schema: SessionResponse },
        401: { description: 'The provider reported `error` (e.g. the user declined), or the account is disabled' },
        403: { description: 'The provider account has no verified email' },
        404: { description: 'No such provider is configured' },
        502: { description: 'The provider failed or refused the code (`provider_error`)' },
      },
      errors: [KernelErrors.provider_error],
      handler: async ({ params, query, resolve, ctx }) => {
        const user = await resolve('auth.oauth').complete(params.provider, query);
        const session = await resolve('auth.sessions').issue(user.id, ctx.get('user-agent'));
        return new Reply(200, sessionBody(resolve, { user, ...session }), NO_STORE);
      },
    }),
  ];
}
