import Koa, { type Context, type Next } from 'koa';
import compress from 'koa-compress';
import { constants as zlib } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { renderProblem } from './problem.ts';
import { notFound } from './errors.ts';
import { ANONYMOUS, isUser } from './principal.ts';
import type { KernelHooks, MiddlewareEntry, MiddlewareStage } from './hooks.ts';
import { API_PREFIX, type RouteState } from './router.ts';
import type { RequestLoad } from './request-load.ts';
import type { HttpMetrics } from './metrics.ts';
import type { KernelConfig } from './config.ts';
import { securityHeaders } from './security-headers.ts';
import { closeUnreadBodies } from './linger.ts';
import { serverTimingHeader, timeRequest } from './server-timing.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The credential of an `Authorization: Bearer …` header, as the kernel authenticates it; null for any other header. */
export function bearerToken(header: string): string | null {
  return BEARER.exec(header)?.[1] ?? null;
}

export interface AppOptions {
  config: KernelConfig;
  logger: Logger;
  hooks: KernelHooks;
  metrics?: HttpMetrics;
  load: RequestLoad;
  routes: Koa.Middleware;
  /** Answers OPTIONS, and marks a known path asked with another method 405 (with Allow) or an unknown method 501. */
  allowedMethods?: Koa.Middleware;
}

function requestContext(logger: Logger, metrics?: HttpMetrics) {
  return async (ctx: Context, next: Next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const state = ctx.state as RouteState;
    state.requestId = requestId;
    state.principal = ANONYMOUS;
    ctx.set('X-Request-Id', requestId);
    const { timing, done } = timeRequest(async () => {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw notFound(`No route matches ${ctx.method} ${ctx.path}.`);
      if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) ctx.throw(ctx.status);
    });
    try {
      await done;
    } catch (err) {
      renderProblem(ctx, err, requestId, logger);
    }
    const serialise = serialised(ctx);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    ctx.set('Server-Timing', serverTimingHeader(timing, serialise, ms));
    metrics?.observe(ctx.method, state.route ?? 'unmatched', ctx.status, ms / 1000);
    if (logger.isLevelEnabled('info')) {
      // A secret carried in the path (invite, form, inbound hook tokens) is named `{token}`: log the template instead.
      const path = state.route?.includes('{token}') ? state.route : ctx.path;
      const userId = isUser(state.principal) ? state.principal.user.id : undefined;
      logger.info({ requestId, method: ctx.method, path, status: ctx.status, ms: Math.round(ms * 100) / 100, userId, ip: ctx.ip }, 'request');
    }
  };
}

/**
 * Turns a JSON answer into its text here rather than in koa's last step, so that the time it takes is known (and
 * said in Server-Timing); koa sends the bytes as they are, under the type the object gave it. Milliseconds spent.
 */
function serialised(ctx: Context): number {
  const body = ctx.body;
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return 0;
  const started = performance.now();
  const type = ctx.response.get('Content-Type');
  // Bytes, encoded once: from a string koa would measure the UTF-8 length, and the socket encode it again.
  ctx.body = Buffer.from(JSON.stringify(body));
  ctx.set('Content-Type', type);
  return performance.now() - started;
}

function cors(origins: string[], credentials: boolean) {
  const any = origins.includes('*');
  return async (ctx: Context, next: Next) => {
    const origin = ctx.get('origin');
    if (!origin || origin === 'null' || (!any && !origins.includes(origin))) return next();
    ctx.set('Access-Control-Allow-Origin', any && !credentials ? '*' : origin);
    ctx.vary('Origin');
    if (credentials) ctx.set('Access-Control-Allow-Credentials', 'true');
    ctx.set('Access-Control-Expose-Headers', 'X-Request-Id, Retry-After, Idempotency-Replayed');
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE');
      ctx.set('Access-Control-Allow-Headers', ctx.get('access-control-request-headers') || 'Authorization, Content-Type');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    return next();
  };
}

/**
 * Turns a bearer credential into a principal through the auth.authenticate strategies. A credential that cannot be
 * used leaves the request anonymous and says why: a route that needs one answers 401 with that reason, a route that
 * needs none (sign-in, health, public forms) serves it, so a client holding a stale token can still sign in.
 */
function authenticate(hooks: KernelHooks) {
  return async (ctx: Context, next: Next) => {
    const header = ctx.get('authorization');
    if (header) {
      const state = ctx.state as RouteState;
      const token = bearerToken(header);
      const principal = token && (await hooks.auth.authenticate.promise({ token, ctx }));
      if (principal) state.principal = principal;
      else state.credentialRefused = token ? 'The bearer token is invalid, expired or revoked.' : 'The Authorization header must be "Bearer <token>".';
    }
    return next();
  };
}

export function createApp(opts: AppOptions): Koa {
  const app = new Koa({ proxy: opts.config.http.trustProxy });
  app.silent = true;
  app.use(opts.load.middleware());
  app.use(closeUnreadBodies());
  app.use(securityHeaders());
  // Small answers are sent as they are: below ~1 KB compressing costs more than it saves. Quality 4 keeps brotli cheap.
  app.use(compress({ threshold: 1024, br: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } }, gzip: { level: 6 }, deflate: false }));
  app.use(requestContext(opts.logger, opts.metrics));
  if (opts.config.http.cors.origins.length > 0) app.use(cors(opts.config.http.cors.origins, opts.config.http.cors.credentials));
  const entries: MiddlewareEntry[] = opts.hooks.http.middleware.call([]);
  const at = (stage: MiddlewareStage) => entries.filter((e) => (e.stage ?? 'beforeAuthentication') === stage).map((e) => e.middleware);
  for (const middleware of [...at('beforeAuthentication'), authenticate(opts.hooks), ...at('afterAuthentication')]) app.use(middleware);
  app.use(async (ctx, next) => {
    if (ctx.path === '/' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.body = { name: 'Tessera', api: API_PREFIX, docs: `${API_PREFIX}/docs`, openapi: `${API_PREFIX}/openapi.json` };
      return;
    }
    if (!ctx.path.startsWith(API_PREFIX)) throw notFound(`No route matches ${ctx.method} ${ctx.path}.`);
    return next();
  });
  app.use(opts.routes);
  if (opts.allowedMethods) app.use(opts.allowedMethods);
  return app;
}
