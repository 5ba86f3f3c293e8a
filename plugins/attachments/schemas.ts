import { Type, type Static } from '../../core/schema.ts';

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const Nullable = <T extends ReturnType<typeof Type.Integer> | ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const RecordParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id'), id: Uuid('Record id') });
export const AttachmentParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id'), id: Uuid('Record id'), aid: Uuid('Attachment id') });

export const ThumbnailQuery = Type.Object(
  { size: Type.Optional(Type.Union([Type.Literal('small'), Type.Literal('large')], { default: 'small', description: '`small`: 200 px on the longest side; `large`: 800 px. Never enlarged.' })) },
  { additionalProperties: false },
);

/** The upload's multipart parts, for the reference (the router streams `file`; the handler checks `field`). */
export const UploadBody = Type.Object(
  {
    file: Type.String({ format: 'binary', description: 'The file; its type is read from its bytes.' }),
    field: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The attachment field, by api_name or id; optional when the database has exactly one.' })),
  },
  { additionalProperties: false },
);

/** An attachment as its record's cell shows it. */
export const CellAttachment = Type.Object({
  id: Uuid(),
  name: Type.String({ description: 'The file name the client sent, made safe (no directories, no control characters, at most 255 bytes).' }),
  mime_type: Type.String({ description: 'What the bytes are (never what the client said); `application/octet-stream` when they carry no known signature.' }),
  size: Type.Integer({ description: 'Bytes.' }),
  width: Nullable(Type.Integer({ description: 'Pixels as shown (EXIF orientation applied); null for anything but an image.' })),
  height: Nullable(Type.Integer()),
  url: Type.String({ description: 'The API path serving the bytes (needs the caller\'s credential).' }),
  thumbnail_url: Nullable(Type.String({ description: 'The API path of its thumbnail (`?size=large` for the large one); null for anything but a png, jpeg, webp or gif, and for an image no thumbnail can be made of.' })),
});

export const Attachment = Type.Object({
  ...CellAttachment.properties,
  record_id: Uuid(),
  field_id: Uuid(),
  created_at: Type.String({ format: 'date-time' }),
  created_by: Type.Union([Uuid(), Type.Null()], { description: 'Who uploaded it; null once their account is erased.' }),
});
export type Attachment = Static<typeof Attachment>;
export type CellAttachment = Static<typeof CellAttachment>;
