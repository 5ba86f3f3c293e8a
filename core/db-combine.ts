import type { NativeStatement } from './db-types.ts';

const PLACEHOLDER = /\$(\d+)/g;
/**
 * Renumbered texts by offset and text: a write's parts repeat from one write to the next, and renumbering a bulk
 * create's took ~1 ms. Longer texts (an import batch's events) are renumbered each time, a small share of their
 * write; the bounds keep this under ~8 MB.
 */
const renumbered = new Map<string, string>();
const MAX_RENUMBERED = 256;
const MAX_REMEMBERED_TEXT = 16 * 1024;

function shifted(sql: string, offset: number): string {
  if (offset === 0) return sql;
  if (sql.length > MAX_REMEMBERED_TEXT) return renumber(sql, offset);
  const key = `${offset}\n${sql}`;
  let text = renumbered.get(key);
  if (text === undefined) {
    text = renumber(sql, offset);
    if (renumbered.size >= MAX_RENUMBERED) renumbered.clear();
    renumbered.set(key, text);
  }
  return text;
}

function renumber(sql: string, offset: number): string {
  return sql.replace(PLACEHOLDER, (_, n: string) => `$${Number(n) + offset}`);
}

/**
 * Writes that return nothing, as one statement: `WITH w1 AS (…), w2 AS (…) SELECT` with the placeholders of each
 * renumbered after those of the ones before it. One round trip instead of one each: every sub-statement runs to
 * completion on the same snapshot (PostgreSQL's data-modifying `WITH`), so they must not touch the same rows, and none
 * may hold a data-modifying `WITH` of its own (PostgreSQL takes those only at the top level). The
 * statements are our own SQL, whose `$n` are all placeholders (no `$` in literals or dollar quotes).
 */
export function combineWrites(statements: readonly NativeStatement[]): NativeStatement {
  if (statements.length === 1) return statements[0];
  const parts: string[] = [];
  const bindings: unknown[] = [];
  statements.forEach((statement, i) => {
    const offset = bindings.length;
    parts.push(`w${i + 1} AS (${shifted(statement.sql, offset)})`);
    bindings.push(...statement.bindings);
  });
  return { sql: `WITH ${parts.join(',\n')}\nSELECT`, bindings };
}

/** PostgreSQL's limit on the parameters of one statement. */
const MAX_BINDINGS = 65_535;

/** `combineWrites` over consecutive runs of `statements`, each run within PostgreSQL's limit on parameters. */
export function combineWritesWithinLimit(statements: readonly NativeStatement[]): NativeStatement[] {
  const combined: NativeStatement[] = [];
  let run: NativeStatement[] = [];
  let bindings = 0;
  for (const statement of statements) {
    if (run.length > 0 && bindings + statement.bindings.length > MAX_BINDINGS) {
      combined.push(combineWrites(run));
      run = [];
      bindings = 0;
    }
    run.push(statement);
    bindings += statement.bindings.length;
  }
  if (run.length > 0) combined.push(combineWrites(run));
  return combined;
}
