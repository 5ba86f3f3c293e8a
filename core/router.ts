import { redactedRefusal } from './usage.ts';
import type Router from '@koa/router';
import { IndexedRouter } from './indexed-router.ts';
import { koaBody } from 'koa-body';
import type { Context } from 'koa';
import type { ValidateFunction } from 'ajv';
import { compile, toErrorDetails, Type } from './schema.ts';
import { StartupError, forbidden, notFound, payloadTooLarge, requestTimeout, unauthenticated, unsupportedMediaType, validationFailed, malformedJson } from './errors.ts';
import { isUser, scopeAllows, type Principal } from './principal.ts';
import { discardUploads } from './uploads.ts';
import { discardStreamedUploads, settleUploads, uploadSink } from './streamed-uploads.ts';
import type { BlobStore } from './blobs.ts';
import { isMultipart, Reply, takesNoBody, type RegisteredRoute, type RouteDef } from './routes.ts';
import { Lifetime, type AwilixContainer } from 'awilix';
import { SCOPED_KEYS, type KernelContainer, type Resolve } from './container.ts';
import type { KernelHooks } from './hooks.ts';
import type { AccessGrant, Authz } from './authz.ts';
import { isIdempotentRoute, type Idempotency } from './idempotency.ts';
import { findHostileInput } from './input-guard.ts';
import { BodyCapExceeded, BodyStalled, withCappedBody } from './body-cap.ts';
import { InvalidUtf8, withUtf8Body } from './utf8-body.ts';
import { boundaryProblem } from './multipart-boundary.ts';


export const API_PREFIX = '/api/v1';

/** What a route without a body schema accepts: nothing, or an empty object. */
const NO_BODY = Type.Object({}, { additionalProperties: false });

export function koaPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

export interface RouteState {
  principal: Principal;
  requestId: string;
  route?: string;
  /** Why the request's credential could not be used (it is then anonymous): the 401 of a route that needs one. */
  credentialRefused?: string;
}

/** Route-level rules every route gets; resource-level rules go through the authorize hook. */
async function authorizeRoute(def: RouteDef, state: RouteState, hooks: KernelHooks): Promise<void> {
  const { principal } = state;
  if (def.auth !== 'public') {
    if (principal.kind === 'anonymous') throw unauthenticated(state.credentialRefused);
    if (principal.kind === 'service') throw forbidden('This credential cannot call this route.');
    if (def.auth === 'session' && principal.kind !== 'session') throw forbidden('This route requires a signed-in session; personal access tokens are refused.');
    if (def.auth === 'instance_admin') {
      if (principal.kind !== 'session') throw forbidden('This route requires a signed-in session of an instance admin.');
      if (!principal.user.is_instance_admin) throw forbidden('Only instance admins may do this.');
    }
    if (principal.kind === 'pat') {
      const need = def.scope ?? (def.method === 'GET' || def.readOnly ? 'read' : 'write');
      if (!scopeAllows(principal.scope, need)) throw forbidden(`This token's scope "${principal.scope}" does not allow this; it needs "${need}".`);
    }
  }
  if (hooks.auth.authorize.isUsed()) {
    const decision = await hooks.auth.authorize.promise({ principal, action: `${def.method} ${def.path}` });
    if (decision && !decision.allow) throw forbidden(decision.reason);
  }
}

function validator(schema: object | undefined, coerce: boolean): ValidateFunction | null {
  if (!schema) return null;
  return compile(schema, { coerce });
}

function check(fn: ValidateFunction | null, value: unknown, base: string): void {
  if (fn && !fn(value)) throw validationFailed(toErrorDetails(fn.errors, base));
}

/** Refused once here, for every route: what no column can store and what would exhaust recursive code. */
function refuseHostile(value: unknown, base: string): void {
  const problem = findHostileInput(value, base);
  if (problem) throw validationFailed([problem]);
}

/** formidable's code for a file part past `maxFiles` (its 413 says nothing of size here). */
const FORMIDABLE_MAX_FILES = 1015;

/** What multipart framing (boundaries, part headers) may add to a route's byte limit. */
const MULTIPART_FRAMING = 16 * 1024;

/**
 * A refused body is not read further: stop reading now, answer, then close the connection (keep-alive would
 * otherwise read the rest of the body, however large). What is still coming is discarded for a bounded
 * linger first (linger.ts), so the client reads the 413 instead of a reset.
 */
function refuseBody(ctx: Context, limit: number) {
  ctx.req.pause();
  ctx.set('Connection', 'close');
  return payloadTooLarge(`The request body exceeds ${limit} bytes.`);
}

/** A body that stopped coming: answered like a refused one (linger.ts), the client may still be listening. */
function refuseStalledBody(ctx: Context, idleMs: number) {
  ctx.req.pause();
  ctx.set('Connection', 'close');
  return requestTimeout(`No byte of the request body came for ${idleMs / 1000} s; send the body without pausing.`);
}

/** The media types a route's body may come as. */
function mediaTypes(def: RouteDef): string[] {
  if (def.bodyType === 'form') return ['application/x-www-form-urlencoded', 'multipart/form-data'];
  return def.bodyType === 'multipart' || def.bodyType === 'upload' ? ['multipart/form-data'] : ['application/json'];
}

