import { Type } from '../../../core/schema.ts';
import { PERSON_OPS } from './ops.ts';
import { formatPerson, personOut, personSortSql } from './person.ts';
import { systemFieldType } from './system.ts';

/** Who last changed the record, read as `{ id, name }`. */
export const updatedByType = systemFieldType<Record<string, never>>({
  type: 'updated_by',
  options: Type.Object({}, { additionalProperties: false }),
  systemColumn: 'updated_by',
  toApi: (value, _field, ctx) => personOut(value, ctx),
  ops: PERSON_OPS,
  sortExpr: personSortSql,
  sortType: 'text',
  format: formatPerson,
});
