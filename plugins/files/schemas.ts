import { Type, type Static } from '../../core/schema.ts';

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const MIN_EXPIRES_IN = 60;
export const MAX_EXPIRES_IN = 7 * 24 * 3600;

export const FilesOptions = Type.Object(
  {
    maxBytes: Type.Integer({ minimum: 1, default: DEFAULT_MAX_BYTES, description: 'The largest image accepted, in bytes (413 above).' }),
    packMaxBytes: Type.Integer({
      minimum: 0,
      default: 2 * 1024 * 1024,
      description: 'The most bytes of images, all files together, a pack export takes along (422 `limit_exceeded` above; base64 makes them a third larger).',
    }),
    signingKey: Type.Optional(
      Type.String({
        minLength: 32,
        description: 'HMAC key of signed URLs (use `{ "$env": … }`). Unset: a random key made once and kept in the database. Changing it ends every signed URL.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FilesOptions = Static<typeof FilesOptions>;

export const File = Type.Object({
  id: Uuid(),
  workspace_id: Uuid(),
  name: Type.String({ description: "The uploader's file name, made safe." }),
  mime_type: Type.String({ description: 'What the bytes are: image/png, image/jpeg, image/webp or image/gif.' }),
  size: Type.Integer({ description: 'Bytes.' }),
  width: Type.Integer(),
  height: Type.Integer({ description: 'As the image is shown (EXIF orientation applied).' }),
  url: Type.String({ description: 'Where the bytes are served (`GET …/files/{id}/content`); needs the caller’s credential.' }),
  created_at: Type.String({ format: 'date-time' }),
  created_by: Type.Union([Uuid(), Type.Null()], { description: 'Null once the uploader is erased.' }),
});
export type File = Static<typeof File>;

export const WorkspaceParams = Type.Object({ ws: Uuid('Workspace id') });
export const FileParams = Type.Object({ ws: Uuid('Workspace id'), id: Uuid('File id') });
export const TokenParams = Type.Object({ token: Type.String({ pattern: '^[A-Za-z0-9_-]{64}$', description: 'The token a signed URL ends with.' }) });

export const SignedUrlBody = Type.Object(
  {
    expires_in: Type.Integer({ minimum: MIN_EXPIRES_IN, maximum: MAX_EXPIRES_IN, default: 3600, description: 'Seconds the URL works for: 60 to 604800 (7 days).' }),
  },
  { additionalProperties: false },
);
export type SignedUrlBody = Static<typeof SignedUrlBody>;

export const SignedUrl = Type.Object({
  url: Type.String({ description: 'Absolute; serves the bytes to anyone holding it, without a credential, until `expires_at` or the file’s revocation.' }),
  expires_at: Type.String({ format: 'date-time' }),
});
export type SignedUrl = Static<typeof SignedUrl>;

export const Revoked = Type.Object({
  id: Uuid(),
  revoked_at: Type.String({ format: 'date-time' }),
});

