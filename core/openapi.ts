import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { defaultsOptional, DOC_KEYWORD, type DocContext, type SchemaDoc, type TSchema } from './schema.ts';
import { API_PREFIX } from './router.ts';
import { PROBLEM_TYPE } from './problem.ts';
import { isMultipart, takesNoBody, type RegisteredRoute, type ResponseSpec, type RouteDef } from './routes.ts';
import { KernelErrors, type CodedError } from './errors.ts';
import { IDEMPOTENCY_TTL_HOURS, isIdempotentRoute, REPLAYED_HEADER } from './idempotency.ts';
import { KERNEL_VERSION } from './version.ts';

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

const PROBLEM_SCHEMA = {
  type: 'object',
  description: 'RFC 9457 problem details. Extension members (usage_count, current_version, records_with_value) appear where a route documents them.',
  required: ['type', 'title', 'status', 'detail', 'code', 'request_id'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', description: 'Stable snake_case error code.' },
    request_id: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['pointer', 'detail'],
        properties: { pointer: { type: 'string', description: 'JSON Pointer into the request' }, detail: { type: 'string' } },
      },
    },
  },
};

/** Turns a TypeBox schema into its JSON form for the document. */
type Plain = (schema: TSchema | undefined) => any;

/**
 * JSON-safe copies of TypeBox schemas (symbol keys dropped); a `documented` schema becomes its documentation form,
 * and the component schemas it names are gathered into `components`.
 */
function plainer(components: Record<string, object>, ctx: DocContext): Plain {
  return (schema) => {
    if (schema === undefined) return undefined;
    // A replacer, not a reviver: it sees a lazy documentation form (a function) before JSON drops it.
    return JSON.parse(JSON.stringify(schema, (_key, value) => {
      const given = value && typeof value === 'object' ? value[DOC_KEYWORD] : undefined;
      if (!given) return value;
      const doc: SchemaDoc = typeof given === 'function' ? given(ctx) : given;
      Object.assign(components, doc.schemas);
      const { [DOC_KEYWORD]: _doc, ...rest } = value;
      if (doc.ref) return { $ref: `#/components/schemas/${doc.ref}`, ...(rest.description ? { description: rest.description } : {}) };
      return { ...rest, ...doc.also };
    }));
  };
}

function parametersOf(plain: Plain, def: RouteDef, where: 'path' | 'query') {
  const schema = defaultsOptional(plain(where === 'path' ? def.params : def.query));
  const names = where === 'path' ? [...def.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]) : Object.keys(schema?.properties ?? {});
  return names.map((name) => ({
    name,
    in: where,
    required: where === 'path' ? true : (schema?.required ?? []).includes(name),
    schema: schema?.properties?.[name] ?? { type: 'string' },
    ...(schema?.properties?.[name]?.description ? { description: schema.properties[name].description } : {}),
  }));
}

/** The kernel's codes every route of its kind can give, then the ones the route names; each code once. */
function errorsOf(def: RouteDef, idempotent: boolean): CodedError[] {
  const implied: CodedError[] = [];
  // A route without a body schema still reads what is sent, and refuses anything but nothing or `{}`.
  const json = !isMultipart(def) && def.bodyType !== 'form' && (def.body !== undefined || takesNoBody(def));
  const readsBody = json || isMultipart(def) || def.bodyType === 'form' || def.bodyType === 'raw';
  if (json) implied.push(KernelErrors.malformed_json);
  if (def.auth !== 'public') implied.push(KernelErrors.unauthenticated, KernelErrors.forbidden);
  if (def.path.includes('{')) implied.push(KernelErrors.not_found);
  if (readsBody) implied.push(KernelErrors.request_timeout, KernelErrors.payload_too_large);
  // A raw route takes any media type and validates nothing: it hands the bytes over as they came.
  if (readsBody && def.bodyType !== 'raw') implied.push(KernelErrors.unsupported_media_type);
  if ((readsBody && def.bodyType !== 'raw') || def.query || idempotent) implied.push(KernelErrors.validation_failed);
  if (idempotent) implied.push(KernelErrors.idempotency_in_flight, KernelErrors.idempotency_key_reused);
  const byCode = new Map<string, CodedError>();
  for (const entry of [...implied, ...(def.errors ?? [])]) byCode.set(entry.code, entry);
  return [...byCode.values()];
}

/** A problem body as an example of one code, so the reference shows each code a status stands for. */
function problemExample(entry: CodedError) {
  return {
    summary: entry.when,
    value: { type: `urn:tessera:problem:${entry.code}`, title: entry.title, status: entry.status, detail: `${entry.when}.`, code: entry.code, request_id: '3f0c1d2e-9b8a-4c7d-8e6f-5a4b3c2d1e0f' },
  };
}

