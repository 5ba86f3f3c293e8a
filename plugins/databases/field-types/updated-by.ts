import { Type } from '../../../core/schema.ts';
import { PERSON_OPS } from './ops.ts';
import { formatPerson, personOut, personSortSql } from './person.ts';
import { systemFieldType } from './system.ts';

/** Who last changed the record, read as `{ id, name }`. */
export const updatedByType = systemFieldType<Record<string, never>>({
  type: 'updated_by',
  cell: { schema: { type: ['object', 'null'], properties: { id: { type: 'string', format: 'uuid' }, name: { type: ['string', 'null'] } } }, example: { id: '0190c7a2-5b7e-7000-8000-000000000003', name: 'Ada Lovelace' }, writes: 'Read-only.' },
  options: Type.Object({}, { additionalProperties: false }),
  systemColumn: 'updated_by',
  toApi: (value, _field, ctx) => personOut(value, ctx),
  ops: PERSON_OPS,
  sortExpr: personSortSql,
  sortType: 'text',
  format: formatPerson,
});
