import { Type } from '../../../core/schema.ts';
import { defineFieldType } from './field-type.ts';
import { PERSON_OPS } from './ops.ts';
import { formatPerson, personIn, personOut, personSortSql } from './person.ts';
import { trimText } from './sql.ts';

/**
 * A user id. Whether the user exists and may be picked (a member of the workspace) is the records
 * engine's check, not this type's. Nothing converts to or from it: text has no way to name a user.
 */
export const userType = defineFieldType<Record<string, never>>({
  type: 'user',
  cell: { schema: { oneOf: [{ type: 'null' }, { type: 'object', properties: { id: { type: 'string', format: 'uuid' }, name: { type: ['string', 'null'] } } }] }, example: { id: '0190c7a2-5b7e-7000-8000-000000000003', name: 'Ada Lovelace' }, writes: 'The id of a member of the workspace.' },
  refersToUsers: true,
  options: Type.Object({}, { additionalProperties: false }),
  column: () => 'uuid',
  fromApi: personIn,
  toApi: (value, _field, ctx) => personOut(value, ctx),
  ops: PERSON_OPS,
  sortExpr: personSortSql,
  sortType: 'text',
  csv: {
    /** Import needs user ids; an importer that knows the members can map names to ids first. */
    parse: (text) => trimText(text) || null,
    format: formatPerson,
  },
  convertsTo: {},
});
