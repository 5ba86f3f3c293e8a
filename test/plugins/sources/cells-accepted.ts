import assert from 'node:assert/strict';
import { Value } from '@sinclair/typebox/value';
import { InvalidCell } from '../../../plugins/databases/errors.ts';
import { BUILTIN_FIELD_TYPES } from '../../../plugins/databases/field-types/builtins.ts';
import type { SourceProperty, SourceRow } from '../../../plugins/sources/public.ts';

/**
 * Every value of every row (a deletion has none) as the databases plugin would take it through the API: each property's
 * field type, with its options normalized as a field created from the property would have them, must accept the value.
 */
export function assertCellsAccepted(properties: SourceProperty[], rows: SourceRow[]): void {
  for (const property of properties) {
    const type = BUILTIN_FIELD_TYPES.find((t) => t.type === property.type);
    assert.ok(type, `no field type ${property.type}`);
    const options = Value.Default(type.options, structuredClone(property.options ?? {})) as Record<string, unknown>;
    const field = { id: property.key, api_name: property.key, type: property.type, options: type.normalizeOptions ? type.normalizeOptions(options) : options };
    for (const row of rows.filter((r) => !r.deleted)) {
      assert.ok(Object.hasOwn(row.values, property.key), `${row.key} has no ${property.key}`);
      const value = row.values[property.key];
      if (value === null) continue;
      try {
        type.fromApi(value, field);
      } catch (err) {
        if (err instanceof InvalidCell) assert.fail(`${property.key} of ${row.key}: ${JSON.stringify(value).slice(0, 200)} refused: ${err.detail}`);
        throw err;
      }
    }
  }
}
