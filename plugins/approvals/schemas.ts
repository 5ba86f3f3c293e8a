import { Type, type Static } from '../../core/schema.ts';
import { pageOf, pageQuery } from '../../core/pagination.ts';

const Uuid = Type.String({ format: 'uuid' });
export const WorkspaceParams = Type.Object({ ws: Uuid });
export const ApprovalParams = Type.Object({ ws: Uuid, id: Uuid });

export const ApprovalStatus = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('expired')]);
export type ApprovalStatus = Static<typeof ApprovalStatus>;

/** The `request_approval` action's config (its `text` may hold placeholders). */
export const RequestApproval = Type.Object(
  {
    approver_ids: Type.Array(Uuid, { minItems: 1, maxItems: 50, uniqueItems: true, description: 'Members of the workspace who can read the database.' }),
    text: Type.String({ minLength: 1, maxLength: 2000 }),
    timeout_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, default: 24, description: 'Past this, the approval expires and its run fails.' })),
  },
  { additionalProperties: false },
);
export type RequestApproval = Static<typeof RequestApproval>;

export const Approval = Type.Object({
  id: Uuid,
  run_id: Uuid,
  automation_id: Uuid,
  record_id: Type.Union([Uuid, Type.Null()]),
  text: Type.String(),
  approver_ids: Type.Array(Uuid),
  status: ApprovalStatus,
  decided_by: Type.Union([Uuid, Type.Null()]),
  decided_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  comment: Type.Union([Type.String(), Type.Null()], { description: "The decider's comment, if any." }),
  expires_at: Type.String({ format: 'date-time' }),
  created_at: Type.String({ format: 'date-time' }),
});
export type Approval = Static<typeof Approval>;
export const ApprovalList = pageOf(Approval);

export const ListQuery = Type.Composite([pageQuery(), Type.Object({ status: Type.Optional(ApprovalStatus) })]);
export type ListQuery = Static<typeof ListQuery>;

export const DecideBody = Type.Object({ comment: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })) }, { additionalProperties: false });
export type DecideBody = Static<typeof DecideBody>;
