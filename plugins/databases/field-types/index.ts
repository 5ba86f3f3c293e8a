/**
 * The field-type contract (package export `tessera/field-types`): what a plugin needs to add a field type —
 * `defineFieldType` and the `FieldType` interface, the cell, filter, sort and SQL types it works with,
 * `InvalidCell` to refuse a value, the operator sets, and the SQL helpers the built-in types share.
 * A field type registers itself through the databases plugin's `databases.fieldTypes` hook set.
 */
export * from './field-type.ts';
export { InvalidCell } from '../errors.ts';
export { NUMBER_OPS, PRESENCE_OPS, TEXT_OPS } from './ops.ts';
export { escapeLike } from '../../../core/like-pattern.ts';
export { matchKeyOf, sqlTrim, trimText } from './sql.ts';
export { textFormSql } from './text-codec.ts';
export { instantOut } from './time.ts';
export { TEXT_RULES, type TextRule } from './text-rules.ts';
export { choicesOf } from './choices.ts';
export type { FieldTypeRegistry } from './registry.ts';
