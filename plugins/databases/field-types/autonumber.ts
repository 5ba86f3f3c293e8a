import { Type } from '../../../core/schema.ts';
import { INTEGER_OPS } from './ops.ts';
import { systemFieldType } from './system.ts';

/** The record's per-database number (1, 2, 3, …), never reused. */
export const autonumberType = systemFieldType<Record<string, never>>({
  type: 'autonumber',
  cell: { schema: { type: 'integer' }, example: 17, writes: 'Read-only.' },
  options: Type.Object({}, { additionalProperties: false }),
  systemColumn: 'number',
  toApi: (value) => Number(value),
  ops: INTEGER_OPS,
  canBeTitle: true,
  format: (value) => String(value),
});
