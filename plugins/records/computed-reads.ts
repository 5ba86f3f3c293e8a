import type { FieldMeta } from '../databases/public.ts';
import type { LiveField } from './live-fields.ts';

/** The name a computed field's value has in a row (types with `select`, no column). */
export function computedAlias(field: FieldMeta): string {
  return `c_${field.id.replace(/-/g, '')}`;
}

/**
 * The SQL reading the computed fields among `fields` for the record aliased `row`: a cell per
 * field, and LATERAL joins to add after `row`'s table. Fields whose aggregates go over the same
 * rows (a link and the lookups through it) share one join, which visits those rows once; a field
 * alone on its rows stays a scalar subquery.
 */
export function computedReads(fields: LiveField[], row: string): { cells: string[]; joins: string[] } {
  const cells: string[] = [];
  const shared = new Map<string, Array<{ field: LiveField; value: string }>>();
  for (const field of fields) {
    if (field.column_name || !field.fieldType.select) continue;
    const aggregate = field.fieldType.aggregate?.(field);
    if (!aggregate) {
      cells.push(`${field.fieldType.select(field, row)} AS "${computedAlias(field)}"`);
      continue;
    }
    const from = aggregate.from(row);
    const members = shared.get(from) ?? [];
    shared.set(from, [...members, { field, value: aggregate.value }]);
  }
  const joins: string[] = [];
  for (const [from, members] of shared) {
    if (members.length === 1) {
      cells.push(`(SELECT ${members[0].value} ${from}) AS "${computedAlias(members[0].field)}"`);
      continue;
    }
    const alias = `cg${joins.length}`;
    joins.push(`LEFT JOIN LATERAL (SELECT ${members.map((m) => `${m.value} AS "${computedAlias(m.field)}"`).join(', ')} ${from}) AS "${alias}" ON true`);
    for (const m of members) cells.push(`"${alias}"."${computedAlias(m.field)}" AS "${computedAlias(m.field)}"`);
  }
  return { cells, joins };
}

/** Where a field's value is in a row: its column, the system column it reads, or its computed alias. */
export function sourceOf(field: LiveField): string | undefined {
  return field.column_name ?? field.fieldType.systemColumn ?? (field.fieldType.select ? computedAlias(field) : undefined);
}