/** A `raw` route's body: its bytes, held to the limit and the idle time like any other, whatever its media type. */
function rawBodyReader(limit: number, bodyIdleMs: number) {
  return async (ctx: Context): Promise<Buffer> => {
    if (Number(ctx.get('content-length') || 0) > limit) throw refuseBody(ctx, limit);
    try {
      return await withCappedBody(ctx, { cap: limit, idleMs: bodyIdleMs }, async (capped) => {
        const chunks: Buffer[] = [];
        for await (const chunk of capped.req) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks);
      });
    } catch (err) {
      if (err instanceof BodyCapExceeded) throw refuseBody(ctx, limit);
      if (err instanceof BodyStalled) throw refuseStalledBody(ctx, bodyIdleMs);
      throw err;
    }
  };
}

function bodyParser(def: RouteDef, jsonLimit: number, bodyIdleMs: number, blobs: BlobStore) {
  const limit = def.bodyLimit ?? jsonLimit;
  const streamed = def.bodyType === 'upload';
  const form = def.bodyType === 'form';
  const multipart = isMultipart(def);
  const types = mediaTypes(def);
  // Every byte counts, framing included: the cap holds however the body is sent (chunked, no boundary, no end).
  const cap = limit + (multipart || form ? MULTIPART_FRAMING : 0);
  const parserFor = (sink?: ReturnType<typeof uploadSink>) => koaBody({
    json: !multipart && !form,
    jsonLimit: limit,
    formLimit: limit,
    includeUnparsed: def.rawBody === true,
    text: false,
    urlencoded: form,
    multipart: multipart || form,
    parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'] as never,
    // Text parts count against the limit too; an empty file is content the route judges (e.g. 415). A form takes no file.
    formidable: multipart
      ? { maxFileSize: limit, maxTotalFileSize: limit, maxFieldsSize: limit, maxFiles: 1, allowEmptyFiles: true, minFileSize: 0, ...(sink ? { fileWriteStreamHandler: sink } : {}) }
      : form
        ? { maxFieldsSize: limit, maxFiles: 0 }
        : undefined,
    onError: (err: Error & { status?: number; httpCode?: number; code?: unknown }, ctx: Context) => {
      const status = err.status ?? err.httpCode;
      if (form && err.code === FORMIDABLE_MAX_FILES) throw validationFailed([{ pointer: '', detail: 'A form here takes fields, not files.' }]);
      if (status === 413) throw refuseBody(ctx, limit);
      if (status === 408) throw refuseStalledBody(ctx, bodyIdleMs);
      if (multipart) throw validationFailed([{ pointer: '/file', detail: `The multipart body is invalid: ${err.message}` }]);
      if (form && !(err instanceof InvalidUtf8)) throw validationFailed([{ pointer: '', detail: `The form body is invalid: ${err.message}` }]);
      throw malformedJson(err instanceof InvalidUtf8 ? err.message : undefined);
    },
  });
  const parse = streamed ? null : parserFor();
  return async (ctx: Context) => {
    const length = Number(ctx.get('content-length') || 0);
    // Refuse an announced oversize body before reading it.
    if (length > cap) throw refuseBody(ctx, limit);
    const hasBody = length > 0 || !!ctx.get('transfer-encoding');
    const parts = hasBody && !!ctx.is('multipart/form-data');
    if (hasBody) {
      if (!ctx.is(types)) throw unsupportedMediaType(`Send the body as ${types.join(' or ')}.`);
      const framing = parts && boundaryProblem(ctx.get('content-type'));
      if (framing) throw unsupportedMediaType(framing);
    }
    // Multipart parsers count only parts, so every byte is counted here; and no parser times a body that stalls.
    const limits = { cap, idleMs: bodyIdleMs };
    if (streamed) {
      // The sink writes to the blob store as parts arrive, so it is made per request.
      const upload = parserFor(uploadSink(ctx, blobs));
      await withCappedBody(ctx, limits, (capped) => upload(capped, async () => {}));
      await settleUploads(ctx);
    } else if (multipart || parts) await withCappedBody(ctx, limits, (capped) => parse!(capped, async () => {}));
    // Bytes that are not UTF-8 are refused, never decoded into U+FFFD and stored.
    else if (hasBody) await withCappedBody(ctx, limits, (capped) => withUtf8Body(capped, (checked) => parse!(checked, async () => {})));
    else await parse!(ctx, async () => {});
    return hasBody ? ctx.request.body : undefined;
  };
}

/** Keys only a request scope can resolve: the request's own values and services provided `scoped`. */
function isScoped(container: KernelContainer, key: string): boolean {
  return (SCOPED_KEYS as readonly string[]).includes(key) || container.awilix.getRegistration(key)?.lifetime === Lifetime.SCOPED;
}

export interface MountOptions {
  container: KernelContainer;
  hooks: KernelHooks;
  authz: Authz;
  jsonLimit: number;
  /** Milliseconds a body may stop coming before the request is answered 408. */
  bodyIdleMs: number;
  idempotency: Idempotency;
  blobs: BlobStore;
}

