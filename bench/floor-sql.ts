/**
 * The statements of the floor (bench/floor.ts) and of PostgreSQL alone (bench/records/postgres-alone.ts): a records
 * table's list page, one record by id, the filter + sort and the search of the records benchmark, each selecting the system
 * columns and every field column as Tessera does. One text for both, so that the two yardsticks answer the same SQL.
 */
export interface FloorStatements {
  list: string;
  one: string;
  /** `status = $1 AND priority ≥ 3`, sorted by amount then id; $2 the limit. */
  query: string;
  /**
   * Titles like $1 in manual order, $2 the limit: the matches taken from the trigram index first, then sorted (the
   * best plan for a rare text, which PostgreSQL does not always pick for the plain query).
   */
  search: string;
}

export interface FloorTable {
  table: string;
  /** Every field column, the `status`, `priority` and `amount` ones among them. */
  columns: string[];
  title: string;
  status: string;
  priority: string;
  amount: string;
}

export function floorStatements(t: FloorTable): FloorStatements {
  const columns = ['id', 'number', '"position"', 'created_at::text', 'updated_at::text', ...t.columns.map((c) => `"${c}"`)].join(', ');
  const from = `SELECT ${columns} FROM "${t.table}" WHERE deleted_at IS NULL`;
  return {
    list: `${from} ORDER BY "position", id LIMIT $1`,
    one: `${from} AND id = $1`,
    query: `${from} AND "${t.status}" = $1 AND "${t.priority}" >= 3 ORDER BY "${t.amount}" ASC NULLS LAST, id LIMIT $2`,
    search:
      `WITH matches AS MATERIALIZED (SELECT id, "position" FROM "${t.table}" WHERE deleted_at IS NULL AND "${t.title}" ILIKE $1) ` +
      `${from} AND id IN (SELECT id FROM matches ORDER BY "position", id LIMIT $2) ORDER BY "position", id`,
  };
}

/** The floor's table, from the environment bench/records.ts gives its process. */
export function floorTableFromEnv(env: NodeJS.ProcessEnv): FloorTable {
  return { table: env.FLOOR_TABLE!, columns: env.FLOOR_COLUMNS!.split(','), title: env.FLOOR_TITLE!, status: env.FLOOR_STATUS!, priority: env.FLOOR_PRIORITY!, amount: env.FLOOR_AMOUNT! };
}

/** The environment `floorTableFromEnv` reads. */
export function floorEnv(t: FloorTable): Record<string, string> {
  return { FLOOR_TABLE: t.table, FLOOR_COLUMNS: t.columns.join(','), FLOOR_TITLE: t.title, FLOOR_STATUS: t.status, FLOOR_PRIORITY: t.priority, FLOOR_AMOUNT: t.amount };
}
