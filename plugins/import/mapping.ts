import { compile, escapePointer, toErrorDetails } from '../../core/schema.ts';
import { AppError, validationFailed, type ErrorDetail } from '../../core/errors.ts';
import { deriveApiName, type FieldMeta, type FieldType, type FieldTypeRegistry } from '../databases/public.ts';
import type { RecordTable } from '../records/public.ts';
import { CreateTarget } from './schemas.ts';

/** Where one mapped CSV column goes. */
export interface Target {
  header: string;
  /** Its position in each record. */
  index: number;
  /** The field: a live one, or (for `create`) the one to create, its options with their defaults, `id` empty. */
  field: FieldMeta & { name: string };
  fieldType: FieldType;
  /** Set when the import creates the field. */
  create?: { name: string; type: string; options: Record<string, unknown> };
}

/** What a checked mapping does with the file's columns. */
export interface Plan {
  headers: string[];
  /** Mapped columns, in file order; skipped ones (`null`) are not here. */
  targets: Target[];
}

const checkCreate = compile(CreateTarget);

/** More columns than any database has fields: the answer to a bad mapping would list them all. */
const MAX_COLUMNS = 1000;

/** Whether a CSV cell can be written to fields of this type: a column of its own, written through the API, not made by another plugin. */
export function writableFromText(type: FieldType): boolean {
  return !type.readOnly && !type.managedBy && !type.store && typeof type.column === 'function';
}

function writableTypes(types: FieldTypeRegistry): string[] {
  return types.names().filter((name) => writableFromText(types.get(name)!));
}

/** The `mapping` part as sent: a JSON object (422 at `/mapping` otherwise). */
export function parseMapping(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string') throw validationFailed([{ pointer: '/mapping', detail: 'Send `mapping`, a JSON object naming what each CSV header goes to, as a text part.' }]);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw validationFailed([{ pointer: '/mapping', detail: '`mapping` is not valid JSON.' }]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw validationFailed([{ pointer: '/mapping', detail: '`mapping` must be a JSON object: CSV header → field, `{ "create": … }` or null.' }]);
  return value as Record<string, unknown>;
}

/**
 * Checks the mapping against the file's header row and the database's fields (`table`, as the caller sees it):
 * every header mapped exactly once, every target a field that takes text, no field twice, new fields of a type
 * that can be written from text with a free name. All problems at once (422), each at `/mapping/<header>`.
 */
export function planImport(headers: string[], mapping: Record<string, unknown>, table: RecordTable, types: FieldTypeRegistry): Plan {
  if (headers.length > MAX_COLUMNS) throw validationFailed([{ pointer: '/file', detail: `The file has ${headers.length} columns; an import takes at most ${MAX_COLUMNS}.` }]);
  const errors: ErrorDetail[] = [];
  const at = (header: string) => `/mapping/${escapePointer(header)}`;
  const firstIndex = new Map<string, number>();
  headers.forEach((h, i) => {
    if (firstIndex.has(h)) errors.push({ pointer: '/file', detail: `The header "${h}" appears twice (columns ${firstIndex.get(h)! + 1} and ${i + 1}); headers must be unique.` });
    else firstIndex.set(h, i);
  });
  const unmapped = headers.filter((h, i) => firstIndex.get(h) === i && !Object.hasOwn(mapping, h));
  for (const h of unmapped) errors.push({ pointer: at(h), detail: `The header "${h}" has no mapping: name a field, { "create": { "name", "type" } }, or null to skip the column.` });
  for (const key of Object.keys(mapping)) if (!firstIndex.has(key)) errors.push({ pointer: at(key), detail: `The file has no header "${key}".` });

  const targets: Target[] = [];
  const takenBy = new Map<string, string>();
  const liveNames = new Set(table.fields.map((f) => f.name.toLowerCase()));
  const apiNames = new Set(table.fields.map((f) => f.api_name));
  for (const [header, index] of firstIndex) {
    const value = Object.hasOwn(mapping, header) ? mapping[header] : null;
    if (value === null) continue;
    let target: Target | undefined;
    if (typeof value === 'string') {
      const field = table.field(value);
      if (!field) errors.push({ pointer: at(header), detail: `No field "${value}" in this database.` });
      else if (!field.column_name || !writableFromText(field.fieldType)) errors.push({ pointer: at(header), detail: `The ${field.type} field "${field.api_name}" cannot be written from a CSV (computed, read-only or managed elsewhere).` });
      else target = { header, index, field, fieldType: field.fieldType };
    } else if (!checkCreate(value)) {
      errors.push(...toErrorDetails(checkCreate.errors, at(header)));
    } else {
      const { name: sent, type: typeName, options = {} } = (value as CreateTarget).create;
      const type = types.get(typeName);
      const name = sent.trim();
      if (!type) errors.push({ pointer: `${at(header)}/create/type`, detail: `Unknown field type "${typeName}".` });
      else if (!writableFromText(type)) errors.push({ pointer: `${at(header)}/create/type`, detail: `A ${typeName} field cannot be written from a CSV. Types that can: ${writableTypes(types).join(', ')}.` });
      else if (liveNames.has(name.toLowerCase())) errors.push({ pointer: `${at(header)}/create/name`, detail: `A field named "${name}" exists already (or is created by another column).` });
      else {
        const checked = checkOptions(type, options, `${at(header)}/create/options`, errors);
        liveNames.add(name.toLowerCase());
        if (checked) {
          const apiName = deriveApiName(name, (candidate) => apiNames.has(candidate));
          apiNames.add(apiName);
          target = { header, index, field: { id: '', api_name: apiName, name, type: type.type, options: checked }, fieldType: type, create: { name, type: type.type, options: checked } };
        }
      }
    }
    if (!target) continue;
    const key = target.create ? `new:${target.field.name.toLowerCase()}` : target.field.id;
    const other = takenBy.get(key);
    if (other !== undefined) errors.push({ pointer: at(header), detail: `The headers "${other}" and "${header}" both go to the field "${target.field.api_name}"; a field takes one column.` });
    else takenBy.set(key, header);
    targets.push(target);
  }
  if (errors.length === 0 && targets.length === 0) errors.push({ pointer: '/mapping', detail: 'Every column is skipped: map at least one to a field.' });
  if (errors.length > 0) throw validationFailed(errors);
  return { headers, targets };
}

/** A new field's options as the fields route checks them: schema defaults applied, then the type's own rules. */
function checkOptions(type: FieldType, input: Record<string, unknown>, pointer: string, errors: ErrorDetail[]): Record<string, unknown> | undefined {
  const options = structuredClone(input);
  const validate = compile(type.options);
  if (!validate(options)) {
    errors.push(...toErrorDetails(validate.errors, pointer));
    return undefined;
  }
  try {
    return type.normalizeOptions ? (type.normalizeOptions(options) as Record<string, unknown>) : options;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    // The type points under `/options`, as the fields route would; here that is the create's options.
    for (const e of err.errors ?? [{ pointer: '/options', detail: err.detail }]) errors.push({ pointer: pointer + e.pointer.replace(/^\/options/, ''), detail: e.detail });
    return undefined;
  }
}
