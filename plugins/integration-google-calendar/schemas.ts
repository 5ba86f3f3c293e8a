import { Type, type Static } from '../../core/schema.ts';

export const DEFAULT_API_URL = 'https://www.googleapis.com/calendar/v3';
export const DEFAULT_AUTHORIZE_URL = 'https://accounts.google.com/o/oauth2/v2/auth';
export const DEFAULT_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export const DEFAULT_REVOKE_URL = 'https://oauth2.googleapis.com/revoke';

/** Read the calendars (the connection test, syncs) and write events (the action). */
export const SCOPES = ['https://www.googleapis.com/auth/calendar.readonly', 'https://www.googleapis.com/auth/calendar.events'];

/**
 * What Google's authorize endpoint needs besides OAuth's own parameters: `access_type=offline` for a refresh token,
 * `prompt=consent` so one comes back on every consent (Google sends it on the first one only otherwise), and
 * `include_granted_scopes` for incremental authorization.
 */
export const AUTHORIZE_PARAMS: Record<string, string> = { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' };

const Url = (defaultUrl: string, description: string) => Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', default: defaultUrl, description }));

export const GoogleCalendarOptions = Type.Object(
  {
    apiUrl: Url(DEFAULT_API_URL, 'Root of the Google Calendar API v3 the connections call (`https://www.googleapis.com/calendar/v3`; a loopback server in tests).'),
    clientId: Type.Optional(
      Type.String({ minLength: 1, description: 'The OAuth client id from Google Cloud (`….apps.googleusercontent.com`). Without it and `clientSecret`, the provider is listed as not configured.' }),
    ),
    clientSecret: Type.Optional(Type.String({ minLength: 1, description: 'The OAuth client secret. Put it in the environment: `{ "$env": "GOOGLE_CALENDAR_CLIENT_SECRET" }`.' })),
    authorizeUrl: Url(DEFAULT_AUTHORIZE_URL, 'Google\'s OAuth authorize endpoint.'),
    tokenUrl: Url(DEFAULT_TOKEN_URL, 'Google\'s OAuth token endpoint.'),
    revokeUrl: Url(DEFAULT_REVOKE_URL, 'Google\'s token revocation endpoint: deleting a connection revokes its grant there.'),
  },
  {
    additionalProperties: false,
    default: {},
    // One without the other is a mistake worth stopping at startup for, not a provider quietly left unconfigured.
    dependencies: { clientId: ['clientSecret'], clientSecret: ['clientId'] },
  },
);
export type GoogleCalendarOptions = Static<typeof GoogleCalendarOptions>;

/** The source kind this plugin adds (when the sources plugin is on): the events of one calendar. */
export const GOOGLE_CALENDAR_EVENTS_KIND = 'google_calendar.events';

export const DEFAULT_CALENDAR_ID = 'primary';

export const GoogleCalendarEventsConfig = Type.Object(
  {
    calendar_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        // No control characters, and not `.` or `..` (a URL resolves those to another path whatever their encoding).
        pattern: '^(?!\\.{1,2}$)[^\\u0000-\\u001f\\u007f]+$',
        default: DEFAULT_CALENDAR_ID,
        description: 'The calendar: `primary` (the connected account\'s own), or a calendar id (an email address, `…@group.calendar.google.com`).',
      }),
    ),
    single_events: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          'Recurring events as one row per instance (Google\'s `singleEvents=true`); false: one row per series, with its exceptions as rows of their own. Changing it reads the calendar again from the start.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type GoogleCalendarEventsConfig = Static<typeof GoogleCalendarEventsConfig>;
