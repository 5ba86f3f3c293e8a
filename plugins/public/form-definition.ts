import type { LiveField, RecordTable } from '../records/public.ts';
import type { View } from '../views/public.ts';
import type { Form } from './schemas.ts';

/** A form as a submission is checked against: what `GET` shows, and the fields it may fill by api_name. */
export interface FormDefinition {
  form: Form;
  fields: Map<string, LiveField>;
  required: Set<string>;
}

/**
 * A field a form can fill: written through the API and kept in the record's own row. Links and attachments (kept
 * beyond it) name records and files an anonymous writer cannot see, so forms do not offer them; views refuses them
 * as required fields for the same reason.
 */
export const fillable = (f: LiveField): boolean => !f.fieldType.readOnly && f.column_name !== null;

/** The fields the form view shows: fillable, not hidden, those in `field_order` first, the rest in their own order. */
export function formOf(view: View, table: RecordTable): FormDefinition {
  const hidden = new Set(view.hidden_fields);
  const shown = table.fields.filter((f) => fillable(f) && !hidden.has(f.api_name));
  const rank = new Map(view.field_order.map((name, i) => [name, i]));
  const ordered = shown
    .map((f, i) => ({ f, key: rank.get(f.api_name) ?? view.field_order.length + i }))
    .sort((a, b) => a.key - b.key)
    .map(({ f }) => f);
  const required = new Set((view.options.required_fields ?? []).filter((name) => ordered.some((f) => f.api_name === name)));
  return {
    form: {
      title: view.options.title || view.name,
      description: view.options.description ?? null,
      fields: ordered.map((f) => ({ api_name: f.api_name, name: f.name, type: f.type, required: required.has(f.api_name), description: null, options: f.options ?? {} })),
    },
    fields: new Map(ordered.map((f) => [f.api_name, f])),
    required,
  };
}
