import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import type { Logger } from './logger.ts';

/**
 * What to do with a query that code running inside a transaction sends outside it, on a database
 * with one connection: `fail` at once (tests), or `log` it loudly and let it wait (production).
 */
export type StrayQueries = 'fail' | 'log';

export class StrayQueryError extends Error {
  constructor() {
    super(
      'A query was sent outside the transaction that the code sending it runs in. PGlite has one connection, which that transaction holds: ' +
        'the query would wait for the transaction, and the transaction for it. Send it on the transaction (`trx`), or before the transaction starts.',
    );
    this.name = 'StrayQueryError';
  }
}

/**
 * PGlite has one connection. While a transaction holds it, a query that the transaction's own
 * code sends on the root knex waits for that connection, so the transaction never ends: the
 * request hangs until knex gives up (60 s) and every other request waits behind it. PostgreSQL's
 * pool hides the mistake, so it ships unnoticed. This marks the code of every transaction (an
 * async context, open until its callback settles) and checks each connection the root client is
 * asked for: asked from inside an open transaction, it is that mistake.
 */
export function guardHeldConnection(knex: Knex, mode: StrayQueries, logger?: Logger): void {
  const inside = new AsyncLocalStorage<{ open: boolean }>();
  const client = knex.client as { transaction: (container: unknown, ...rest: unknown[]) => unknown; acquireConnection: () => Promise<unknown> };
  const transaction = client.transaction.bind(client);
  client.transaction = (container: unknown, ...rest: unknown[]) => {
    if (typeof container !== 'function') return transaction(container, ...rest);
    const held = { open: true };
    return transaction((trx: Knex.Transaction) => {
      let result: unknown;
      try {
        result = inside.run(held, () => container(trx));
      } catch (err) {
        held.open = false;
        throw err;
      }
      // knex commits when the callback's promise settles: the code is done with the connection then.
      // A callback returning nothing (`knex.transaction()` without one) hands the transaction out: no code to mark.
      if (!(result instanceof Promise)) {
        held.open = false;
        return result;
      }
      return result.finally(() => {
        held.open = false;
      });
    }, ...rest);
  };
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = () => {
    if (!inside.getStore()?.open) return acquire();
    const error = new StrayQueryError();
    if (mode === 'fail') return Promise.reject(error);
    logger?.error({ err: error }, 'a query waits for the connection its own transaction holds: this request will hang until the acquire timeout');
    return acquire();
  };
}
