import type { ErrorDetail } from '../../core/errors.ts';
import { compileFilter, mapFilterConditions, sortKeys, type LinkedTables, type LiveField, type QueryView, type RecordTable, type SortInput } from '../records/public.ts';
import type { ViewOptions, ViewType } from './schemas.ts';

/**
 * What a view stores in `database_views.config`. Fields are named by id, so a field whose
 * api_name changes stays in its views; the API shows api_names.
 */
export interface StoredConfig {
  filter?: unknown;
  sorts?: SortInput[];
  hidden_fields?: string[];
  field_order?: string[];
  group_by?: string | null;
  options?: ViewOptions;
}

/** The settings as the API shows them (api_names), every key present. */
export interface ViewSettings {
  filter: unknown;
  sorts: SortInput[];
  hidden_fields: string[];
  field_order: string[];
  group_by: string | null;
  options: ViewOptions;
}

const CALENDAR_TYPES = new Set(['date', 'datetime', 'created_at', 'updated_at']);
const FORM_OPTIONS = ['title', 'description', 'submit_label', 'success_message', 'required_fields'] as const;

/** A field named by api_name or by id. */
export function fieldRef(table: RecordTable, ref: string): LiveField | undefined {
  return table.field(ref);
}

/** A filter's field reference as stored: the field (or, in `link.field`, the link field) by id. */
export function refId(table: RecordTable, ref: string): string {
  const [head, rest] = ref.split('.', 2);
  const id = fieldRef(table, head)?.id ?? head;
  return rest === undefined ? id : `${id}.${rest}`;
}

/** A stored filter reference as the API names it; undefined when its field is gone. */
export function refName(table: RecordTable, ref: string): string | undefined {
  const [head, rest] = ref.split('.', 2);
  const name = fieldRef(table, head)?.api_name;
  return name === undefined || rest === undefined ? name : `${name}.${rest}`;
}

/** A filter AST with each condition's `field` mapped by `rename`; a condition whose field it cannot map is dropped. */
export function renameFilterFields(node: unknown, rename: (ref: string) => string | undefined): unknown {
  return mapFilterConditions(node, (c) => {
    const renamed = rename(c.field);
    return renamed === undefined ? undefined : { ...c, field: renamed };
  });
}

/** Settings sent by a client, checked against the database's live fields; every problem at its pointer. */
export function checkSettings(table: RecordTable, type: ViewType, s: ViewSettings, userId: string, errors: ErrorDetail[], linked: LinkedTables): void {
  if (s.filter !== null) compileFilter(table, s.filter, { userId, now: new Date() }, '/filter', errors, linked);
  sortKeys(table, s.sorts, '/sorts', errors);
  const known = (list: string[], pointer: string) =>
    list.forEach((ref, i) => fieldRef(table, ref) || errors.push({ pointer: `${pointer}/${i}`, detail: `No field "${ref}" in this database.` }));
  known(s.field_order, '/field_order');
  s.hidden_fields.forEach((ref, i) => {
    const field = fieldRef(table, ref);
    if (!field) errors.push({ pointer: `/hidden_fields/${i}`, detail: `No field "${ref}" in this database.` });
    else if (field.is_title) errors.push({ pointer: `/hidden_fields/${i}`, detail: 'The title field is always shown.' });
  });
  checkGroupBy(table, type, s.group_by, errors);
  checkOptions(table, type, s, errors);
}

function checkGroupBy(table: RecordTable, type: ViewType, groupBy: string | null, errors: ErrorDetail[]): void {
  if (groupBy === null) {
    if (type === 'kanban') errors.push({ pointer: '/group_by', detail: 'A kanban view needs a single-select field to make its columns.' });
    return;
  }
  if (type !== 'grid' && type !== 'kanban') {
    errors.push({ pointer: '/group_by', detail: `A ${type} view does not group records.` });
    return;
  }
  const field = fieldRef(table, groupBy);
  if (!field) errors.push({ pointer: '/group_by', detail: `No field "${groupBy}" in this database.` });
  else if (type === 'kanban' && field.type !== 'single_select') errors.push({ pointer: '/group_by', detail: `A kanban view groups by a single-select field, not a ${field.type} one.` });
}

