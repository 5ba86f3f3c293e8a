import { Type, type Static } from '../../core/schema.ts';

export const PublicUser = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String({ format: 'email' }),
  name: Type.String(),
  avatar_url: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});
export type PublicUser = Static<typeof PublicUser>;

export const SessionResponse = Type.Object({
  user: PublicUser,
  token: Type.String({ description: 'Session token (`tss_…`); send it as `Authorization: Bearer <token>`.' }),
  expires_at: Type.String({ format: 'date-time' }),
});

export const Email = Type.String({ format: 'email', maxLength: 320 });
export const Password = Type.String({ minLength: 8, maxLength: 1024 });
export const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Not blank; surrounding spaces are trimmed.' });

export const SignUpBody = Type.Object({ email: Email, password: Password, name: Name }, { additionalProperties: false });
export const SignInBody = Type.Object(
  { email: Email, password: Type.String({ minLength: 1, maxLength: 1024 }) },
  { additionalProperties: false },
);
export const PatchMeBody = Type.Object(
  { name: Type.Optional(Name) },
  { additionalProperties: false, minProperties: 1, description: 'Only `name` for now: changing the email needs a verification flow.' },
);

export const SignInProvider = Type.Object({
  id: Type.String({ description: '`password`, or the id of a configured OAuth provider (`github`, `google`, …).' }),
  type: Type.Union([Type.Literal('password'), Type.Literal('oauth')]),
  name: Type.String(),
  start_url: Type.Optional(Type.String({ description: 'OAuth only: where to send the browser to sign in.' })),
});

export const ProviderList = Type.Object({
  data: Type.Array(SignInProvider),
  next_cursor: Type.Null(),
});

export const ProviderParams = Type.Object({ provider: Type.String({ maxLength: 100 }) });

/** Providers add members of their own (`scope`, `iss`, `error_description`…), so unknown ones are allowed here. */
export const CallbackQuery = Type.Object({
  state: Type.String({ minLength: 1, maxLength: 200 }),
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Absent when the provider reports `error`.' })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
});

export const ChangePasswordBody = Type.Object(
  { current_password: Type.String({ minLength: 1, maxLength: 1024 }), new_password: Password },
  { additionalProperties: false },
);

export const ResetRequestBody = Type.Object({ email: Email }, { additionalProperties: false });

export const ResetConfirmBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200 }), password: Password },
  { additionalProperties: false },
);

export const ResetAccepted = Type.Object({
  status: Type.Literal('accepted'),
  detail: Type.String(),
});

export const UserIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
