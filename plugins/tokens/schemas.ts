import { Type, type Static } from '../../core/schema.ts';
import type { TokenScope as Scope } from '../../core/principal.ts';

const scopeSchema = (extra: object = {}) =>
  Type.Unsafe<Scope>({
    type: 'string',
    enum: ['read', 'write', 'admin'],
    description: 'What the token may do: `read` (GET only), `write` (also changes), `admin` (also admin actions); never more than its owner may.',
    ...extra,
  });

export const CreateTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'A label to recognise the token by.' }),
    workspace_id: Type.String({ format: 'uuid', description: 'The one workspace the token acts in.' }),
    scope: Type.Optional(scopeSchema({ default: 'read' })),
    allow_run_button: Type.Optional(Type.Boolean({ default: false, description: 'Whether the token may press buttons.' })),
  },
  { additionalProperties: false },
);
export type CreateTokenBody = Static<typeof CreateTokenBody>;

const tokenFields = {
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  workspace_id: Type.String({ format: 'uuid' }),
  scope: scopeSchema(),
  allow_run_button: Type.Boolean(),
  prefix: Type.String({ description: 'The first characters of the token, to recognise it; the rest is never shown again.' }),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Accurate to about a minute.' }),
};

export const TokenView = Type.Object(tokenFields);
export type TokenView = Static<typeof TokenView>;

export const CreatedToken = Type.Object({
  ...tokenFields,
  token: Type.String({ description: 'The token (`tpat_…`), shown in this response only; send it as `Authorization: Bearer <token>`.' }),
});
export type CreatedToken = Static<typeof CreatedToken>;

export const TokenIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
