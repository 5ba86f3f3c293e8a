/**
 * Every error a client can see is an AppError with a stable `code`, declared once in a catalogue
 * (`defineErrors`): the kernel's below, each plugin's in its own `errors.ts`. Routes name the entries
 * they can answer with (`RouteDef.errors`), so the OpenAPI document lists the codes per operation.
 * Start-up errors (config, plugins) are separate: they go to the operator, not to an HTTP client.
 */
export interface ErrorDetail {
  pointer: string;
  detail: string;
  /** Why this value in particular, where a plugin tells kinds of problems apart (`field_read_only`). */
  code?: string;
}

export interface AppErrorInit {
  status: number;
  code: string;
  title: string;
  detail: string;
  errors?: ErrorDetail[];
  headers?: Record<string, string>;
  extensions?: Record<string, unknown>;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly errors?: ErrorDetail[];
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(init: AppErrorInit) {
    super(init.detail);
    this.name = 'AppError';
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.errors = init.errors;
    this.headers = init.headers ?? {};
    this.extensions = init.extensions ?? {};
  }
}

/** What a catalogue entry's factory fills in: the detail alone, or the detail with its members. */
export type ErrorBody = string | Pick<AppErrorInit, 'detail' | 'errors' | 'headers' | 'extensions'>;

export interface ErrorSpec<A extends unknown[] = any[]> {
  status: number;
  /** When a client gets this code: one phrase, shown under the operations that name it. */
  when: string;
  create: (...args: A) => ErrorBody;
}

