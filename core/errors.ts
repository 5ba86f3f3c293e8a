/**
 * Every error a client can see is an AppError with a stable `code`; this file is the
 * one place such codes are defined. Start-up errors (config, plugins) are separate:
 * they go to the operator, not to an HTTP client.
 */
export interface ErrorDetail {
  pointer: string;
  detail: string;
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

export const badRequest = (detail: string, code = 'bad_request') =>
  new AppError({ status: 400, code, title: 'Bad Request', detail });

export const malformedJson = (detail = 'The request body is not valid JSON.') =>
  new AppError({ status: 400, code: 'malformed_json', title: 'Bad Request', detail });

export const unauthenticated = (detail = 'A valid bearer credential is required.') =>
  new AppError({
    status: 401,
    code: 'unauthenticated',
    title: 'Unauthorized',
    detail,
    headers: { 'WWW-Authenticate': 'Bearer' },
  });

export const forbidden = (detail = 'You are not allowed to do this.') =>
  new AppError({ status: 403, code: 'forbidden', title: 'Forbidden', detail });

export const notFound = (detail = 'The resource does not exist.') =>
  new AppError({ status: 404, code: 'not_found', title: 'Not Found', detail });

export const conflict = (detail: string, extensions?: Record<string, unknown>, code = 'conflict') =>
  new AppError({ status: 409, code, title: 'Conflict', detail, extensions });

export const versionConflict = (currentVersion: number) =>
  conflict('The resource was changed by someone else.', { current_version: currentVersion }, 'version_conflict');

/** Another request with the same Idempotency-Key has not finished yet. */
export const idempotencyInFlight = () =>
  conflict('A request with this Idempotency-Key is still being processed; retry once it has finished.', undefined, 'idempotency_in_flight');

/** The key was first used for another request (method, path or body): replaying would answer the wrong question. */
export const idempotencyKeyReused = () =>
  new AppError({
    status: 422,
    code: 'idempotency_key_reused',
    title: 'Unprocessable Content',
    detail: 'This Idempotency-Key was already used for a different request (method, path or body).',
    errors: [{ pointer: '/headers/idempotency-key', detail: 'Use a new key for a different request.' }],
  });

export const payloadTooLarge = (detail: string) =>
  new AppError({ status: 413, code: 'payload_too_large', title: 'Content Too Large', detail });

export const unsupportedMediaType = (detail: string) =>
  new AppError({ status: 415, code: 'unsupported_media_type', title: 'Unsupported Media Type', detail });

export const validationFailed = (errors: ErrorDetail[], detail?: string) =>
  new AppError({
    status: 422,
    code: 'validation_failed',
    title: 'Unprocessable Content',
    detail: detail ?? (errors.length === 1 ? errors[0].detail : `${errors.length} values are invalid.`),
    errors,
  });

export const invalidField = (pointer: string, detail: string) => validationFailed([{ pointer, detail }]);

export const limitExceeded = (detail: string, extensions?: Record<string, unknown>) =>
  new AppError({ status: 422, code: 'limit_exceeded', title: 'Unprocessable Content', detail, extensions });

export const rateLimited = (retryAfterSeconds: number) =>
  new AppError({
    status: 429,
    code: 'rate_limited',
    title: 'Too Many Requests',
    detail: `Too many attempts; retry in ${retryAfterSeconds} s.`,
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

/** An upstream the server depends on (an OAuth provider, a payment provider) failed or answered nonsense. */
export const providerError = (detail: string) =>
  new AppError({ status: 502, code: 'provider_error', title: 'Bad Gateway', detail });

export const serviceUnavailable = (detail: string, extensions?: Record<string, unknown>) =>
  new AppError({ status: 503, code: 'service_unavailable', title: 'Service Unavailable', detail, extensions });

export const internalError = () =>
  new AppError({ status: 500, code: 'internal_error', title: 'Internal Server Error', detail: 'An unexpected error occurred.' });

/** Raised while starting the kernel; the message names the config key or plugins at fault. */
export class StartupError extends Error {
  constructor(message: string, readonly code: string, readonly pluginIds: string[] = []) {
    super(message);
    this.name = 'StartupError';
  }
}
