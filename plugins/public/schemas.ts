import { Type, type Static } from '../../core/schema.ts';

export const PublicOptions = Type.Object(
  {
    submissionsPerMinute: Type.Integer({
      minimum: 1,
      default: 10,
      description: 'Form submissions one client address may make per minute, across every form and instance (429 with `Retry-After` beyond).',
    }),
    maxBodyBytes: Type.Integer({ minimum: 1024, maximum: 10 * 1024 * 1024, default: 64 * 1024, description: 'The largest submission body, in bytes (413 above).' }),
  },
  { additionalProperties: false },
);
export type PublicOptions = Static<typeof PublicOptions>;

export const FormParams = Type.Object({
  token: Type.String({ pattern: '^[A-Za-z0-9]{1,128}$', description: 'The token a form link ends with.' }),
});

export const FormField = Type.Object({
  api_name: Type.String({ description: 'The key of this field in `values`.' }),
  name: Type.String(),
  type: Type.String({ description: 'The field type: its values are checked as in a signed-in write.' }),
  required: Type.Boolean({ description: 'A submission must fill it (a checkbox: check it).' }),
  description: Type.Union([Type.String(), Type.Null()], { description: 'Fields carry no description of their own yet: null.' }),
  options: Type.Record(Type.String(), Type.Unknown(), { description: "The type's options (a select's choices)." }),
});
export type FormField = Static<typeof FormField>;

export const Form = Type.Object({
  title: Type.String({ description: "The view's `options.title`, else the view's name." }),
  description: Type.Union([Type.String(), Type.Null()], { description: "The view's `options.description`." }),
  fields: Type.Array(FormField, { description: 'Writable fields the view does not hide, in its `field_order`.' }),
});
export type Form = Static<typeof Form>;

export const SubmitBody = Type.Object(
  {
    values: Type.Record(Type.String(), Type.Unknown(), { description: 'By api_name; only fields of the form.' }),
    hp: Type.Optional(Type.String({ maxLength: 1000, description: 'Honeypot: a field people leave empty. Filled, the submission is answered as a success and dropped.' })),
  },
  { additionalProperties: false },
);
export type SubmitBody = Static<typeof SubmitBody>;

export const Submitted = Type.Object({ submitted: Type.Literal(true) });
