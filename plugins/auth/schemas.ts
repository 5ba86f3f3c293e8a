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
export const Name = Type.String({ minLength: 1, maxLength: 200 });

export const SignUpBody = Type.Object({ email: Email, password: Password, name: Name }, { additionalProperties: false });
export const SignInBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
  { additionalProperties: false },
);
export const PatchMeBody = Type.Object({ name: Type.Optional(Name) }, { additionalProperties: false, minProperties: 1 });
