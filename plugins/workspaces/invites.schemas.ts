import { Type, type Static } from '../../core/schema.ts';
import { PageQuery } from '../../core/pagination.ts';
import { Member, RoleSchema, SpaceIds, Timestamp, Uuid } from './schemas.ts';

export const INVITE_STATUSES = ['pending', 'accepted', 'revoked'] as const;
export type InviteStatus = (typeof INVITE_STATUSES)[number];

/** Characters of an invite token: base62, ≈ 190 bits. */
export const INVITE_TOKEN_CHARS = 32;

const Status = Type.Unsafe<InviteStatus>({
  type: 'string',
  enum: [...INVITE_STATUSES],
  description: '`pending` until accepted or revoked; both are final.',
});

const NullableUuid = Type.Union([Uuid(), Type.Null()]);
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const Invite = Type.Object({
  id: Uuid(),
  workspace_id: Uuid(),
  email: Type.String({ description: 'As given (trimmed); matched without regard to case.' }),
  role: RoleSchema,
  space_ids: Type.Array(Uuid(), { description: 'For a guest, the spaces it will enter; empty otherwise.' }),
  status: Status,
  invited_by: NullableUuid,
  accepted_by: NullableUuid,
  created_at: Timestamp,
  sent_at: Type.String({ format: 'date-time', description: 'When the current link was issued (and mailed, when mail is enabled): creation or the last resend.' }),
  accepted_at: NullableTimestamp,
  revoked_at: NullableTimestamp,
  accept_url: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
    description:
      'The link to accept, its last path segment the token for `POST /invites/{token}/accept`. Only in the responses that issue it ' +
      '(create, resend): the server keeps a hash of the token, never the token, so elsewhere it is null.',
  }),
});
export type Invite = Static<typeof Invite>;

export const CreateInviteBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 320, description: 'The invitee\'s email address; surrounding spaces are trimmed.' }),
    role: RoleSchema,
    space_ids: Type.Optional(SpaceIds),
  },
  { additionalProperties: false },
);
export type CreateInviteBody = Static<typeof CreateInviteBody>;

export const InviteParams = Type.Object({ ws: Uuid('Workspace id'), id: Uuid('Invite id') });

export const InviteListQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(Status),
});
export type InviteListQuery = Static<typeof InviteListQuery>;

export const InviteTokenParams = Type.Object({
  token: Type.String({ pattern: `^[0-9A-Za-z]{${INVITE_TOKEN_CHARS}}$`, description: 'The last path segment of the invite\'s `accept_url`.' }),
});

export const AcceptedInvite = Type.Object(
  { workspace_id: Uuid(), ...Member.properties },
  { description: 'The caller\'s membership in the workspace it joined.' },
);
export type AcceptedInvite = Static<typeof AcceptedInvite>;
