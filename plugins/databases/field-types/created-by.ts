import { Type } from '../../../core/schema.ts';
import { PERSON_OPS } from './ops.ts';
import { formatPerson, personOut, personSortSql } from './person.ts';
import { systemFieldType } from './system.ts';

/** Who created the record, read as `{ id, name }`. */
export const createdByType = systemFieldType<Record<string, never>>({
  type: 'created_by',
  options: Type.Object({}, { additionalProperties: false }),
  systemColumn: 'created_by',
  toApi: (value, _field, ctx) => personOut(value, ctx),
  ops: PERSON_OPS,
  sortExpr: personSortSql,
  sortType: 'text',
  format: formatPerson,
});
