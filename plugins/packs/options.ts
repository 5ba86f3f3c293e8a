import { Type, type Static } from '../../core/schema.ts';

export const PacksOptionsSchema = Type.Object(
  {
    maxBytes: Type.Integer({ minimum: 1024, default: 5 * 1024 * 1024, description: 'Largest pack body accepted (install, publish), in bytes.' }),
    maxResources: Type.Integer({ minimum: 1, maximum: 100_000, default: 20_000, description: 'Most resources in one pack, every kind together.' }),
  },
  { additionalProperties: false },
);
export type PacksOptions = Static<typeof PacksOptionsSchema>;
