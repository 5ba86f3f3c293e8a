import { Type, type Static } from '../../core/schema.ts';

export const DEFAULT_API_URL = 'https://api.github.com';

export const GithubOptions = Type.Object(
  {
    apiUrl: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        default: DEFAULT_API_URL,
        description:
          'Root of the GitHub REST API the connections talk to: `https://api.github.com`, `https://HOST/api/v3` for GitHub Enterprise Server, a loopback server in tests.',
      }),
    ),
  },
  { additionalProperties: false, default: {} },
);
export type GithubOptions = Static<typeof GithubOptions>;