/**
 * Lists each code under its status: a status the route does not describe itself gets the codes' `when` as its
 * description; every problem response carries its codes (`x-tessera-codes`) and an example of each.
 */
function documentErrors(plain: Plain, def: RouteDef, idempotent: boolean, responses: Record<string, any>): void {
  const byStatus = new Map<number, CodedError[]>();
  for (const entry of errorsOf(def, idempotent)) byStatus.set(entry.status, [...(byStatus.get(entry.status) ?? []), entry]);
  for (const [status, entries] of byStatus) {
    const described = def.responses[status]?.description;
    const unnamed = entries.map((e) => `\`${e.code}\``).filter((code) => !described?.includes(code));
    if (described) responses[status].description = unnamed.length ? `${described} (${unnamed.join(', ')})` : described;
    else responses[status] = response(plain, status, { description: entries.length === 1 ? entries[0].when : entries.map((e) => `\`${e.code}\`: ${e.when}`).join('; ') });
    const problem = responses[status].content?.[PROBLEM_TYPE];
    if (!problem) continue;
    responses[status]['x-tessera-codes'] = entries.map((e) => e.code);
    problem.examples = Object.fromEntries(entries.map((e) => [e.code, problemExample(e)]));
  }
}

const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes retrying this create safe. Honoured for signed-in callers (keys are per user); ignored for anonymous calls. ' +
    'Repeating a key with the same request (method, path, query and body, defaults applied) answers with the first ' +
    `response and \`${REPLAYED_HEADER}: true\` without running again; with a different request → 422 \`idempotency_key_reused\`; ` +
    'while the first request is still running → 409 `idempotency_in_flight`. A first attempt that failed (4xx/5xx) is ' +
    `not remembered, so the same key may be retried. Keys are remembered for ${IDEMPOTENCY_TTL_HOURS} hours.`,
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

const IDEMPOTENCY_IGNORED =
  'This route does not take `Idempotency-Key`: its response is never stored, so a sent key is ignored and every call creates anew.';

/** The replay marker on the success response; the 409/422 answers a key can cause are among the route's codes. */
function documentReplay(def: RouteDef, responses: Record<string, any>): void {
  const success = responses[def.status!];
  if (success) success.headers = { ...success.headers, [REPLAYED_HEADER]: { description: '`true` when this is the recorded response of an earlier request with the same key', schema: { type: 'string', enum: ['true'] } } };
}

function accessSentence(def: RouteDef): string | undefined {
  const rule = def.access;
  if (!rule) return undefined;
  const where = rule.resource ? `on this ${rule.resource.type}` : 'in this workspace';
  const creator = rule.creatorRole ? ` (or, for the ${rule.resource?.type ?? 'resource'}'s creator, "${rule.creatorRole}")` : '';
  return `Requires the "${rule.role}" role ${where}${creator}; a personal access token also needs the scope for it.`;
}

const REQUEST_ID_HEADER = { $ref: '#/components/headers/RequestId' };
const RETRY_AFTER_HEADER = { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } };

/** An error's body: the problem, with the extension members the route names. */
function problemContent(plain: Plain, extensions?: Record<string, TSchema>): object {
  if (!extensions) return { [PROBLEM_TYPE]: { schema: PROBLEM_REF } };
  // Not required: a route's status may come from several causes, each with its own members.
  const members = { type: 'object', properties: Object.fromEntries(Object.entries(extensions).map(([k, v]) => [k, plain(v)])) };
  return { [PROBLEM_TYPE]: { schema: { allOf: [PROBLEM_REF, members] } } };
}

function response(plain: Plain, status: number, spec: ResponseSpec): Record<string, unknown> {
  const types = [spec.contentType ?? (spec.schema ? 'application/json' : [])].flat();
  const content = status >= 400 && !spec.schema
    ? problemContent(plain, spec.extensions)
    : types.length ? Object.fromEntries(types.map((type) => [type, spec.schema ? { schema: plain(spec.schema) } : {}])) : undefined;
  const headers: Record<string, object> = { 'X-Request-Id': REQUEST_ID_HEADER };
  if (status === 429) headers['Retry-After'] = RETRY_AFTER_HEADER;
  for (const [name, header] of Object.entries(spec.headers ?? {})) headers[name] = { description: header.description, schema: plain(header.schema) ?? { type: 'string' } };
  return { description: spec.description, headers, ...(content ? { content } : {}) };
}

