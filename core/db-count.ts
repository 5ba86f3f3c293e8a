import type { Knex } from 'knex';

/** How many rows `query` matches, in one `count(*)`: a number on both drivers (node-postgres reads a bigint as text). */
export async function countRows(query: Knex.QueryBuilder): Promise<number> {
  const [row] = await query.count({ n: '*' });
  return Number(row.n);
}
