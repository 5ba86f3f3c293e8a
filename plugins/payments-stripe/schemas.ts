import { Type, type Static } from '../../core/schema.ts';

export const DEFAULT_API_URL = 'https://api.stripe.com';

export const StripeOptions = Type.Object(
  {
    secretKey: Type.Optional(
      Type.String({
        pattern: '^(sk|rk)_(test|live)_\\S+$',
        description:
          'The account\'s secret key (`sk_live_…`, `sk_test_…`) or a restricted key (`rk_…`). Use `{ "$env": … }`. Unset: no provider is added (billing configured with `stripe` then does not start).',
      }),
    ),
    webhookSecret: Type.Optional(
      Type.String({
        pattern: '^whsec_\\S+$',
        description: 'The webhook endpoint\'s signing secret (`whsec_…`). Use `{ "$env": … }`. Unset: every delivery is refused.',
      }),
    ),
    apiUrl: Type.Optional(
      Type.String({
        format: 'uri',
        // The Stripe client takes a protocol, host and port, not a base path: a path would be silently dropped.
        pattern: '^https?://[^/?#]+/?$',
        default: DEFAULT_API_URL,
        description: 'Where the Stripe API is: `https://api.stripe.com`, or a loopback server in tests. Scheme, host and port only.',
      }),
    ),
  },
  { additionalProperties: false, default: {} },
);
export type StripeOptions = Static<typeof StripeOptions>;