function operation(plain: Plain, pluginId: string, def: RouteDef) {
  const responses: Record<string, any> = {};
  for (const [status, spec] of Object.entries(def.responses)) responses[status] = response(plain, Number(status), spec);
  const idempotent = isIdempotentRoute(def);
  documentErrors(plain, def, idempotent, responses);
  if (idempotent) documentReplay(def, responses);
  const optedOut = def.method === 'POST' && def.status === 201 && !idempotent;
  const description = [def.description, accessSentence(def), optedOut ? IDEMPOTENCY_IGNORED : undefined].filter(Boolean).join(' ');
  const requestBody = isMultipart(def)
    ? { required: true, content: { 'multipart/form-data': { schema: defaultsOptional(plain(def.body)) ?? { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } } } }
    : def.bodyType === 'form'
      ? { required: false, content: Object.fromEntries(['application/x-www-form-urlencoded', 'multipart/form-data'].map((type) => [type, { schema: defaultsOptional(plain(def.body)), ...(def.example === undefined ? {} : { example: def.example }) }])) }
      : def.bodyType === 'raw'
        ? { required: false, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } }
      : def.body
        ? { required: true, content: { 'application/json': { schema: defaultsOptional(plain(def.body)), ...(def.example === undefined ? {} : { example: def.example }) } } }
      : undefined;
  return {
    operationId: def.operationId ?? `${pluginId}.${def.method.toLowerCase()}${def.path.replace(/\{([^}]+)\}/g, 'By_$1').replace(/[^A-Za-z0-9_]+/g, '_')}`,
    summary: def.summary,
    ...(description ? { description } : {}),
    tags: def.tags ?? [pluginId],
    'x-tessera-plugin': pluginId,
    'x-tessera-auth': def.auth,
    ...(def.access ? { 'x-tessera-role': def.access.role } : {}),
    ...(def.auth === 'public' ? { security: [] } : {}),
    parameters: [...parametersOf(plain, def, 'path'), ...parametersOf(plain, def, 'query'), ...(idempotent ? [IDEMPOTENCY_KEY_PARAMETER] : [])],
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/**
 * `serverUrl`: the configured public URL. Without one the server is `/`, which a client resolves against the address
 * it fetched this document from (OpenAPI 3.1), so "Try it out" and generated clients reach the instance that served it.
 * `ctx`: the kernel's services, for the schemas documented only once every plugin has registered.
 */
export function buildOpenApi(routes: RegisteredRoute[], ctx: DocContext, serverUrl?: string) {
  const components: Record<string, object> = {};
  const plain = plainer(components, ctx);
  const paths: Record<string, Record<string, object>> = {};
  for (const { pluginId, def } of routes) {
    const p = `${API_PREFIX}${def.path}`;
    (paths[p] ??= {})[def.method.toLowerCase()] = operation(plain, pluginId, def);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tessera API',
      version: KERNEL_VERSION,
      description: 'Structured records, served by a small kernel and the plugins enabled on this instance.',
    },
    servers: [{ url: serverUrl?.replace(/\/+$/, '') || '/' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A session token (`tss_…`) or a personal access token (`tpat_…`).' },
      },
      schemas: { ...components, Problem: PROBLEM_SCHEMA },
      headers: {
        RequestId: { description: 'The id of this request (the one sent, if well-formed, else a new UUID): quote it when reporting a problem.', schema: { type: 'string' } },
      },
    },
  };
}

const require = createRequire(import.meta.url);
const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png']);

/** The reference page, served from the locally installed swagger-ui-dist (no CDN). */
export function docsPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tessera API reference</title>
<link rel="stylesheet" href="${API_PREFIX}/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="${API_PREFIX}/docs/assets/swagger-ui-bundle.js"></script>
<script src="${API_PREFIX}/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="${API_PREFIX}/docs/assets/tessera-docs.js"></script>
</body></html>`;
}

/** The page's own start-up script, a file rather than inline so the page's CSP allows scripts from 'self' only. */
const DOCS_SCRIPT = `window.ui = SwaggerUIBundle({ url: '${API_PREFIX}/openapi.json', dom_id: '#ui', deepLinking: true, filter: true, presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });`;

/** The types the reference page's assets are sent as. */
export const DOCS_ASSET_TYPES = ['application/javascript', 'text/css', 'image/png'];

export function docsAsset(name: string): { body: fs.ReadStream | string; type: string } | null {
  if (name === 'tessera-docs.js') return { body: DOCS_SCRIPT, type: DOCS_ASSET_TYPES[0] };
  if (!ASSETS.has(name)) return null;
  const type = name.endsWith('.css') ? DOCS_ASSET_TYPES[1] : name.endsWith('.png') ? DOCS_ASSET_TYPES[2] : DOCS_ASSET_TYPES[0];
  return { body: fs.createReadStream(path.join(SWAGGER_DIR, name)), type };
}
