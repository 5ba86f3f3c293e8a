import type { Db, Trx } from './db-types.ts';

/** The one transaction helper: runs `fn` in `trx` when given, else in a new transaction. */
export function inTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>, trx?: Db): Promise<T> {
  if (trx && (trx as Trx).isTransaction) return fn(trx as Trx);
  return db.transaction(fn);
}

/** A knex transaction as nested ones see it: a savepoint's parent is the transaction it was opened in. */
interface TransactionLevel {
  isTransaction?: boolean;
  executionPromise?: Promise<unknown>;
  parentTransaction?: TransactionLevel;
}

/**
 * Runs `fn` once `trx` has committed (at once when `trx` is no transaction); never when it rolls back. In a savepoint
 * that is once the outermost transaction commits, and only if no level in between rolled back: a released savepoint
 * is not a commit.
 */
export function afterCommit(trx: Db | undefined, fn: () => void): void {
  const levels: Promise<unknown>[] = [];
  for (let t = trx as TransactionLevel | undefined; t?.isTransaction; t = t.parentTransaction) {
    if (t.executionPromise) levels.push(t.executionPromise);
  }
  if (levels.length === 0) fn();
  else Promise.all(levels).then(fn, () => {});
}

/**
 * Runs `fn` once if `trx` does not commit: it, or any transaction it is a savepoint of, rolls back. For undoing what
 * was written outside the database for the transaction (a blob its rows would own).
 */
export function afterRollback(trx: Db, fn: () => void): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    fn();
  };
  for (let t = trx as TransactionLevel | undefined; t?.isTransaction; t = t.parentTransaction) t.executionPromise?.then(() => {}, once);
}

/**
 * Runs `fn` in a savepoint of `trx`: when it throws, what it wrote is undone and `trx` carries on (one bad item of a
 * batch, reported, without losing the transaction on PostgreSQL).
 */
export function inSavepoint<T>(trx: Trx, fn: (savepoint: Trx) => Promise<T>): Promise<T> {
  return trx.transaction(fn);
}
