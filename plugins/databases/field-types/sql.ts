/**
 * SQL text built by field types. Nothing here contains a `?`: callers embed these expressions in
 * knex.raw statements that also carry `?` bindings, and knex would take a `?` for a placeholder.
 */

/** A string literal. User text containing `?` becomes a U& literal with the `?` escaped. */
export function sqlString(value: string): string {
  if (!value.includes('?')) return `'${value.replace(/'/g, "''")}'`;
  return `U&'${value.replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/\?/g, '\\003F')}'`;
}

/** Trims the whitespace `trimText` trims: space, tab, LF, CR. */
export function sqlTrim(expr: string): string {
  return `btrim(${expr}, E' \\t\\n\\r')`;
}

export function trimText(text: string): string {
  return text.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '');
}

/** `CASE WHEN … END` from (condition, value) pairs; `NULL::<type>` when there are none (empty CASE is a syntax error). */
export function sqlCase(arms: Array<[string, string]>, nullType: string): string {
  if (arms.length === 0) return `NULL::${nullType}`;
  return `CASE ${arms.map(([when, then]) => `WHEN ${when} THEN ${then}`).join(' ')} END`;
}

/**
 * A text value as records are matched on it (auto-link rules): trimmed, lower-cased, NULL when
 * empty. One definition, so an index on it (`indexMatchKey`) serves the comparisons.
 */
export function matchKeyOf(text: string): string {
  return `nullif(lower(${sqlTrim(text)}), '')`;
}