function checkOptions(table: RecordTable, type: ViewType, s: ViewSettings, errors: ErrorDetail[]): void {
  const o = s.options;
  if (o.date_field !== undefined && type !== 'calendar') errors.push({ pointer: '/options/date_field', detail: 'Only calendar views place records on a date field.' });
  if (type !== 'form') {
    for (const key of FORM_OPTIONS) if (o[key] !== undefined) errors.push({ pointer: `/options/${key}`, detail: 'Only form views take this option.' });
  }
  if (type === 'calendar') {
    const field = o.date_field === undefined ? undefined : fieldRef(table, o.date_field);
    if (o.date_field === undefined) errors.push({ pointer: '/options/date_field', detail: 'This database has no date field to put a calendar on.' });
    else if (!field) errors.push({ pointer: '/options/date_field', detail: `No field "${o.date_field}" in this database.` });
    else if (!CALENDAR_TYPES.has(field.type)) errors.push({ pointer: '/options/date_field', detail: `A calendar needs a date or date-time field, not a ${field.type} one.` });
  }
  (o.required_fields ?? []).forEach((ref, i) => {
    const field = fieldRef(table, ref);
    const pointer = `/options/required_fields/${i}`;
    if (!field) errors.push({ pointer, detail: `No field "${ref}" in this database.` });
    else if (field.fieldType.readOnly || !field.column_name) errors.push({ pointer, detail: `The ${field.type} field "${field.api_name}" cannot be filled in a form.` });
    else if (s.hidden_fields.some((h) => fieldRef(table, h) === field)) errors.push({ pointer, detail: `"${field.api_name}" is hidden from the form, so it cannot be required.` });
  });
}

/** A calendar view created without `date_field` takes the database's first date field. */
export function withDefaults(table: RecordTable, type: ViewType, s: ViewSettings): ViewSettings {
  if (type !== 'calendar' || s.options.date_field !== undefined) return s;
  const first = table.fields.find((f) => CALENDAR_TYPES.has(f.type));
  return first ? { ...s, options: { ...s.options, date_field: first.api_name } } : s;
}

/** Checked settings → what is stored (field ids). */
export function toStored(table: RecordTable, s: ViewSettings): StoredConfig {
  const id = (ref: string) => fieldRef(table, ref)?.id ?? ref;
  const options: ViewOptions = { ...s.options };
  if (options.date_field !== undefined) options.date_field = id(options.date_field);
  if (options.required_fields) options.required_fields = options.required_fields.map(id);
  return {
    filter: s.filter === null ? null : renameFilterFields(s.filter, (ref) => refId(table, ref)),
    sorts: s.sorts.map((sort) => ({ ...sort, field: id(sort.field) })),
    hidden_fields: s.hidden_fields.map(id),
    field_order: s.field_order.map(id),
    group_by: s.group_by === null ? null : id(s.group_by),
    options,
  };
}

/**
 * Stored config → the API's settings. A field deleted since (soft-deleted fields can come back)
 * is shown by its id where the view depends on it (filter, sorts, group_by, date_field) and left
 * out of lists (hidden_fields, field_order, required_fields).
 */
export function toSettings(table: RecordTable, c: StoredConfig): ViewSettings {
  const name = (ref: string) => fieldRef(table, ref)?.api_name;
  const names = (list: string[] | undefined) => (list ?? []).flatMap((ref) => name(ref) ?? []);
  const options: ViewOptions = { ...(c.options ?? {}) };
  if (options.date_field !== undefined) options.date_field = name(options.date_field) ?? options.date_field;
  if (options.required_fields) options.required_fields = names(options.required_fields);
  return {
    filter: c.filter === undefined || c.filter === null ? null : renameFilterFields(c.filter, (ref) => refName(table, ref) ?? ref),
    sorts: (c.sorts ?? []).map((sort) => ({ ...sort, field: name(sort.field) ?? sort.field })),
    hidden_fields: names(c.hidden_fields),
    field_order: names(c.field_order),
    group_by: c.group_by == null ? null : (name(c.group_by) ?? c.group_by),
    options,
  };
}

/**
 * What a query through the view applies: the view's filter, then the caller's override (both
 * ANDed), and the override's sorts or else the view's. Conditions and sorts on fields deleted
 * since are skipped until the field is restored, rather than failing every query of the view.
 */
export function forQuery(table: RecordTable, view: StoredConfig, override?: { filter: unknown; sorts: SortInput[] | null }): QueryView {
  const name = (ref: string) => fieldRef(table, ref)?.api_name;
  const filters = [view.filter, override?.filter]
    .filter((f) => f !== undefined && f !== null)
    .map((f) => renameFilterFields(f, (ref) => refName(table, ref)))
    .filter((f) => f !== undefined);
  const sorts = (override?.sorts ?? view.sorts ?? []).flatMap((sort) => {
    const field = name(sort.field);
    return field ? [{ ...sort, field }] : [];
  });
  return { filters, sorts: sorts.length > 0 ? sorts : undefined };
}
