import type { Knex } from 'knex';
import type { Logger } from 'pino';

/** Routes knex's own warnings and errors to the kernel's logger (else knex prints plain text). */
export function knexLog(logger?: Logger): Knex.Config['log'] {
  if (!logger) return undefined;
  return {
    warn: (message: unknown) => logger.warn({ source: 'knex' }, String(message)),
    error: (message: unknown) => logger.error({ source: 'knex' }, String(message)),
    deprecate: (method: string, alternative: string) => logger.warn({ source: 'knex' }, `${method} is deprecated; use ${alternative}`),
    debug: (message: unknown) => logger.debug({ source: 'knex' }, String(message)),
  };
}
