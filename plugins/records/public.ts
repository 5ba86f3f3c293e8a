/**
 * What other plugins may use from the records plugin: the types of its exported services (`records.service`,
 * `records.query`), the filter and sort compilers views build on, the record schemas, and its hook sets.
 */
export type { RecordService } from './records.service.ts';
export type { RecordBulkService } from './bulk.service.ts';
export type { RecordBatchWriter, UnknownUser } from './batch-writer.ts';
export type { DecodedValues } from './codec.ts';
export type { QueryService } from './query.service.ts';
export type { ExportPage, ExportRead, RecordExportReader } from './export-reader.ts';
export type { WatcherService } from './watchers.service.ts';
export type { RecordTable } from './record-table.ts';
export type { LiveField, TargetField } from './live-fields.ts';
export type { ChangedField, QueryRan, QueryView, RecordChange, RecordChangeHooks, RecordChangeInput, RecordsChanged, RecordsCommitted, RecordCommittedHooks, WriteOrigin, RecordLifecycle, RecordQueryHooks, RecordsPurged, RecordsTrashMoved, RecordViewHooks, ViewLookup } from './hooks.ts';
export { originOf } from './hooks.ts';
export { compileFilter, opsOf } from './filter-compiler.ts';
export { mapFilterConditions, withOptionLabels } from './filter-walk.ts';
export type { LinkedTables } from './filter-compiler.ts';
export { columnSortKey, sortKeys, valueTypeOf } from './sort-keys.ts';
export type { SortInput } from './sort-keys.ts';
export { refusal } from './outside-cells.ts';
export { RecordErrors } from './errors.ts';
export { ApiRecord, FILTER_DESCRIPTION, FilterNode, Sort } from './schemas.ts';
