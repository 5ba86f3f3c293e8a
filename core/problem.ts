import type { Context } from 'koa';
import { AppError, internalError, KernelErrors } from './errors.ts';
import { PluginHookError } from './hooks.ts';
import type { Logger } from 'pino';

export const PROBLEM_TYPE = 'application/problem+json';

/** Koa and its middleware throw `HttpError`s with a status; give them our codes. */
function fromHttpError(err: { status?: number; statusCode?: number; message?: string; expose?: boolean }): AppError | null {
  const status = err.status ?? err.statusCode;
  if (!status || status < 400 || status > 599) return null;
  const byStatus: Record<number, () => AppError> = {
    400: () => KernelErrors.malformed_json('The request body could not be parsed.'),
    404: () => KernelErrors.not_found('No such route.'),
    405: () => KernelErrors.method_not_allowed(),
    413: () => KernelErrors.payload_too_large('The request body is too large.'),
    415: () => KernelErrors.unsupported_media_type('This content type is not accepted here.'),
    501: () => KernelErrors.not_implemented(),
  };
  const known = byStatus[status];
  if (!known) return status >= 500 ? null : new AppError({ status, code: 'bad_request', title: 'Bad Request', detail: err.expose && err.message ? err.message : 'The request is invalid.' });
  return known();
}

export function toAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (err instanceof PluginHookError && err.cause instanceof AppError) return err.cause;
  if (err && typeof err === 'object' && !(err instanceof PluginHookError)) return fromHttpError(err as never);
  return null;
}

/** Writes any thrown value as RFC 9457 problem+json; unexpected errors are logged, never exposed. */
export function renderProblem(ctx: Context, err: unknown, requestId: string, logger: Logger): void {
  let problem = toAppError(err);
  if (!problem) {
    const plugin = err instanceof PluginHookError ? err.pluginId : undefined;
    logger.error({ err, requestId, plugin, method: ctx.method, path: ctx.path }, 'unhandled error');
    problem = internalError();
  }
  ctx.status = problem.status;
  for (const [k, v] of Object.entries(problem.headers)) ctx.set(k, v);
  ctx.type = PROBLEM_TYPE;
  ctx.body = {
    type: `urn:tessera:problem:${problem.code}`,
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    request_id: requestId,
    ...(problem.errors ? { errors: problem.errors } : {}),
    ...problem.extensions,
  };
}
