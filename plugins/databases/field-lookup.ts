import type { Db } from '../../core/db.ts';
import { compile, toErrorDetails, UUID_PATTERN } from '../../core/schema.ts';
import { invalidField, notFound, validationFailed } from '../../core/errors.ts';
import { DatabaseErrors } from './errors.ts';
import type { FieldTypeRegistry } from './field-types/registry.ts';
import type { FieldType } from './field-types/field-type.ts';
import { FIELD_COLUMNS, type FieldRow } from './fields.view.ts';

/**
 * The field a path or a body names: an id or an api_name (API.md). Soft-deleted fields are found
 * only when asked; `lock` holds the row for the caller's transaction. Missing: 404, or with
 * `pointer` (a field named in a body) 422 there.
 */
export async function findField(
  trx: Db,
  databaseId: string,
  ref: string,
  opts: { lock?: boolean; includeDeleted?: boolean; where?: (row: FieldRow) => boolean; missing?: string; pointer?: string } = {},
): Promise<FieldRow> {
  const q = trx('fields').where({ database_id: databaseId }).where(UUID_PATTERN.test(ref) ? { id: ref } : { api_name: ref });
  if (!opts.includeDeleted) q.whereNull('deleted_at');
  const row = (await (opts.lock ? q.forUpdate() : q).first(FIELD_COLUMNS)) as FieldRow | undefined;
  if (!row || (opts.where && !opts.where(row))) {
    const detail = opts.missing ?? 'No such field in this database.';
    throw opts.pointer === undefined ? notFound(detail) : invalidField(opts.pointer, detail);
  }
  return row;
}

/** A type's options as sent: schema defaults applied, then the type's own rules (422 with pointers under `/options`). */
export function checkOptions(type: FieldType, input: Record<string, unknown>, previous?: Record<string, unknown>): Record<string, unknown> {
  const options = structuredClone(input);
  const validate = compile(type.options);
  if (!validate(options)) throw validationFailed(toErrorDetails(validate.errors, '/options'));
  return type.normalizeOptions ? (type.normalizeOptions(options, previous) as Record<string, unknown>) : options;
}

/** Fields a plugin manages (links: relations) change only through that plugin: 409. */
/** A source's field keeps the type and options its rows are written in: only its name may change. */
export function refuseSynced(field: FieldRow, what: string): void {
  if (field.synced) throw DatabaseErrors.field_synced(what);
}

export function refuseManaged(types: FieldTypeRegistry, field: FieldRow, what: string): void {
  const owner = types.get(field.type)?.managedBy;
  if (owner) throw DatabaseErrors.managed_field(field.type, what, owner);
}
