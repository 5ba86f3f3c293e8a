import { Type, type Static } from '../../core/schema.ts';

export const AttachmentsOptionsSchema = Type.Object(
  {
    maxBytes: Type.Integer({ minimum: 1, maximum: 5 * 1024 * 1024 * 1024, default: 25 * 1024 * 1024, description: 'Largest file one upload may carry, in bytes (413 above).' }),
  },
  { additionalProperties: false },
);
export type AttachmentsOptions = Static<typeof AttachmentsOptionsSchema>;
