import type { Context } from 'koa';
import type { AwilixContainer } from 'awilix';
import type { Static, TSchema } from './schema.ts';
import type { Principal, PrincipalUser, TokenScope, UserPrincipal } from './principal.ts';
import type { Resolve } from './container.ts';
import type { AccessGrant, AccessRule } from './authz.ts';
import type { KernelConfig } from './config.ts';
import type { CodedError } from './errors.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route:
 * - `public`: anyone (a credential, if sent, is still checked);
 * - `user`: a signed-in user, by session or PAT;
 * - `session`: a signed-in user by session only (PAT → 403);
 * - `instance_admin`: a session of an instance admin.
 */
export type RouteAuth = 'public' | 'user' | 'session' | 'instance_admin';

export interface ResponseSpec {
  description: string;
  schema?: TSchema;
  /**
   * Defaults to application/json when a schema is given. Several when the answer's type depends on what is served
   * (each listed as it is sent); a media range (all images, or any type) when any type of that range can come.
   */
  contentType?: string | string[];
  /** Errors: members this problem carries beyond RFC 9457's and ours (`current_version`, `usage_count`). */
  extensions?: Record<string, TSchema>;
  /** Headers a client may rely on (`ETag`); `X-Request-Id` is on every answer and need not be named. */
  headers?: Record<string, { description: string; schema?: TSchema }>;
}

export interface RouteRequest<P = any, Q = any, B = any, U = PrincipalUser | undefined, G = AccessGrant | undefined> {
  params: P;
  query: Q;
  body: B;
  /** The JSON body's text as received, on a route that declares `rawBody` (undefined without a body). */
  rawBody?: string;
  /** The body's bytes, unparsed, on a `raw` route (empty without a body). */
  rawBytes?: Buffer;
  /** Who is calling: a signed-in user (session or PAT) on every route that is not `public`. */
  principal: U extends PrincipalUser ? UserPrincipal : Principal;
  /** The signed-in user (session or PAT); always there unless the route is `public`. */
  user: U;
  /** What the route's `access` rule established: the workspace, the caller's role there, the resource's location. */
  access: G;
  requestId: string;
  ctx: Context;
  scope: AwilixContainer;
  /** Resolves services as the route's plugin may. */
  resolve: Resolve;
}

/** The origin links handed out by the API point at: `publicUrl` when configured, else the one the request came to. */
export function publicOrigin(ctx: Context, config: KernelConfig): string {
  return (config.publicUrl ?? `${ctx.protocol}://${ctx.host}`).replace(/\/+$/, '');
}

/** Lets a handler choose status, headers or a non-JSON body. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body?: unknown,
    readonly headers: Record<string, string> = {},
    readonly type?: string,
  ) {}
}

/** What `user` is for a route of this `auth`: the router refuses non-users before any non-public handler runs. */
export type UserFor<A extends RouteAuth> = A extends 'public' ? PrincipalUser | undefined : PrincipalUser;

/** What `access` is for a route with or without an access rule. */
export type GrantFor<W> = W extends AccessRule ? AccessGrant : undefined;

export interface RouteDef<
  P extends TSchema = TSchema,
  Q extends TSchema = TSchema,
  B extends TSchema = TSchema,
  A extends RouteAuth = RouteAuth,
  W extends AccessRule | undefined = AccessRule | undefined,
> {
  method: HttpMethod;
  /** OpenAPI style, relative to /api/v1: `/me/tokens/{id}`. */
  path: string;
  /**
   * The operation's name in the OpenAPI document and generated clients: `<resource>.<verb>`
   * (`records.query`), unique on the instance. Without one it is derived from the method and path.
   */
  operationId?: string;
  /** A request body that works as is (with real ids in place of these), shown by the reference's "Try it out". */
  example?: unknown;
  summary: string;
  description?: string;
  tags?: string[];
  auth: A;
  /** Minimum PAT scope; defaults to `read` for GET and read-only routes, `write` otherwise. Never `read` on a route that writes. */
  scope?: TokenScope;
  /** A POST that writes nothing (a query with a body): `read` tokens may call it like a GET. */
  readOnly?: true;
  /**
   * Workspace permission, checked by the kernel's `authz` before the body is read:
   * 404 when the caller cannot see the workspace or resource, 403 when its role is too weak.
   */
  access?: W;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * `json` (default when `body` is set), `multipart` (files land in temp files: the handler reads ctx.request.files),
   * `upload` (multipart whose files stream straight into the blob store: the handler takes `streamedUpload`), or
   * `form` (an HTML form's fields, urlencoded or multipart without files, validated by `body` like JSON; none at all is `{}`),
   * or `raw` (any media type, its bytes handed over unparsed as `rawBytes`: a receiver checks a signature over them
   * before it reads anything; no `body` schema).
   */
  bodyType?: 'json' | 'multipart' | 'upload' | 'form' | 'raw';
  /** Per-route body limit in bytes (JSON or multipart). */
  bodyLimit?: number;
  /** The handler also gets the JSON body's exact text as `rawBody`, e.g. to check a signature over its bytes. */
  rawBody?: true;
  /** Success status when the handler returns a plain value (default 200, or 204 for undefined). */
  status?: number;
  /**
   * `false` opts a POST create (status 201) out of Idempotency-Key replays: a sent key is then ignored.
   * For responses that must never be stored, e.g. a secret shown only once.
   */
  idempotency?: false;
  /** The answer shows a secret (a session, a token, an invite link): `Cache-Control: no-store`, so no cache keeps it. */
  secret?: true;
  responses: Record<number, ResponseSpec>;
  /**
   * The catalogue entries this route's services can answer with (`ViewErrors.last_view`), listed per status in
   * the OpenAPI document. The kernel's own that the route's shape implies (401, 403, 404, 422…) need not be named.
   */
  errors?: CodedError[];
  handler: (req: RouteRequest<Static<P>, Static<Q>, Static<B>, UserFor<A>, GrantFor<W>>) => unknown | Promise<unknown>;
}

/** Identity function that infers handler types from the schemas and the `auth` level. */
export function defineRoute<
  P extends TSchema = TSchema,
  Q extends TSchema = TSchema,
  B extends TSchema = TSchema,
  A extends RouteAuth = RouteAuth,
  W extends AccessRule | undefined = undefined,
>(def: RouteDef<P, Q, B, A, W>): NoInfer<RouteDef<P, Q, B, A, W>> {
  return def;
}

/** Whether a route reads a multipart body (into temp files or straight into the blob store). */
export function isMultipart(def: Pick<RouteDef, 'bodyType'>): boolean {
  return def.bodyType === 'multipart' || def.bodyType === 'upload';
}

/**
 * A write without a body schema still reads a body, to refuse what a client thought it could set (`{ "copies": 3 }`):
 * nothing or `{}` passes; anything else is refused like a bad body.
 */
export function takesNoBody(def: Pick<RouteDef, 'body' | 'bodyType' | 'method'>): boolean {
  return !def.body && !isMultipart(def) && def.bodyType !== 'raw' && def.method !== 'GET';
}

/** A route of any shape, as plugins hand them to `ctx.routes`. */
export type AnyRouteDef = RouteDef<any, any, any, any, any>;

export interface RegisteredRoute {
  pluginId: string;
  def: RouteDef<any, any, any, any, any>;
}
