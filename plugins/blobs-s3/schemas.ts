import { Type, type Static } from '../../core/schema.ts';

export const S3Options = Type.Object(
  {
    endpoint: Type.Optional(Type.String({ format: 'uri', description: 'The S3-compatible server (MinIO, Ceph, R2, …); unset: AWS S3 of `region`.' })),
    bucket: Type.String({ minLength: 3, maxLength: 63, description: 'The bucket blobs go to; it must exist (start-up checks it).' }),
    region: Type.String({ minLength: 1, default: 'us-east-1' }),
    accessKeyId: Type.Optional(Type.String({ minLength: 1, description: 'Use `{ "$env": … }`. With `secretAccessKey`; both unset: the SDK’s default credential chain (environment, instance role).' })),
    secretAccessKey: Type.Optional(Type.String({ minLength: 1, description: 'Use `{ "$env": … }`.' })),
    forcePathStyle: Type.Boolean({ default: true, description: '`endpoint/bucket/key` URLs (most self-hosted servers); false for virtual-hosted buckets.' }),
    prefix: Type.String({
      default: '',
      pattern: '^([A-Za-z0-9][A-Za-z0-9._-]*/)*$',
      description: 'Put before every key (`tessera/`), to share a bucket; empty or ending with `/`.',
    }),
    checksums: Type.Union([Type.Literal('WHEN_SUPPORTED'), Type.Literal('WHEN_REQUIRED')], {
      default: 'WHEN_SUPPORTED',
      description: 'When the SDK adds CRC checksums to requests and checks them on answers; `WHEN_REQUIRED` for servers that refuse them.',
    }),
  },
  { additionalProperties: false },
);
export type S3Options = Static<typeof S3Options>;
