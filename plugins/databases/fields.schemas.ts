import { compile, defaultsOptional, Type, type SchemaDoc, type Static } from '../../core/schema.ts';
import type { FieldTypeRegistry } from './field-types/registry.ts';
import { API_NAME_PATTERN } from './names.ts';

export const FieldName = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Unique among the live fields (ignoring case); trimmed.' });
export const ApiName = Type.String({ pattern: API_NAME_PATTERN, description: 'Lower-case letters, digits, `_`; starts with a letter; unique in the database, deleted fields included.' });

export const FieldParams = Type.Object({
  ws: Type.String({ format: 'uuid' }),
  db: Type.String({ format: 'uuid' }),
  field: Type.String({ minLength: 1, maxLength: 100, description: "The field's id or its `api_name`." }),
});
export type FieldParams = Static<typeof FieldParams>;

export const FieldListQuery = Type.Object({
  deleted: Type.Optional(Type.Boolean({ default: false, description: '`true`: the soft-deleted fields instead, which `…/restore` brings back.' })),
});

export const CreateFieldBody = Type.Object(
  {
    name: FieldName,
    type: Type.String({ minLength: 1, maxLength: 50, description: 'A field type of this instance (see the field types README).' }),
    api_name: Type.Optional(ApiName),
    options: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "The type's options; its defaults apply." })),
  },
  { additionalProperties: false },
);
export type CreateFieldBody = Static<typeof CreateFieldBody>;

export const PatchFieldBody = Type.Object(
  {
    name: Type.Optional(FieldName),
    api_name: Type.Optional(ApiName),
    options: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Replaces the options (validated as on create).' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchFieldBody = Static<typeof PatchFieldBody>;

export const DeletedField = Type.Object({
  records_with_value: Type.Integer({ description: 'Live records that had a value in the field; restoring brings the values back.' }),
});

/**
 * The create body as the reference shows it: `type` one of the types this route creates on this instance (not those
 * another plugin makes, such as links), and `options` the schema of the type named: a component per type, what a
 * client must send (a defaulted option may be left out) and an example (the type's own, else its defaults).
 * Built when the document is, once every plugin has added its types.
 */
export function fieldBodyDoc(types: FieldTypeRegistry): SchemaDoc {
  const names = types.names().filter((name) => !types.get(name)!.managedBy);
  const schemas: Record<string, object> = {};
  const variants = names.map((name) => {
    const type = types.get(name)!;
    const example: Record<string, unknown> = { ...type.optionsExample };
    compile(type.options)(example);
    schemas[`FieldOptions.${name}`] = { ...defaultsOptional(JSON.parse(JSON.stringify(type.options))), title: `${name} options`, example };
    return { title: name, properties: { type: { const: name }, options: { $ref: `#/components/schemas/FieldOptions.${name}` } } };
  });
  const base = JSON.parse(JSON.stringify(CreateFieldBody));
  return {
    schemas,
    also: {
      properties: { ...base.properties, type: { ...base.properties.type, enum: names } },
      oneOf: variants,
      example: { name: 'Amount', type: 'currency', options: { code: 'EUR', symbol: '€', precision: 2 } },
    },
  };
}
