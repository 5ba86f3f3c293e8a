import { Type, type Static } from '../../core/schema.ts';

export const DEFAULT_API_URL = 'https://slack.com/api/';

export const SlackOptions = Type.Object(
  {
    apiUrl: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        default: DEFAULT_API_URL,
        description:
          'Root of the Slack Web API the connections call (`auth.test`, `chat.postMessage`, … are appended): `https://slack.com/api/`, a loopback server in tests.',
      }),
    ),
  },
  { additionalProperties: false, default: {} },
);
export type SlackOptions = Static<typeof SlackOptions>;
