import { Type, type Static } from '../../core/schema.ts';

export const DEFAULT_API_URL = 'https://api.zoom.us/v2';
export const DEFAULT_OAUTH_URL = 'https://zoom.us';

export const ZoomOptions = Type.Object(
  {
    apiUrl: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        default: DEFAULT_API_URL,
        description: 'Root of the Zoom REST API (`https://api.zoom.us/v2`; `https://api.zoomgov.com/v2` for ZoomGov; a loopback server in tests).',
      }),
    ),
    oauthUrl: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        default: DEFAULT_OAUTH_URL,
        description: 'Root of Zoom\'s OAuth server, where `/oauth/token` is (`https://zoom.us`; `https://zoomgov.com` for ZoomGov; a loopback server in tests).',
      }),
    ),
  },
  { additionalProperties: false, default: {} },
);
export type ZoomOptions = Static<typeof ZoomOptions>;
