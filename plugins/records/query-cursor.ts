import type { SqlCondition } from '../databases/public.ts';
import { ID_KEY, type SortKey } from './sort-keys.ts';

/**
 * Records after the cursor in the order of `keys` (nulls last in both directions). When every key
 * is non-null and all go the same way, one row comparison, which a `(key…, id)` index serves;
 * otherwise the expansion "equal on the first i keys, after on the next".
 */
export function afterCursor(keys: SortKey[], values: Array<string | null>): SqlCondition {
  const value = (i: number) => `?::${keys[i].type}`;
  if (keys.every((k) => !k.nullable && k.direction === keys[0].direction)) {
    return {
      sql: `(${keys.map((k) => k.expr).join(', ')}) ${keys[0].direction === 'asc' ? '>' : '<'} (${keys.map((_, i) => value(i)).join(', ')})`,
      bindings: values,
    };
  }
  const terms: SqlCondition[] = [];
  for (let i = 0; i < keys.length; i++) {
    if (values[i] === null) continue; // nothing sorts after an empty key but other empty ones, compared on later keys
    const prefix = keys.slice(0, i).map((k, j): SqlCondition => (values[j] === null ? { sql: `${k.expr} IS NULL`, bindings: [] } : { sql: `${k.expr} = ${value(j)}`, bindings: [values[j]] }));
    const k = keys[i];
    const beyond = `${k.expr} ${k.direction === 'asc' ? '>' : '<'} ${value(i)}`;
    const after: SqlCondition = { sql: k.nullable ? `(${beyond} OR ${k.expr} IS NULL)` : beyond, bindings: [values[i]] };
    const parts = [...prefix, after];
    terms.push({ sql: parts.map((p) => p.sql).join(' AND '), bindings: parts.flatMap((p) => p.bindings) });
  }
  if (terms.length === 0) return { sql: 'false', bindings: [] };
  return { sql: `(${terms.map((t) => `(${t.sql})`).join(' OR ')})`, bindings: terms.flatMap((t) => t.bindings) };
}

export function orderBy(keys: SortKey[]): string {
  return keys.map((k) => `${k.expr} ${k.direction === 'asc' ? 'ASC' : 'DESC'} NULLS LAST`).join(', ');
}

/**
 * For a sort on one nullable key (then `id`) and a cursor whose key is not empty: the non-empty records after the
 * cursor as a range an index on `(key, id)` in the sort's direction starts at (`key >= v`, or `<=` descending, the
 * equal ones after the cursor's id). The empty ones after it are all the records whose key is empty. Undefined for
 * any other sort or cursor: `afterCursor` alone serves them.
 */
export function nullableBound(keys: SortKey[], values: Array<string | null>): SqlCondition | undefined {
  const [key, id] = keys;
  if (keys.length !== 2 || id !== ID_KEY || !key.nullable || key.join || values[0] === null) return undefined;
  const [from, beyond] = key.direction === 'asc' ? ['>=', '>'] : ['<=', '<'];
  return {
    sql: `${key.expr} ${from} ?::${key.type} AND (${key.expr} ${beyond} ?::${key.type} OR "id" > ?::uuid)`,
    bindings: [values[0], values[0], values[1]],
  };
}
