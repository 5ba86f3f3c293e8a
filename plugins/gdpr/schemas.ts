import { Type, type Static } from '../../core/schema.ts';
import { pageOf } from '../../core/pagination.ts';

export const GdprOptions = Type.Object(
  {
    /**
     * The key receipts' email hashes are made with (HMAC-SHA256). Without it, a random key is made once and kept
     * in the plugin's table; give one (from the environment) to keep it outside the database.
     */
    receiptKey: Type.Optional(Type.String({ minLength: 32 })),
  },
  { additionalProperties: false },
);
export type GdprOptions = Static<typeof GdprOptions>;

const Uuid = Type.String({ format: 'uuid' });

export const WorkspaceParams = Type.Object({ ws: Uuid });
export const MemberParams = Type.Object({ ws: Uuid, user_id: Uuid });
export const UserParams = Type.Object({ id: Uuid });
export const ExportParams = Type.Object({ id: Uuid });
export const WorkspaceExportParams = Type.Object({ ws: Uuid, id: Uuid });

export const ExportStatus = Type.Union(['queued', 'running', 'ready', 'failed', 'expired'].map((s) => Type.Literal(s)));

export const ExportCreated = Type.Object({ id: Uuid, status: ExportStatus });

export const DataExport = Type.Object({
  id: Uuid,
  status: ExportStatus,
  download_url: Type.Union([Type.String(), Type.Null()], { description: 'A path under /api/v1 answering the zip, once ready' }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type DataExport = Static<typeof DataExport>;

export const EraseBody = Type.Object(
  { confirm: Type.String({ minLength: 1, maxLength: 320, description: "The user's email, any case: proof the caller means this person" }) },
  { additionalProperties: false },
);

const Retained = Type.Object({ what: Type.String(), reason: Type.String(), until: Type.Union([Type.String(), Type.Null()]) });
export const Report = Type.Object({
  kind: Type.String(),
  workspace_id: Type.Optional(Type.String({ format: 'uuid', description: 'The workspace this part was erased in; absent for the account-wide part' })),
  deleted: Type.Integer(),
  pseudonymised: Type.Integer(),
  retained: Type.Array(Retained),
});

export const Receipt = Type.Object({
  id: Uuid,
  user_hash: Type.String({ description: 'HMAC-SHA256 of the lower-cased email under the instance key, hex' }),
  workspace_id: Type.Union([Uuid, Type.Null()], { description: 'The workspace erased from; null for an erasure everywhere' }),
  erased_by: Uuid,
  reports: Type.Array(Report),
  created_at: Type.String({ format: 'date-time' }),
});
export type Receipt = Static<typeof Receipt>;

export const ReceiptList = pageOf(Receipt);
