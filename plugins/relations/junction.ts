import type { Db } from '../../core/db.ts';

export type RelationKind = 'one_to_many' | 'many_to_many';

/** `lnk_` and the relation id without dashes: derived from an id, never from user text. */
export function junctionNameOf(relationId: string): string {
  return `lnk_${relationId.replace(/-/g, '')}`;
}

/**
 * One row per link: `from_id` a record of the relation's `from` database, `to_id` one of its `to`
 * database (no foreign keys: records live in per-database tables, and a soft-deleted record keeps
 * its links, hidden, for its restore). Indexed both ways; in a one-to-many relation a `to` record
 * has at most one `from` (the unique index says so).
 */
export async function createJunction(trx: Db, table: string, kind: RelationKind): Promise<void> {
  await trx.raw(
    `CREATE TABLE ?? (
       from_id uuid NOT NULL,
       to_id uuid NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (from_id, to_id)
     )`,
    [table],
  );
  const unique = kind === 'one_to_many' ? 'UNIQUE ' : '';
  await trx.raw(`CREATE ${unique}INDEX ?? ON ?? (to_id${kind === 'one_to_many' ? '' : ', from_id'})`, [`${table}_to`, table]);
}