function respond(ctx: Context, def: RouteDef, result: unknown): void {
  if (def.secret) ctx.set('Cache-Control', 'no-store');
  if (result instanceof Reply) {
    ctx.status = result.status;
    for (const [k, v] of Object.entries(result.headers)) ctx.set(k, v);
    if (result.type) ctx.type = result.type;
    if (result.body !== undefined) ctx.body = result.body;
  } else if (result === undefined) {
    ctx.status = 204;
  } else {
    ctx.status = def.status ?? 200;
    ctx.body = result;
  }
}

/** Mounts route definitions on a koa router: authenticate → authorize → parse → validate → (idempotency) → handle. */
export function buildRouter(routes: RegisteredRoute[], opts: MountOptions): Router {
  const router = new IndexedRouter({ prefix: API_PREFIX });
  const operations = new Map<string, string>();
  for (const { pluginId, def } of routes) {
    // Generated clients name methods by operation id: two alike would make one of them unreachable.
    const named = def.operationId && operations.get(def.operationId);
    if (named) throw new StartupError(`Plugin "${pluginId}": ${def.method} ${def.path} takes the operationId "${def.operationId}" of ${named}.`, 'route_invalid');
    if (def.operationId) operations.set(def.operationId, `${def.method} ${def.path} (plugin "${pluginId}")`);
    // A `read` token is read only: a route that writes cannot lower its scope to `read`.
    if (def.scope === 'read' && def.method !== 'GET' && !def.readOnly) {
      throw new StartupError(`Plugin "${pluginId}": ${def.method} ${def.path} writes, so it cannot take scope "read" (declare readOnly: true if it writes nothing).`, 'route_invalid');
    }
    const validateParams = validator(def.params, true);
    const validateQuery = validator(def.query, true);
    const multipart = isMultipart(def);
    const readsBody = def.body || multipart || takesNoBody(def);
    const validateBody = readsBody ? validator(def.body ?? NO_BODY, false) : null;
    const parseBody = readsBody ? bodyParser(def, opts.jsonLimit, opts.bodyIdleMs, opts.blobs) : null;
    const readRaw = def.bodyType === 'raw' ? rawBodyReader(def.bodyLimit ?? opts.jsonLimit, opts.bodyIdleMs) : null;
    const template = `${API_PREFIX}${def.path}`;
    const rootResolve = opts.container.resolverFor(pluginId);
    const idempotency = isIdempotentRoute(def) ? opts.idempotency : null;
    const handle = async (ctx: Context) => {
      const state = ctx.state as RouteState;
      state.route = template;
      await authorizeRoute(def, state, opts.hooks);
      const params = { ...ctx.params };
      // A path that names no resource, malformed id included, is an unknown id: 404 (API.md), never a hint of shape.
      if ((validateParams && !validateParams(params)) || findHostileInput(params)) throw notFound();
      let access: AccessGrant | undefined;
      if (def.access) {
        const rule = def.access;
        access = await opts.authz.require(state.principal, params[rule.workspaceParam ?? 'ws'], rule, rule.resource && params[rule.resource.param]);
      }
      const query = { ...ctx.query };
      refuseHostile(query, '/query');
      check(validateQuery, query, '/query');
      let body: unknown;
      const rawBytes = readRaw ? await readRaw(ctx) : undefined;
      if (parseBody) {
        body = await parseBody(ctx);
        refuseHostile(body, '');
        if (!multipart) {
          if (body === undefined && def.body) body = {};
          if (body !== undefined) check(validateBody, body, '');
        }
      }
      // Most handlers resolve singletons only: the request scope is built when one asks for a scoped key.
      let scope: AwilixContainer | undefined;
      const requestScope = () => (scope ??= opts.container.createScope({ ctx, principal: state.principal, requestId: state.requestId }));
      const execute = async () => respond(ctx, def, await def.handler({
        params,
        query,
        body,
        rawBody: def.rawBody ? (ctx.request as { rawBody?: string }).rawBody : undefined,
        rawBytes,
        principal: state.principal,
        user: isUser(state.principal) ? state.principal.user : undefined,
        access,
        requestId: state.requestId,
        ctx,
        get scope() {
          return requestScope();
        },
        resolve: ((key: string) => (isScoped(opts.container, key) ? opts.container.resolverFor(pluginId, requestScope())(key) : rootResolve(key))) as Resolve,
      }));
      // Keys are per user: an anonymous caller's key is ignored, like a key sent to a route that does not take one.
      try {
        if (idempotency && ctx.headers['idempotency-key'] !== undefined && isUser(state.principal)) {
          await idempotency.run(ctx, state.principal.user.id, template, { query, body }, execute);
        } else {
          await execute();
        }
      } catch (err) {
        throw redactedRefusal(err, access?.memberRole);
      }
    };
    router.register(
      koaPath(def.path),
      [def.method],
      multipart
        ? async (ctx: Context) => {
            try {
              await handle(ctx);
            } finally {
              if (def.bodyType === 'upload') await discardStreamedUploads(ctx, opts.blobs);
              else await discardUploads(ctx);
            }
          }
        : handle,
    );
  }
  return router;
}