/** One entry of a catalogue: call it to get the error; its code, status and `when` document it. */
export interface CodedError<A extends unknown[] = any[], C extends string = string> {
  (...args: A): AppError;
  readonly code: C;
  readonly status: number;
  readonly title: string;
  readonly when: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** Declares a catalogue: each key is a stable snake_case code, each value its status, `when` and factory. */
export function defineErrors<S extends Record<string, ErrorSpec>>(specs: S): { readonly [K in keyof S]: CodedError<Parameters<S[K]['create']>, K & string> } {
  const catalogue: Record<string, CodedError> = {};
  for (const [code, spec] of Object.entries(specs)) {
    if (!/^[a-z][a-z0-9_]*$/.test(code)) throw new TypeError(`Error code "${code}" is not snake_case.`);
    const title = TITLES[spec.status] ?? 'Error';
    const entry = (...args: unknown[]) => {
      const body = spec.create(...args);
      return new AppError({ status: spec.status, code, title, ...(typeof body === 'string' ? { detail: body } : body) });
    };
    catalogue[code] = Object.assign(entry, { code, status: spec.status, title, when: spec.when });
  }
  return Object.freeze(catalogue) as never;
}

/** The codes the kernel answers with itself, whatever the plugin. */
export const KernelErrors = defineErrors({
  bad_request: { status: 400, when: 'The request is invalid', create: (detail: string) => detail },
  malformed_json: { status: 400, when: 'Malformed JSON', create: (detail = 'The request body is not valid JSON.') => detail },
  unauthenticated: {
    status: 401,
    when: 'Missing, invalid, expired or revoked credential',
    create: (detail = 'A valid bearer credential is required.') => ({ detail, headers: { 'WWW-Authenticate': 'Bearer' } }),
  },
  forbidden: { status: 403, when: 'Authenticated but not allowed', create: (detail = 'You are not allowed to do this.') => detail },
  not_found: { status: 404, when: 'Unknown or malformed id, or an id the caller cannot see', create: (detail = 'The resource does not exist.') => detail },
  method_not_allowed: { status: 405, when: 'This method is not allowed on this route', create: (detail = 'This method is not allowed on this route.') => detail },
  version_conflict: {
    status: 409,
    when: 'The `version` sent is stale; `current_version` is the one stored',
    create: (currentVersion: number) => ({ detail: 'The resource was changed by someone else.', extensions: { current_version: currentVersion } }),
  },
  idempotency_in_flight: {
    status: 409,
    when: 'A request with the same `Idempotency-Key` is still running',
    create: () => 'A request with this Idempotency-Key is still being processed; retry once it has finished.',
  },
  request_timeout: { status: 408, when: 'The body stopped coming for longer than the server waits', create: (detail: string) => detail },
  payload_too_large: { status: 413, when: 'Body too large', create: (detail: string) => detail },
  unsupported_media_type: { status: 415, when: 'Wrong content type', create: (detail: string) => detail },
  validation_failed: {
    status: 422,
    when: 'Well-formed but invalid input; `errors[]` carries JSON pointers',
    create: (errors: ErrorDetail[], detail?: string) => ({ detail: detail ?? (errors.length === 1 ? errors[0].detail : `${errors.length} values are invalid.`), errors }),
  },
  /** The key was first used for another request (method, path or body): replaying would answer the wrong question. */
  idempotency_key_reused: {
    status: 422,
    when: 'The `Idempotency-Key` was used for a different request',
    create: () => ({
      detail: 'This Idempotency-Key was already used for a different request (method, path or body).',
      errors: [{ pointer: '/headers/idempotency-key', detail: 'Use a new key for a different request.' }],
    }),
  },
  limit_exceeded: {
    status: 422,
    when: 'A configured limit would be exceeded; `limit` names it',
    create: (detail: string, extensions?: Record<string, unknown>) => ({ detail, extensions }),
  },
  rate_limited: {
    status: 429,
    when: 'Too many attempts; `Retry-After` says when to retry',
    create: (retryAfterSeconds: number) => ({ detail: `Too many attempts; retry in ${retryAfterSeconds} s.`, headers: { 'Retry-After': String(retryAfterSeconds) } }),
  },
  internal_error: { status: 500, when: 'An unexpected error', create: () => 'An unexpected error occurred.' },
  not_implemented: { status: 501, when: 'This method is not implemented', create: (detail = 'This method is not implemented.') => detail },
  /** An upstream the server depends on (an OAuth provider, a payment provider) failed or answered nonsense. */
  provider_error: { status: 502, when: 'An upstream provider failed or answered nonsense', create: (detail: string) => detail },
  service_unavailable: {
    status: 503,
    when: 'Something this operation needs is not available right now',
    create: (detail: string, extensions?: Record<string, unknown>) => ({ detail, extensions }),
  },
});

export const badRequest = KernelErrors.bad_request;
export const malformedJson = KernelErrors.malformed_json;
export const unauthenticated = KernelErrors.unauthenticated;
export const forbidden = KernelErrors.forbidden;
export const notFound = KernelErrors.not_found;
export const versionConflict = KernelErrors.version_conflict;
export const idempotencyInFlight = KernelErrors.idempotency_in_flight;
export const idempotencyKeyReused = KernelErrors.idempotency_key_reused;
export const requestTimeout = KernelErrors.request_timeout;
export const payloadTooLarge = KernelErrors.payload_too_large;
export const unsupportedMediaType = KernelErrors.unsupported_media_type;
export const validationFailed = KernelErrors.validation_failed;
export const invalidField = (pointer: string, detail: string) => validationFailed([{ pointer, detail }]);
export const limitExceeded = KernelErrors.limit_exceeded;
export const rateLimited = KernelErrors.rate_limited;
export const providerError = KernelErrors.provider_error;
export const serviceUnavailable = KernelErrors.service_unavailable;
export const internalError = KernelErrors.internal_error;

/** Every code a start-up can fail with, and what it means to the operator who reads it. */
export const STARTUP_CODES = {
  config_invalid: 'A config key (or the environment variable it names) is missing or invalid',
  database_locked: 'The embedded database directory is in use by another process',
  database_unreachable: 'PostgreSQL (DATABASE_URL) does not answer',
  data_dir_unwritable: 'DATA_DIR (or a directory in it) cannot be created or written',
  port_unavailable: 'The port is in use, needs privileges, or HOST is not an address of this machine',
  worker_failed: 'A worker process exited before listening',
  plugin_invalid: 'A plugin manifest is malformed, or a config key resolves to another plugin',
  plugin_unresolvable: 'A plugin named by `resolve` cannot be imported',
  plugin_unknown: 'A config key names no known plugin',
  plugin_duplicate: 'Two plugins have one id',
  plugin_cycle: 'Plugins depend on each other in a cycle',
  plugin_dependency_missing: 'A plugin depends on one that is not installed or not enabled',
  plugin_version_mismatch: 'A plugin depends on a version range another plugin does not satisfy',
  kernel_version_mismatch: 'A plugin needs another kernel version',
  plugin_options_invalid: "A plugin's options do not match its schema",
  plugin_failed: 'A plugin threw during register, a migration or boot',
  duplicate_route: 'Two plugins declare one method and path',
  route_invalid: 'A route declaration is inconsistent (operationId taken, scope "read" on a write)',
  duplicate_hooks: 'A hook set is defined twice',
  unknown_hooks: 'A plugin asks for a hook set no enabled plugin defines',
  undeclared_dependency: 'A plugin uses another (its hooks or services) without depending on it',
  duplicate_job: 'A job is defined twice',
  duplicate_service: 'A service key is registered by two plugins',
  unknown_service: 'A plugin resolves a service nobody registered',
  service_not_exported: "A plugin resolves another plugin's service that is not in its `exports`",
  unnamespaced_service: 'A service key is not namespaced `<plugin>.<name>`',
  duplicate_field_type: 'A field type is registered twice',
  duplicate_blob_store: 'Two plugins each provide the blob store',
} as const;

export type StartupCode = keyof typeof STARTUP_CODES;

/** Raised while starting the kernel; the message names the config key or plugins at fault. */
export class StartupError extends Error {
  constructor(message: string, readonly code: StartupCode, readonly pluginIds: string[] = []) {
    super(message);
    this.name = 'StartupError';
  }
}

/** `read()`'s answer, or undefined when what it reads is not there (any more): a 404 from the service it asks. */
export async function unlessGone<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return undefined;
    throw err;
  }
}
