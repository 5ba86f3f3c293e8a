import { Type, type Static } from '../../core/schema.ts';

export const DEFAULT_PAST_DAYS = 30;
export const DEFAULT_FUTURE_DAYS = 365;

/** An `ical.events` source's config: the feed's address and the window occurrences are kept in. */
export const IcalEventsConfig = Type.Object(
  {
    url: Type.String({
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
      maxLength: 2048,
      description: 'The http(s) address of the .ics feed (a `webcal://` address is the same feed over `https://`).',
    }),
    past_days: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 3650, default: DEFAULT_PAST_DAYS, description: 'Days before the run that events are kept from.' }),
    ),
    future_days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3650, default: DEFAULT_FUTURE_DAYS, description: 'Days after the run that events are kept until.' }),
    ),
  },
  { additionalProperties: false },
);
export type IcalEventsConfig = Static<typeof IcalEventsConfig>;
