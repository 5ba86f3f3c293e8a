/**
 * What other plugins may use from the databases plugin. Services come through DI (`databases.*` in the
 * manifest's `exports`); their types, the field-type contract and the helpers that name a database's physical
 * storage are here. Nothing else in this folder is part of the contract.
 */
export * from './field-types/index.ts';
export type { DatabaseCreated, DatabaseDeletion, DatabaseHooks, FieldTypeHooks } from './hooks.ts';
export type { ViewQuery, ViewSummary } from './schemas.ts';
export type { DatabaseService } from './databases.service.ts';
export type { FieldSight } from './field-sight.ts';
export type { FieldService } from './fields.service.ts';
export { filterFieldRefs, type ViewIndexService } from './view-indexes.ts';
export type { TableDrops } from './table-drops.ts';
export type { FieldLimits } from './field-limits.ts';
export type { ManagedFields, NewManagedField } from './managed-fields.ts';
export type { CatalogFieldRow, StoredTable, TableCatalog } from './table-catalog.ts';
export { findField } from './field-lookup.ts';
export { FIELD_COLUMNS, toField } from './fields.view.ts';
export type { FieldRow } from './fields.view.ts';
export { columnNameOf, deriveApiName, tableNameOf } from './names.ts';
export { dropMatchKeyIndex, indexMatchKey } from './record-table.ts';
export { beginSchemaChange } from './schema-change.ts';
export { Field } from './schemas.ts';
